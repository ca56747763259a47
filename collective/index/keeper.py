"""Keeping an agent's index at its head, with the judge's analyses of what it takes in.

Recall and pull bring the index up to date when they need it; `prepare`
does it ahead of a sync window so the window is spent on what arrives.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ..judge import cache as kept_analyses
from ..runtime.gc_pause import gc_paused
from ..runtime.progress import Progress
from .files import read_meta
from .hnsw import VectorIndex

if TYPE_CHECKING:
    from ..store.port import Repository


class IndexKeeper:
    def __init__(self, repo: Repository, folder: Path, *, branch: str, dim: Callable[[], int],
                 model_version: Callable[[], str], judge: Callable[[], object]):
        self.repo = repo
        self.folder = folder
        self.branch = branch
        self._dim, self._model_version, self._judge = dim, model_version, judge
        self._index: VectorIndex | None = None
        self._glanced: list[str] = []  # texts taken in unanalysed by `glance`: saved once analysed

    def current(self, *, save: bool = True, analyse: bool = True) -> VectorIndex:
        """The index, brought to the branch head first (`save=False`: see VectorIndex.ensure;
        `analyse=False`: see prepare)."""
        self.prepare(save=save, analyse=analyse)
        return self._index

    @property
    def loaded(self) -> bool:
        """Whether this process holds the index already (a glance at it then costs a diff)."""
        return self._index is not None

    def glance(self) -> VectorIndex:
        """The index at the head for a quick look (a store asking what it may contradict),
        without loading the judge: what it takes in is not analysed, so it is not saved
        either, and the next process brings the saved index up with the analyses, as before."""
        def noted(rows: Sequence[dict]) -> None:
            self._glanced += [r["content"] for r in rows]

        if self._index is None:
            self._index = VectorIndex(self.folder, dim=self._dim(), model_version=self._model_version())
        self._index.ensure(self.repo, self.repo.head(self.branch), on_indexed=noted, save=False)
        return self._index

    def prepare(self, progress: Progress | None = None, *, save: bool = True, analyse: bool = True) -> dict:
        """Bring the index, and the judge's analyses of each text it takes in, to the head.
        `analyse=False` leaves the texts to whoever judges them first: a pull, whose judging
        analyses the texts of its pairs on every core and keeps them, and whose new memories
        mostly meet no pair."""
        if self._index is None:
            self._index = VectorIndex(self.folder, dim=self._dim(), model_version=self._model_version())
        analysed = 0

        def analysing(rows: Sequence[dict]) -> None:
            nonlocal analysed
            if progress:
                progress("analyse", 0, len(rows))
            with gc_paused():
                analysed += kept_analyses.prepare(self.repo, self._judge(), [r["content"] for r in rows])
            if progress:
                progress("analyse", len(rows), len(rows))

        how = self._index.ensure(self.repo, self.repo.head(self.branch), on_indexed=analysing if analyse else None,
                                  progress=progress, save=False)
        if analyse and self._glanced:  # what a glance took in, analysed now as if taken in now
            analysing([{"content": t} for t in self._glanced])
            self._glanced = []
        if save and how != "current" or save and analysed:
            self.save()
        return {"index": how if how != "current" or not analysed else "updated", "count": len(self._index),
                "analysed": analysed}

    def save(self) -> None:
        if self._index is not None and not self._glanced:
            self._index.save()

    def state(self, head: str) -> dict:
        """What `status` shows: built or not, and whether it reflects `head`."""
        meta = read_meta(self.folder)
        if meta is None:
            return {"built": False}
        return {"built": True, "head": meta["head"], "count": meta["count"], "current": meta["head"] == head}
