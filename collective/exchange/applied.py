"""What a pull applied here, gathered from every part of its report: a verdict, a case or a
promotion may arrive while no peer's branch moved, and a pull says "nothing new" only when
none of these holds anything."""

from __future__ import annotations

from ..model.enums import PeerStatus

KEY_CHANGES = ("first_sighting", "rotated", "roster", "let_go")  # a key taken or let go; a refused one is not


def applied(peers: list[dict], cases: dict, promotions: dict, roster: dict) -> dict:
    """Counts and names of what the pull changed here (the PullApplied shape)."""
    merged = [p for p in peers if p["status"] == PeerStatus.MERGED]
    return {
        "memories": sum(p["summary"].get(k, 0) for p in merged for k in ("new", "updated", "retracted")),
        "peers_merged": len(merged),
        "cases": cases["taken"],
        "opened": cases["opened"],
        "verdicts": cases["verdicts"],
        "reopened": cases["reopened"],
        "promotions": promotions["taken"],
        "promoted": len(promotions["promoted"]),
        "consensus_moved": bool(promotions["consensus_moved"]),
        "roster": roster["version"] if roster["taken"] else None,
        "keys": sum(1 for p in peers if p.get("let_go") or any(p.get("key", {}).get(k) for k in KEY_CHANGES)),
    }

