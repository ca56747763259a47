"""Kept judge analyses: each memory text is analysed once per machine.

Reading a text into slots is most of what the rule judge costs (a 10k-memory
pull meets some 30k texts); loading a kept analysis costs a seventh of that.
Memory texts are analysed when the ANN index takes them in outside a pull
(`prepare`), as derived state beside the vectors, so a pull in a short sync
window reads only its incoming texts, and of those only the ones it judges
(a pull's own index updates leave its arrivals unread). A judge that can keep its analyses (it has
`analysis_version`, `analysis_bytes` and `remember`, as RuleJudge does) gets
them from the unversioned `local_analyses` table before a pull judges, and
what the pull had to analyse is written back. Other judges (a callback, an
NLI model) are left alone. A kept analysis made by other judge code is stale
and ignored.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from ..store.port import Repository

TABLE = "local_analyses"


def text_hash(text: str) -> str:
    """The key: the exact text (not content_hash, which folds case the judge reads)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def keeps(judge) -> bool:
    return all(hasattr(judge, name) for name in ("analysis_version", "analysis_bytes", "remember"))


def recall(repo: Repository, judge, texts: Iterable[str]) -> list[str]:
    """Hand the judge the kept analyses of these texts; return the texts it still lacks."""
    if not keeps(judge):
        return []
    wanted = {text_hash(t): t for t in texts}
    found = {row["text_hash"] for row in _current(repo, judge, wanted)
             if judge.remember(wanted[row["text_hash"]], bytes(row["analysis"]))}
    return [t for h, t in wanted.items() if h not in found]


def prepare(repo: Repository, judge, texts: Iterable[str]) -> int:
    """Analyse and keep the texts that have no current kept analysis; returns how many."""
    if not keeps(judge):
        return 0
    wanted = {text_hash(t): t for t in texts}
    current = {row["text_hash"] for row in _current(repo, judge, wanted, columns=("text_hash", "version"))}
    return keep(repo, judge, [t for h, t in wanted.items() if h not in current])


def _current(repo: Repository, judge, hashes: Iterable[str], columns: tuple[str, ...] | None = None) -> list[dict]:
    """The kept rows of these text hashes that this judge's code made."""
    version = judge.analysis_version
    return [row for row in repo.select_in(TABLE, "text_hash", sorted(hashes), columns=columns)
            if row["version"] == version]


def keep(repo: Repository, judge, texts: Iterable[str]) -> int:
    """Write the judge's analyses of these texts (analysing those it has not read)."""
    if not keeps(judge):
        return 0
    version = judge.analysis_version
    rows = [{"text_hash": text_hash(t), "version": version, "analysis": judge.analysis_bytes(t)}
            for t in set(texts)]
    if rows:
        repo.upsert(TABLE, rows, key=["text_hash"])
    return len(rows)
