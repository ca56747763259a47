"""What a peer's branch brought, sorted by whether a pull may merge it: the peer's own
memories whose signatures verify, and why the others were not taken."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..model import Memory


@dataclass
class Arrivals:
    """What a peer's branch brought, sorted by whether it may be merged."""

    incoming: list[Memory]           # the peer's own memories whose signatures verify
    refused: dict[str, int]          # why others were not taken
    relayed: int                     # copies of third parties' memories, taken from their origins instead


def sort_out(peer: str, memories: Sequence[Memory], signers: Sequence[str | None],
              valid: Sequence[bool]) -> Arrivals:
    valid_of = iter(valid)  # one result per memory that had a key to check against
    arrivals = Arrivals([], {"forged_origin": 0, "bad_signature": 0}, 0)
    for memory, key in zip(memories, signers):
        ok = bool(key) and next(valid_of)
        if memory.origin_agent != peer:
            # We take a relayed copy from its origin; one that claims an origin
            # without that origin's signature is forged.
            if ok:
                arrivals.relayed += 1
            else:
                arrivals.refused["forged_origin"] += 1
        elif not ok:
            arrivals.refused["bad_signature"] += 1
        else:
            arrivals.incoming.append(memory)
    arrivals.refused = {k: v for k, v in arrivals.refused.items() if v}
    return arrivals
