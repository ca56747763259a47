"""A dream's results travel on its branch: pushed to the commons right after the run,
and imported by peers after a pull. From an agent the receiver trusts (at least
`import_trust`), a receiver takes its syntheses (signed by it, at `import_amplitude`
of their amplitude, with their lineage), its links whose two ends the receiver holds,
its cluster assignments as hints, and its prune hints as advice (nothing is faded)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from collective.errors import CollectiveError
from collective.identity import verify
from collective.model import Memory, iso, utcnow
from collective.model.enums import LinkType
from collective.model.refs import agent_of_dream
from collective.store.dream_tables import DreamTables

from .settings import DreamSettings
from .stages import hallucinate

if TYPE_CHECKING:
    from .port import DreamPort

IMPORTED = "imported"


def share(port: DreamPort, branch: str) -> dict:
    """Push a dream branch to the agent's commons, when it has one; a failure is reported."""
    try:
        remote = port.remote(None)
        if remote is None:
            return {"pushed": False, "reason": "no remote"}
        port.repo.push(remote, branch)
    except CollectiveError as e:
        return {"pushed": False, "reason": str(e).splitlines()[0]}
    return {"pushed": True, "remote": remote, "branch": branch}


def import_from_peers(port: DreamPort, remote: str | None = None) -> dict:
    """Import the artifacts of every peer dream on the remote (as last fetched) not imported yet."""
    settings = port.dream
    remote = port.remote(remote)
    if remote is None:
        return {"remote": None, "runs": []}
    trust, keys = port.trust_scores(), port.tables.agents.keys()
    runs = DreamTables(port.repo).runs
    out: list[dict] = []
    for ref in sorted(port.repo.remote_branches()):
        name = ref[len(remote) + 1:] if ref.startswith(remote + "/") else None
        peer = agent_of_dream(name) if name else None
        if peer is None or peer == port.agent_id:
            continue
        run_id = f"{peer}:{name.rsplit('/', 1)[-1]}"
        if runs.get(run_id) is not None:
            continue
        if peer not in keys or trust.get(peer, 0.0) < settings.import_trust:
            out.append({"peer": peer, "run": run_id, "imported": False, "reason": "not trusted enough"})
            continue
        out.append(_import_run(port, ref, peer, run_id, keys[peer], settings))
    return {"remote": remote, "runs": out}


def _import_run(port: DreamPort, ref: str, peer: str, run_id: str, key: str, settings: DreamSettings) -> dict:
    repo, tables, dreams = port.repo, port.tables, DreamTables(port.repo)
    their_run = dreams.runs.get(run_id.split(":", 1)[1], as_of=ref)
    if their_run is None:
        return {"peer": peer, "run": run_id, "imported": False, "reason": "no run recorded on the branch"}
    at = iso(utcnow())
    made = [Memory.from_row(r) for r in repo.select(tables.memories.name, {"hallucinated": 1, "origin_agent": peer},
                                                     as_of=ref)]
    held = set(tables.memories.by_id([m.id for m in made]))
    fresh = [m for m in made if m.id not in held and verify(key, m.claim(), m.signature)]
    for m in fresh:
        m.amplitude *= settings.import_amplitude
        m.last_consolidated_at = None
    mine = {r["id"] for r in tables.memories.rows(columns=("id",))} | {m.id for m in fresh}
    theirs = repo.select(tables.links.name, {"created_by": peer}, as_of=ref)
    links = [{**link, "created_at": at} for link in theirs
             if link["source_id"] in mine and link["target_id"] in mine and link["link_type"] != LinkType.DISPUTES]
    links += [link for m in fresh for link in hallucinate.lineage_links(m, at=at) if link["target_id"] in mine]
    clusters = [{**c, "run_id": run_id} for c in dreams.clusters.of_run(their_run["id"], as_of=ref)]
    hints = [{**h, "run_id": run_id} for h in dreams.prune_hints.of_run(their_run["id"], as_of=ref)]
    with repo.transaction():
        tables.memories.insert(fresh)
        port.refutations.settle(fresh, now=at)
        tables.links.write(links)
        dreams.clusters.write(clusters)
        dreams.prune_hints.write(hints)
        dreams.runs.write({"id": run_id, "agent_id": peer, "branch_name": ref, "status": IMPORTED,
                           "stats": {"syntheses": len(fresh), "links": len(links), "clusters": len(clusters),
                                     "prune_hints": len(hints)},
                           "started_at": their_run["started_at"], "finished_at": at})
        repo.commit(f"import the dream artifacts of {peer} ({run_id})", author=port.agent_id)
    return {"peer": peer, "run": run_id, "imported": True, "syntheses": len(fresh), "links": len(links),
            "clusters": len(clusters), "prune_hints": len(hints)}
