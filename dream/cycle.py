"""One dream cycle: select, run the stages, write the result on its own branch
`<agent>/dream/<YYYYmmdd-HHMMSS>`, then merge it into working (or leave it for
`accept` after review). Everything is written in one transaction on the dream
branch, so a failure at any point leaves the working branch as it was."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from collective.errors import BadInput, CollectiveError, NotFound
from collective.model import events, iso, parse_time, utcnow
from collective.model.refs import agent_of_dream, dream_branch
from collective.runtime.progress import Progress
from collective.store.dream_tables import CoAccessCounts, DreamTables

from . import artifacts, consolidate, report
from .field import current_strength, live, load
from .settings import DreamSettings
from .stages import hallucinate, prune, select, wire

if TYPE_CHECKING:
    from .port import DreamPort

DONE, REVIEW, ACCEPTED = "completed", "review", "accepted"


class DreamFailed(CollectiveError):
    """A dream cycle stopped; the working branch is unchanged."""


def dream(port: DreamPort, *, full: bool = False, jobs: int = 1, review: bool = False,
          synthesiser: hallucinate.Synthesiser | None = None, now: datetime | None = None,
          progress: Progress | None = None, share: bool = True) -> dict:
    """Run one cycle and return its report; the dream branch is pushed to the commons
    (when there is one) once it is merged into working (or, with review, right after the run)."""
    synthesiser = synthesiser or hallucinate.from_summaries
    if not isinstance(jobs, int) or jobs < 1:
        raise BadInput("jobs", f"must be a positive whole number, got {jobs!r}")
    now = now or utcnow()
    settings = port.dream
    port.flush_access()
    base = port.repo.head(port.branch)
    branch = _free_branch(port.repo, dream_branch(port.agent_id, now.strftime("%Y%m%d-%H%M%S")))
    previous = DreamTables(port.repo).runs.of_agent(port.agent_id, status=[DONE, ACCEPTED])
    since = _watermark(port.repo, previous) if not full else None
    coaccess = CoAccessCounts(port.repo).all()
    clock = consolidate.Outcome(None)  # the times before there is a field
    with clock.timed("index", progress):  # brought to the head (what changed since it last was)
        index = port.index()
    with clock.timed("select", progress):
        selection, rows = _select(port, index, since, base, coaccess, settings)
        field = load(rows, agent_id=port.agent_id, dim=port.dim, trust_scores=port.trust_scores(),
                     half_lives=port.settings.half_lives, now=now.timestamp())
    at = iso(now)
    ctx = _context(port, index, coaccess, selection, synthesiser,
                   cross_cluster=(len(previous) + 1) % max(settings.cross_cluster_every, 1) == 0)
    try:
        outcome = consolidate.run(field, ctx, settings, jobs=jobs, now=now.timestamp(), at=at, progress=progress)
        outcome.seconds = {**clock.seconds, **outcome.seconds}
        run_id = branch.rsplit("/", 1)[-1]
        with outcome.timed("stability", progress):
            stability = report.stability_before_after(port, index, outcome, now.timestamp())
        doc = report.build(run_id, branch, base, selection, outcome, stability, jobs=jobs, review=review)
        with outcome.timed("write", progress):
            doc["head"] = _write(port, branch, base, run_id, outcome, doc, at, review=review)
    except CollectiveError as e:
        raise DreamFailed(f"dream failed, working branch unchanged: {e}") from e
    doc["shared"] = {"pushed": False, "reason": "not asked"}
    if not review:
        with outcome.timed("merge", progress):
            untouched = port.repo.head(port.branch) == base  # nothing was stored meanwhile
            told = events.dreamed(doc, outcome.synthesised, status="merged", started_at=at,
                                  seconds=sum(outcome.seconds.values()))
            clean = merge_into_working(port, branch, outcome.folded, told)
        with outcome.timed("reindex", progress):  # the index follows what the dream changed
            if untouched and clean:
                _advance_index(index, port.repo.head(port.branch), outcome)
            else:
                port.index()
    # shared once merged: a crash between the two had left on the commons a finished run whose
    # syntheses every peer imported while the dreamer itself held none of them
    if share:
        with outcome.timed("share", progress):
            doc["shared"] = artifacts.share(port, branch)
    doc["seconds"] = outcome.seconds
    return doc


def _context(port: DreamPort, index, coaccess, selection: select.Selection, synthesiser: hallucinate.Synthesiser, *,
             cross_cluster: bool) -> consolidate.Context:
    memories = port.tables.memories
    return consolidate.Context(
        index=index, comparator=port.comparator(), repo=port.repo, coaccess=coaccess,
        parents_of_live=lambda: prune.with_live_descendants(
            memories.rows(columns=("id", "parents", "retracted", "absorbed_into", "refuted_by"))),
        agent_id=port.agent_id, model_version=port.model_version, amplitude_cap=port.settings.amplitude_cap,
        fade_threshold=port.settings.fade_threshold, cross_cluster=cross_cluster, synthesiser=synthesiser,
        changed=None if selection.full else selection.changed_ids,
        known=lambda made: set(memories.by_id([m.id for m in made])))


def _free_branch(repo, name: str) -> str:
    """`name`, or `name-2`, `name-3`... when a dream of the same second exists."""
    taken, candidate, n = repo.branches(), name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}-{n}"
    return candidate


def _watermark(repo, previous: list[dict]) -> str | None:
    """The last merged dream's commit: an incremental run looks at what changed since."""
    for run in reversed(previous):
        try:
            return repo.resolve(run["branch_name"])
        except NotFound:
            continue
    return None


def _select(port: DreamPort, index, since: str | None, head: str, coaccess, settings: DreamSettings):
    memories = port.tables.memories
    if since is None:
        rows = [r for r in memories.rows() if live(r)]
        return select.everything([r["id"] for r in rows]), rows
    changed = select.changed_since(port.repo, memories.name, since, head) | set(coaccess)
    changed_rows = [r for r in memories.rows_by_id(sorted(changed)) if live(r)]
    selection = select.with_neighbours(changed_rows, index, neighbours=settings.neighbours, dim=port.dim)
    return selection, memories.rows_by_id(selection.ids)


def _write(port: DreamPort, branch: str, base: str, run_id: str, outcome: consolidate.Outcome, doc: dict,
           at: str, *, review: bool) -> str:
    """Every decision of the run, in one transaction and one commit on the dream branch."""
    repo, field = port.repo, outcome.field
    repo.create_branch(branch, start=base)
    with repo.on_branch(branch), repo.transaction():
        port.tables.memories.write_rows([
            {**r, "amplitude": float(field.amplitude[k]), "phase": float(field.phase[k]),
             "layer": int(field.layer[k]), "last_consolidated_at": at} for k, r in enumerate(field.rows)])
        port.tables.memories.insert([_signed(port, m) for m in outcome.synthesised])
        port.refutations.settle(outcome.synthesised, now=at)  # a synthesis of a refuted claim is refuted
        links = wire.rows(outcome.links, by=port.agent_id, at=at)
        links += [link for m in outcome.synthesised for link in hallucinate.lineage_links(m, at=at)]
        port.tables.links.write(links)
        tables = DreamTables(repo)
        tables.clusters.write(report.cluster_rows(run_id, outcome))
        tables.prune_hints.write(outcome.pruned.hints(field, run_id, current_strength(field)))
        tables.runs.write({"id": run_id, "agent_id": port.agent_id, "branch_name": branch,
                           "status": REVIEW if review else DONE, "stats": doc, "started_at": at,
                           "finished_at": iso(utcnow())})
        return repo.commit(f"dream {run_id}: {doc['mode']} run over {len(field)} memories", author=port.agent_id)


def _signed(port: DreamPort, memory):
    memory.signature = port.sign(memory.claim())
    return memory


def _advance_index(index, head: str, outcome: consolidate.Outcome) -> None:
    """The index told what the dream changed (amplitudes of rows whose vectors and texts
    stayed, and the syntheses), instead of reading it back as a diff."""
    field = outcome.field
    rescored = [{"id": r["id"], "amplitude": float(field.amplitude[k]), "origin_agent": r["origin_agent"],
                 "created_at": r["created_at"], "category": r["category"]} for k, r in enumerate(field.rows)]
    index.advance(head, rescored=rescored, added=[m.to_row() for m in outcome.synthesised])


def merge_into_working(port: DreamPort, branch: str, folded: dict[str, tuple[int, float]],
                       told: list[events.Draft]) -> bool:
    """Merge the dream branch into working (working's own changes win a clash) with the
    run's events (the outbox lives in working's working set: a run that fails, or waits
    for review, has told no one), then take the co-access counts the run folded out of
    the counter. False when there was a clash."""
    repo = port.repo
    with repo.transaction():
        port.tables.outbox.add(told)  # first: a Dolt merge or commit persists on its own, so it comes last
        conflicts = repo.merge(branch, message=f"merge {branch}", author=port.agent_id)
        if conflicts:
            for table in sorted({c.table for c in conflicts}):
                repo.resolve_conflicts(table, "ours")
            repo.commit(f"merge {branch} (working's changes kept where both changed)", author=port.agent_id)
    give_back(CoAccessCounts(repo), folded)
    return not conflicts


def give_back(counter: CoAccessCounts, folded: dict[str, tuple[int, float]]) -> None:
    """Subtract what was folded (recalls may have counted more meanwhile)."""
    if not folded:
        return
    now_counts = counter.of(list(folded))
    left = {i: (n - folded[i][0], f / folded[i][1]) for i, (n, f) in now_counts.items() if i in folded}
    counter.remove([i for i, (n, _) in left.items() if n <= 0])
    counter.write({i: v for i, v in left.items() if v[0] > 0}, at=iso(utcnow()))


def accept(port: DreamPort, run: str) -> dict:
    """Merge a run made with review into working."""
    runs = DreamTables(port.repo).runs
    branch = run if "/" in run else dream_branch(port.agent_id, run)
    row = None
    # only this agent's own dream branches, as it made them here: a fetched one (a peer's,
    # or its own as the commons holds it) would be merged into working unchecked
    if agent_of_dream(branch) == port.agent_id and branch in port.repo.branches():
        try:
            row = runs.get(branch.rsplit("/", 1)[-1], as_of=branch)
        except NotFound:
            pass
    if row is None:
        raise NotFound("run", f"no dream run {run!r}")
    merged = runs.get(row["id"])
    if row["status"] != REVIEW or (merged is not None and merged["status"] == ACCEPTED):
        status = merged["status"] if merged is not None and merged["status"] == ACCEPTED else row["status"]
        raise BadInput("run", f"dream run {run!r} is {status}, not waiting for review")
    folded = {k: tuple(v) for k, v in row["stats"].get("coaccess_folded", {}).items()}
    made = port.tables.memories.by_id([m["id"] for m in row["stats"]["synthesised"]], as_of=branch)
    seconds = (parse_time(row["finished_at"]) - parse_time(row["started_at"])).total_seconds()
    told = events.dreamed(row["stats"], made.values(), status=ACCEPTED, started_at=row["started_at"],
                          seconds=seconds)
    merge_into_working(port, branch, folded, told)
    with port.repo.transaction():
        runs.write({**row, "status": ACCEPTED, "finished_at": iso(utcnow())})
        head = port.repo.commit(f"dream {row['id']} accepted", author=port.agent_id)
    return {"run": row["id"], "branch": branch, "status": ACCEPTED, "head": head}


