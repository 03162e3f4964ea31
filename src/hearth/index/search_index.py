"""One Tantivy index of a home's sections, in a folder of its own.

::

    <folder>/meta.json     {"schema": N, "generation": "<random id>"}
    <folder>/tantivy/      Tantivy's files

The folder is the unit of replacement: a rebuild fills a new folder beside
the live one and ``swap_in`` renames it into place, so a reader never sees a
half-built index, and a crash mid-swap leaves no live folder, which the next
open rebuilds. The generation changes with every rebuild so another process
holding the old folder open knows to reopen.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import threading
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

import tantivy
from tantivy import Query

from hearth import traffic
from hearth.domain.sections import Section
from hearth.errors import IndexUnusable
from hearth.index.analysis import build_fast_analyzer
from hearth.index.bodies import Bodies, Kept, Reader, Voucher, current
from hearth.index.documents import documents
from hearth.index.hits import Hit, Ranked
from hearth.index.ondisk import META_NAME, SCHEMA_VERSION, TANTIVY_DIR
from hearth.index.query import (
    run_digest_ranked,
    run_holding_all,
    run_in_headings,
    run_neighbours,
    run_ranked,
)
from hearth.index.schema import (
    ANALYZER,
    NO_TERMS,
    SEARCH_FIELD,
    build_no_terms,
    build_schema,
    passage,
    register_analyzer,
)
from hearth.index.snippets import run_snippets
from hearth.index.weights import WEIGHTS, Weights

#: Heap per indexing thread for big batches (rebuilds).
WRITER_HEAP = 50_000_000
#: Heap for small batches: Tantivy's minimum per thread.
SMALL_WRITER_HEAP = 15_000_000
#: Files in one update above which a second indexing thread is used.
BIG_BATCH = 500
#: Sections listed for the vectors' filler between its steps aside (``hearth.traffic``).
STEP = 256


class Listing(NamedTuple):
    """What ``SearchIndex.listing`` found."""

    #: The passage digest of every section.
    live: set[str]
    #: ``(digest, passage, path)`` of the sections without a stored vector, most
    #: useful first.
    missing: list[tuple[str, str, str]]


class SearchIndex:
    def __init__(self, folder: Path) -> None:
        """Open the index in ``folder``; raise IndexUnusable when it cannot be used as is."""
        self.folder = folder
        try:
            meta = json.loads((folder / META_NAME).read_text())
        except (OSError, ValueError) as exc:
            raise IndexUnusable(f"no readable index metadata in {folder}") from exc
        if not isinstance(meta, dict) or meta.get("schema") != SCHEMA_VERSION:
            found = meta.get("schema") if isinstance(meta, dict) else None
            raise IndexUnusable(f"index schema {found!r} is not {SCHEMA_VERSION}")
        self.generation = str(meta.get("generation", ""))
        #: Digests of the home template's sections (``template.py``), set by
        #: ``LiveIndex``: they rank at ``Weights.template``.
        self.template: frozenset[str] = frozenset()
        #: Reads the home's files, for the bodies of hits (``bodies.py``); set by
        #: ``LiveIndex``. Without it a hit's body is empty.
        self.read: Reader | None = None
        #: The lines of files searches read, kept while unchanged (``bodies.Kept``;
        #: set by ``LiveIndex``). Without it each search reads its files.
        self.kept: Kept | None = None
        #: Vouches for files' bytes (``bodies.Voucher``; set by ``LiveIndex``).
        self.vouch: Voucher | None = None
        self.schema = build_schema()
        self._writing: tantivy.Index | None = None
        self._opening = threading.Lock()
        try:
            self._index = tantivy.Index(self.schema, path=str(folder / TANTIVY_DIR), reuse=True)
            register_analyzer(self._index)
            self._index.reload()
            self._index.searcher()
        except (ValueError, OSError, RuntimeError) as exc:
            raise IndexUnusable(f"the index in {folder} cannot be opened: {exc}") from exc

    @classmethod
    def create(cls, folder: Path) -> SearchIndex:
        """A new, empty index in ``folder`` (new; its parent is not made)."""
        folder.mkdir()
        (folder / TANTIVY_DIR).mkdir()
        try:  # its folder removed as it starts: unusable, as an index that cannot open
            tantivy.Index(build_schema(), path=str(folder / TANTIVY_DIR), reuse=False)
        except (ValueError, OSError, RuntimeError) as exc:
            raise IndexUnusable(f"no index can be made in {folder}: {exc}") from exc
        meta = {"schema": SCHEMA_VERSION, "generation": secrets.token_hex(8)}
        (folder / META_NAME).write_text(json.dumps(meta))
        return cls(folder)

    def apply(self, replace: Mapping[str, Sequence[Section]], delete: Iterable[str]) -> None:
        """Replace the sections of some files and drop others, in one index commit."""
        with self.update() as batch:
            batch.expect(len(replace))
            for path in delete:
                batch.delete(path)
            for path, sections in replace.items():
                batch.replace(path, sections)

    @contextlib.contextmanager
    def update(self, *, fresh: bool = False) -> Iterator[IndexUpdate]:
        """A batch of changes that becomes one index commit when the block ends.

        Documents go to Tantivy's indexing threads as they are added, so they are
        indexed while the caller reads the next files. Nothing is committed (and
        no writer is opened) when the batch stays empty; on an exception the
        batch is rolled back.
        """
        batch = IndexUpdate(self._writer_index(), fresh)
        try:
            yield batch
        except BaseException:
            batch.rollback()
            raise
        if batch.commit():
            self.refresh()

    def _writer_index(self) -> tantivy.Index:
        """The same folder opened with the writer's fast analyzer (``analysis.py``)."""
        with self._opening:  # searches on several threads may ask at once
            if self._writing is None:
                try:
                    writing = tantivy.Index(
                        self.schema, path=str(self.folder / TANTIVY_DIR), reuse=True
                    )
                except (ValueError, OSError, RuntimeError) as exc:
                    raise IndexUnusable(
                        f"the index in {self.folder} cannot be opened: {exc}"
                    ) from exc
                writing.register_tokenizer(ANALYZER, build_fast_analyzer())
                writing.register_tokenizer(NO_TERMS, build_no_terms())
                self._writing = writing
            return self._writing

    def ranked(
        self,
        text: str,
        kind: str | None = None,
        path_prefix: str | None = None,
        limit: int = 10,
        dates: Sequence[str] = (),
        weights: Weights = WEIGHTS,
        more: int = 0,
    ) -> Ranked:
        """The keyword candidates of ``text``, without snippets (``dates``: the
        days and months it names; ``more``: ``run_ranked``'s)."""
        filters = (kind, path_prefix, limit, self.template, dates, weights, more)
        return run_ranked(self._index, self.schema, text, *filters)

    def ranked_digests(
        self,
        digests: Sequence[str],
        kind: str | None = None,
        path_prefix: str | None = None,
        limit: int = 10,
        weights: Weights = WEIGHTS,
    ) -> Ranked:
        """The sections holding these passage digests, in their order, without
        snippets (the semantic candidates)."""
        return run_digest_ranked(
            self._index, self.schema, digests, kind, path_prefix, limit, self.template, weights
        )

    def neighbours(self, around: Sequence[tuple[str, int]], words: Query | None = None) -> Ranked:
        """The sections next to each ``(path, ordinal)`` (``neighbour_bonuses.py``),
        scored by ``words`` (a keyword ranking's ``query``) or unscored."""
        return run_neighbours(self._index, self.schema, around, words)

    def in_headings(self, words: Sequence[str]) -> list[str]:
        """Those of ``words`` that some section's heading holds."""
        return run_in_headings(self._index, words)

    def holding_all(self, groups: Sequence[Sequence[str]]) -> bool:
        return run_holding_all(self._index, self.schema, groups)  # a term of each group

    def bodies(self, *found: Ranked) -> Bodies:
        """The bodies of the hits of rankings ``found`` (``Bodies.of``)."""
        return Bodies.of(found, self.read, self.kept, self.vouch)

    def snippets(
        self,
        hits: Sequence[Hit],
        bodies: Mapping[tuple[str, int], str],
        text: str,
        matched: Query | None = None,
    ) -> list[Hit]:
        """``hits`` (of ``ranked`` or ``ranked_digests``) with their snippets for
        ``text`` (plain text through the writer's fast analyzer: ``run_snippets``;
        ``matched``: ``Ranked.matched`` of ``text``, not parsed again)."""
        if isinstance(bodies, Bodies):
            bodies.load((hit.path, hit.start_line) for hit in hits)
        return run_snippets(self._index, self.schema, hits, bodies, text, self._in_step(), matched)

    def _in_step(self) -> tantivy.Index | None:
        """The writer's index when its searcher sees what the reader's does; else
        None (snippets then go through the search analyzer). Each Index object's
        reader also reloads by itself, some time after a commit: one may be a
        commit ahead, and a snippet generator only highlights the terms its own
        searcher has documents for."""
        try:
            plain = self._writer_index()
        except IndexUnusable:
            return None
        reader = self._index.searcher()
        for attempt in range(2):
            other = plain.searcher()
            if (other.num_docs, other.num_segments) == (reader.num_docs, reader.num_segments):
                return plain
            if attempt == 0:
                plain.reload()
        return None

    def listing(self, stored: Container[str] = frozenset()) -> Listing:
        """Every section's passage digest, and ``(digest, passage)`` of those not
        in ``stored``, the most useful first (``embedding_order``: a first build
        answers what a runtime asks most while the rest fills). Only the passages
        missing are made: with every text, a big home's listing held much memory."""
        searcher = self._index.searcher()
        total = int(searcher.num_docs)
        live: set[str] = set()
        wanted: list[tuple[str, int, str]] = []
        order: dict[str, tuple[int, str]] = {}
        if total == 0:
            return Listing(live, [])
        for n, (_score, address) in enumerate(
            searcher.search(tantivy.Query.all_query(), total).hits
        ):
            if not n % STEP:
                traffic.step_aside()  # a long Python loop on the filler's thread
            doc = searcher.doc(address)
            key = str(doc.get_first("digest") or "")
            if key in live:
                continue
            live.add(key)
            if key in stored:
                continue
            path, start_line = str(doc.get_first("path")), int(doc.get_first("start_line") or 0)
            wanted.append((path, start_line, key))
            kind, date = str(doc.get_first("kind") or ""), str(doc.get_first("date") or "")
            order[key] = embedding_order(kind, date)
        # The passages are read from the files: a section changed since it was
        # indexed is left out (its new text comes with the pass that indexes it).
        missing = []
        for n, (path, _line, key, section) in enumerate(current(self.read, wanted)):
            if not n % STEP:
                traffic.step_aside()
            missing.append((order[key], key, passage(section.heading, section.body), path))
        missing.sort(key=lambda item: item[0])
        return Listing(live, [(key, text, path) for _order, key, text, path in missing])

    def documents(self) -> int:
        return int(self._index.searcher().num_docs)

    def frequencies(self, terms: Sequence[str]) -> tuple[dict[str, int], int]:
        """How many sections hold each of ``terms`` (analyzed), and how many there are."""
        searcher = self._index.searcher()
        return {t: int(searcher.doc_freq(SEARCH_FIELD, t)) for t in terms}, int(searcher.num_docs)

    def close(self) -> None:
        """Drop this process's handle (Tantivy frees its files when the object goes)."""
        del self._index
        self._writing = None

    def refresh(self) -> None:
        """See commits made by another process (and this one's writer's)."""
        self._index.reload()
        writing = self._writing
        if writing is not None:  # its searcher makes snippets (``_in_step``)
            writing.reload()


class IndexUpdate:
    def __init__(self, index: tantivy.Index, fresh: bool) -> None:
        self._index = index
        self._threads = 1
        self._big = False
        self._fresh = fresh
        self._writer: tantivy.IndexWriter | None = None

    def _open(self) -> tantivy.IndexWriter:
        if self._writer is None:
            # A big heap only pays off for big batches; it is allocated whole, so a
            # small update (one write's file) gets Tantivy's minimum.
            heap = WRITER_HEAP * self._threads if self._big else SMALL_WRITER_HEAP
            try:
                self._writer = self._index.writer(heap_size=heap, num_threads=self._threads)
            except ValueError as exc:
                raise IndexUnusable(f"the index writer is busy or broken: {exc}") from exc
        return self._writer

    def expect(self, files: int) -> None:
        """Size the writer for ``files`` updates (call before the first change)."""
        if self._writer is None and files > BIG_BATCH:
            self._big = True
            self._threads = min(2, os.cpu_count() or 1)

    def delete(self, path: str) -> None:
        self._open().delete_documents_by_term("path", path)

    def replace(self, path: str, sections: Sequence[Section], file: bytes | None = None) -> None:
        """``sections`` in place of ``path``'s, cut from bytes of digest ``file``."""
        writer = self._open()
        if not self._fresh:
            writer.delete_documents_by_term("path", path)
        for doc in documents(sections, file):
            writer.add_document(doc)

    def commit(self) -> bool:
        """Commit what was added; False when there was nothing."""
        if self._writer is None:
            return False
        writer, self._writer = self._writer, None
        try:
            writer.commit()
        except ValueError as exc:
            # e.g. files left by a process killed mid-commit collide with this
            # commit's names: the folder is not safe to write to any more.
            raise IndexUnusable(f"the index could not commit: {exc}") from exc
        finally:
            writer.wait_merging_threads()
        return True

    def rollback(self) -> None:
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.rollback()
            writer.wait_merging_threads()


def read_generation(folder: Path) -> str | None:
    try:
        meta = json.loads((folder / META_NAME).read_text())
    except (OSError, ValueError):
        return None
    return str(meta.get("generation")) if isinstance(meta, dict) else None


def aside(live: Path) -> Path:
    """A fresh folder name next to ``live`` for building a replacement."""
    return live.with_name(f"{live.name}.new-{secrets.token_hex(4)}")


def swap_in(new: Path, live: Path) -> None:
    """Put the folder ``new`` in place of ``live``, then remove the old one."""
    old = live.with_name(f"{live.name}.old-{secrets.token_hex(4)}")
    with contextlib.suppress(FileNotFoundError):
        live.rename(old)
    new.rename(live)
    fd = os.open(live.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    shutil.rmtree(old, ignore_errors=True)


def remove_leftovers(live: Path) -> None:
    """Folders of rebuilds or swaps a crash left behind."""
    for stale in live.parent.glob(f"{live.name}.new-*"):
        shutil.rmtree(stale, ignore_errors=True)
    for stale in live.parent.glob(f"{live.name}.old-*"):
        shutil.rmtree(stale, ignore_errors=True)


def embedding_order(kind: str, date: str) -> tuple[int, str]:
    """Which sections a vector build embeds first (smaller first): the persona
    files (read at every session start), then whatever is dated, newest first
    (daily notes, records, outputs), then undated notes (topics)."""
    if kind == "persona":
        return (0, "")
    if date:
        # Newest first: each digit complemented, so "2026-11-22" sorts before "2025-...".
        return (1, date.translate(_NEWEST_FIRST))
    return (2, "")


_NEWEST_FIRST = str.maketrans("0123456789", "9876543210")
