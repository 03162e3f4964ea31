"""The index a home searches: its folder, the open Tantivy index and its vectors.

One object owns the lifecycle of ``.git/hearth/index/``: opening the live
index, building a new one aside and swapping it in, noticing that another
process swapped one in, and searching whatever is open (keyword, or hybrid
when semantic ranking is on and vectors exist). What the index *should*
hold is the reconciler's business (its manifest and passes); the reconciler
calls ``open``, ``build_aside`` and ``swap_in`` under its lock and tells the
vectors which sections a pass put in (``noted``).

Searching does not take the reconcile lock: Tantivy lets threads share a
searcher, and a rebuild swaps in a new ``SearchIndex`` object rather than
changing the open one. A process that must first see what other processes
did (the CLI, a hook) asks the reconciler to catch up before it searches.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
from collections.abc import Iterable
from pathlib import Path

from hearth.domain.clock import Clock, utc_now
from hearth.domain.sections import Section
from hearth.errors import IndexUnusable
from hearth.heap import SEARCHES_PER_GIVE_BACK, now_and_then
from hearth.index import ranking
from hearth.index.bodies import Kept, Reader, Signer, Voucher
from hearth.index.floor import FLOOR
from hearth.index.ondisk import VectorCoverage
from hearth.index.question import question
from hearth.index.ranking import SearchResult
from hearth.index.search_index import (
    SearchIndex,
    aside,
    read_generation,
    remove_leftovers,
    swap_in,
)
from hearth.index.semantic import Progress, SemanticRanking
from hearth.index.template import template_digests


class LiveIndex:
    def __init__(
        self,
        folder: Path,
        semantic: SemanticRanking | None = None,
        template: Path | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.folder = folder
        #: Today, for the relative dates a question names (``yesterday``).
        self.clock = clock
        #: Vectors for hybrid ranking; None when semantic ranking is off.
        self.semantic = semantic
        #: The home template's folder: its text ranks low (``template.py``).
        self.template = template
        self._template_digests: frozenset[str] | None = None
        #: Reads the home's files, for the bodies of hits (``read_from``).
        self._read: Reader | None = None
        self._kept: Kept | None = None
        self._vouch: Voucher | None = None
        self._index: SearchIndex | None = None
        #: What searches free goes back to the system now and then (heap.py).
        self._searched = now_and_then(SEARCHES_PER_GIVE_BACK)

    def _live(self, index: SearchIndex) -> SearchIndex:
        if self._template_digests is None:
            self._template_digests = template_digests(self.template)
        index.template = self._template_digests
        index.read = self._read
        index.kept = self._kept
        index.vouch = self._vouch
        return index

    def read_from(
        self, read: Reader, sign: Signer | None = None, vouch: Voucher | None = None
    ) -> None:
        """Read hits' bodies with ``read`` (the home's files: the reconciler's);
        with ``sign`` (``RootedFiles.signature``), keep the files' lines while
        their signature stays the same (``bodies.Kept``); with ``vouch``
        (``Reconciler.vouched``), take a body from the index while its file
        is still the bytes it was cut from."""
        self._read = read
        self._kept = Kept(sign) if sign is not None else None
        self._vouch = vouch
        if self._index is not None:
            self._live(self._index)

    @property
    def current(self) -> SearchIndex | None:
        """The open index, if any (None before the first pass of this process)."""
        return self._index

    # -- lifecycle (called by the reconciler, under its lock) ---------------

    def swapped_elsewhere(self) -> bool:
        """Another process swapped a rebuilt index in since this one was opened."""
        return self._index is None or read_generation(self.folder) != self._index.generation

    def reload(self) -> None:
        """Another process committed to the open index: search its new state."""
        assert self._index is not None
        self._index.refresh()
        if self.semantic is not None:
            self.semantic.index_opened()

    def open(self) -> SearchIndex | None:
        """Open the index on disk (removing a crashed rebuild's debris first);
        None when there is none or it cannot be used. The index open until now is
        not closed: a search on another thread may still be reading it (Tantivy
        frees its files when the last reference goes)."""
        remove_leftovers(self.folder)
        try:
            return SearchIndex(self.folder)
        except IndexUnusable:
            return None

    def adopt(self, index: SearchIndex) -> None:
        """``index`` (from ``open``) is consistent with the manifest: it is live."""
        self._index = self._live(index)
        if self.semantic is not None:
            self.semantic.index_opened()

    def build_aside(self) -> tuple[Path, SearchIndex]:
        """A new, empty index in a folder beside the live one. The folder that
        holds the live one is made if missing, but not its parents: a home
        deleted under the server is not made again (``FileNotFoundError``)."""
        self.folder.parent.mkdir(exist_ok=True)
        new_folder = aside(self.folder)
        return new_folder, SearchIndex.create(new_folder)

    def swap_in(self, new_folder: Path, built: SearchIndex, sections: Iterable[Section]) -> None:
        """Make the index built in ``new_folder`` the live one; it holds ``sections``."""
        built.close()
        swap_in(new_folder, self.folder)  # the old index is left to searches reading it
        self._index = self._live(SearchIndex(self.folder))
        if self.semantic is not None:
            self.semantic.index_replaced(sections)

    def noted(self, sections: Iterable[Section], replaced: Iterable[str] = ()) -> None:
        """A pass re-indexed or removed the files ``replaced`` and put ``sections``
        in the open index (vectors follow)."""
        if self.semantic is not None:
            self.semantic.note(sections, replaced)

    def documents(self) -> int:
        assert self._index is not None
        return self._index.documents()

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    # -- reading -------------------------------------------------------------

    def search(
        self,
        text: str,
        kind: str | None = None,
        path_prefix: str | None = None,
        limit: int = 10,
        *,
        everything: bool = False,
        recall: bool = False,
    ) -> SearchResult:
        """Search the open index through the ranking pipeline (``ranking.py``:
        hybrid when semantic ranking is on and vectors exist): the hits above
        the relevance floor (``floor.py``), or with ``everything`` every hit;
        ``recall``: a prompt's recall, not a search a person asked for
        (``Floor.searched``: small talk alone finds nothing)."""
        index = self._index
        if index is None:
            raise IndexUnusable("the index is not open yet: run a reconcile pass first")
        today = self.clock().astimezone(dt.UTC).date()
        asked = question(text, kind, path_prefix, limit, today)
        floor = None if everything else FLOOR
        if floor is not None and recall:
            floor = dataclasses.replace(floor, searched=False)
        found = ranking.search(index, asked, self.semantic, floor=floor)
        self._searched()
        return found

    def fill_vectors(
        self, progress: Progress | None = None, stop: threading.Event | None = None
    ) -> int:
        """Embed the sections that have no vector yet (slow: never under the lock).

        Nothing is open yet: 0 (opening the index wakes the vectors' filler)."""
        index = self._index
        if self.semantic is None or index is None:
            return 0
        return self.semantic.fill(index, progress, stop)

    def vector_coverage(self) -> VectorCoverage | None:
        index = self._index
        if self.semantic is None or index is None:
            return None
        return self.semantic.coverage(index)
