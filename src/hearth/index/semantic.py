"""Semantic ranking kept in step with the index: which passages still need vectors.

Embedding costs tens of milliseconds a section (docs/search.md), so a 10,000-file home
cannot be embedded inside a write or at start-up. The reconciler's passes
only *note* the sections they put in the index (``note``); a rebuilt index
notes all of them, and the first ``fill`` of a process with an index it did
not build lists every section of it. ``fill`` embeds what is noted and not yet
in the store, in small batches, outside the reconcile lock: the server runs it
on a background thread (``VectorFiller``), ``hearth reindex`` in the
foreground with a progress line. Until it is done, searches fuse what is
embedded and say how complete the vectors are.

The vectors are content-addressed (``index/vectors.py``), so a note that
grows by one entry costs one embedding, and a rebuilt index reuses every
vector whose passage text is unchanged.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from hearth import traffic
from hearth.domain.sections import Section
from hearth.embedding import Embedder
from hearth.index.ondisk import VectorCoverage, stored_rows
from hearth.index.schema import digest, passage
from hearth.index.search_index import SearchIndex

if TYPE_CHECKING:
    # numpy comes with the vector store: loaded on first use, not by every
    # CLI command and git hook that builds a reconciler.
    from hearth.index.vectors import VectorStore

#: Passages embedded per call to the model (progress and stop are checked between).
BATCH = 16
#: Below this share of live rows, a full listing rewrites the store without garbage.
COMPACT_BELOW = 0.5
#: The server's filler starts after this long without a new write (``VectorFiller``)...
QUIET_SECONDS = 0.3
#: ...or this long after the first, while writes keep coming.
MAX_DELAY_SECONDS = 2.0
#: The filler thread's niceness: the lowest priority.
LOWEST_PRIORITY = 19

Progress = Callable[[int, int], None]


def _passage_workers(embedder: Embedder) -> int:
    """How many ``passages`` calls the embedder runs at once (1 unless it says)."""
    workers = getattr(embedder, "passage_workers", None)
    return int(workers()) if callable(workers) else 1


class Waiting:
    """Passages noted and not embedded yet, each with the files that hold it.

    A file a pass re-indexes or removes takes its passages with it
    (``forget``): nothing is embedded for text that no file holds any more,
    and the coverage a status reports counts live sections only. A passage
    two files share waits until both let it go. What was embedded is
    dropped from ``texts`` at once; the files' lists are cleared when
    nothing waits any more.
    """

    def __init__(self) -> None:
        #: Passage by digest: what waits.
        self.texts: dict[str, str] = {}
        #: The digests noted for each file since it was last forgotten.
        self._of_path: dict[str, list[str]] = {}
        #: How many of those lists hold each digest.
        self._holders: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.texts)

    def __contains__(self, key: object) -> bool:
        return key in self.texts

    def add(self, key: str, text: str, path: str) -> None:
        self.texts[key] = text
        self._of_path.setdefault(path, []).append(key)
        self._holders[key] = self._holders.get(key, 0) + 1

    def forget(self, paths: Iterable[str]) -> None:
        """The files ``paths`` were re-indexed or removed: what they held waits no more."""
        for path in paths:
            for key in self._of_path.pop(path, ()):
                left = self._holders.get(key, 0) - 1
                if left > 0:
                    self._holders[key] = left
                else:
                    self._holders.pop(key, None)
                    self.texts.pop(key, None)

    def done(self, key: str) -> None:
        """``key`` has a vector now."""
        self.texts.pop(key, None)
        if not self.texts:
            self.clear()

    def clear(self) -> None:
        self.texts.clear()
        self._of_path.clear()
        self._holders.clear()


class SemanticRanking:
    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.folder = folder
        self.embedder = embedder
        self._store: VectorStore | None = None
        self._pending = Waiting()
        self._listed = False
        self._lock = threading.Lock()
        self.wake = threading.Event()

    @property
    def store(self) -> VectorStore:
        if self._store is None:
            from hearth.index.vectors import open_store  # noqa: PLC0415  (see imports)

            self._store = open_store(self.folder, self.embedder.name, self.embedder.dims)
        return self._store

    def note(self, sections: Iterable[Section], replaced: Iterable[str] = ()) -> None:
        """Sections a pass put in the index (cheap: nothing is read or embedded),
        after it re-indexed or removed the files ``replaced``: what those held
        before waits no more.

        Passages the store already holds are not noted: a write re-indexes its
        whole daily note, and counting every entry of it as waiting made the
        coverage a search reports right after a write far too low.
        """
        added = False
        store = self._store  # None until loaded: then the next fill sorts them out
        with self._lock:
            self._pending.forget(replaced)
            for section in sections:
                text = passage(section.heading, section.body)
                if not text:
                    continue
                key = digest(text)
                if store is None or key not in store:
                    self._pending.add(key, text, section.path)
                    added = True
        if added:
            self.wake.set()

    def index_replaced(self, sections: Iterable[Section]) -> None:
        """A rebuilt index: what it holds is exactly ``sections``."""
        with self._lock:
            self._pending.clear()
            self._listed = True
        self.note(sections)

    def index_opened(self) -> None:
        """An index this process did not build: list it on the next fill."""
        with self._lock:
            self._listed = False
        self.wake.set()

    def vectors_arrived(self) -> None:
        """Another machine's vectors were added to the store (a sync): what they
        cover no longer waits, so coverage says so before the next fill."""
        store = self.store
        with self._lock:
            for d in [d for d in self._pending.texts if d in store]:
                self._pending.done(d)

    def fill(
        self,
        index: SearchIndex,
        progress: Progress | None = None,
        stop: threading.Event | None = None,
    ) -> int:
        """Embed every noted passage without a vector; returns how many were embedded.

        A passage whose file a pass re-indexed or removed meanwhile is left out
        of the rounds still to come (``Waiting.forget``); a store whose dead
        rows pass ``1 - COMPACT_BELOW`` of it is listed again and compacted."""
        store = self.store
        store.refresh()
        if self._listed and len(store) * COMPACT_BELOW > index.documents():
            # More rows than twice the sections: most are of text no file holds.
            with self._lock:
                self._listed = False
        if not self._listed:
            live, missing = index.listing(store)
            with self._lock:
                self._pending.clear()
                for key, text, path in missing:
                    self._pending.add(key, text, path)
                self._listed = True
            if live and store.live_share(len(live)) < COMPACT_BELOW:
                from hearth.index.vectors import compacted  # noqa: PLC0415  (see imports)

                self._store = store = compacted(store, live)
            del live, missing
        with self._lock:
            todo = [(d, t) for d, t in self._pending.texts.items() if d not in store]
            for d in [d for d in self._pending.texts if d in store]:
                self._pending.done(d)
        chunks = [todo[start : start + BATCH] for start in range(0, len(todo), BATCH)]
        workers = min(_passage_workers(self.embedder), len(chunks)) if chunks else 1
        done = dropped = 0
        # ``workers`` chunks are embedded at once (one per core with ONNX
        # Runtime), then stored in order by this thread; ``stop`` is checked
        # between rounds. Threads made here inherit this thread's priority, and
        # give way to requests as it does (``hearth.traffic``).
        marked = traffic.give_way if traffic.gives_way() else None
        with ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="hearth-embed", initializer=marked
        ) as pool:
            for start in range(0, len(chunks), workers):
                if stop is not None and stop.is_set():
                    break
                with self._lock:
                    asked = chunks[start : start + workers]
                    round_ = [
                        kept
                        for chunk in asked
                        if (kept := [(d, t) for d, t in chunk if d in self._pending])
                    ]
                dropped += sum(map(len, asked)) - sum(map(len, round_))
                texts = [[text for _d, text in chunk] for chunk in round_]
                for chunk, vectors in zip(
                    round_, pool.map(self.embedder.passages, texts), strict=True
                ):
                    traffic.step_aside()
                    store.add([d for d, _t in chunk], vectors)
                    with self._lock:
                        for d, _t in chunk:
                            self._pending.done(d)
                    done += len(chunk)
                    if progress is not None:
                        progress(done + dropped, len(todo))
        return done

    def coverage(self, index: SearchIndex) -> VectorCoverage:
        sections = index.documents()
        with self._lock:
            waiting = len(self._pending) if self._listed else None
        if waiting is None:
            # Before the first listing, the store's size is the best estimate
            # (read from the file: a status need not load every vector).
            stored = len(self._store) if self._store is not None else stored_rows(self.folder)
            embedded = min(stored, sections)
        else:
            embedded = sections - waiting
        embedded = max(0, embedded)
        return VectorCoverage(self.embedder.name, embedded, sections)


class VectorFiller:
    """The server's background thread that keeps vectors filled; ``fill(stop,
    progress)`` embeds what is missing, telling ``progress(done, total)``.

    It gives way to requests. A write notes its sections and wakes the
    filler, and what usually comes next is a search for what was written:
    that search embeds its query, and on a machine of two cores the filler
    embedding the new passage at the same time made it (and the write's own
    response) wait for the CPU (write to searchable on the 10,000-file home;
    docs/search.md).
    So the filler runs at the lowest CPU priority (nice 19 on Linux: it gets
    little CPU while anything else wants the core), and starts filling only
    once no pass has noted sections for ``quiet`` seconds, or ``at_most``
    seconds after the first wake while writes keep coming.
    """

    def __init__(
        self,
        fill: Callable[[threading.Event, Progress], object],
        wake: threading.Event,
        *,
        quiet: float = QUIET_SECONDS,
        at_most: float = MAX_DELAY_SECONDS,
    ) -> None:
        self._fill = fill
        self._wake = wake
        self._quiet = quiet
        self._at_most = at_most
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.last_error: str | None = None
        #: (sections embedded, sections to embed) of the fill running now.
        self._filling: tuple[int, int] | None = None

    def filling(self) -> dict[str, int] | None:
        """How far the running fill has got (for status), or None when none runs."""
        now = self._filling
        return None if now is None else {"sections_done": now[0], "sections_total": now[1]}

    def _told(self, done: int, total: int) -> None:
        self._filling = (done, total)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="hearth-vectors", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        if sys.platform.startswith("linux"):  # where a thread has a priority of its own
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOWEST_PRIORITY)
        traffic.give_way()  # and steps aside from Python's lock while a request is served
        while not self._stop.is_set():
            self._wake.wait(timeout=30)
            self._wake.clear()
            self._settle()
            if self._stop.is_set():
                return
            try:
                self._fill(self._stop, self._told)
                self.last_error = None
            except Exception as exc:  # kept for status; the next wake retries
                self.last_error = f"filling vectors failed: {exc}"
            finally:
                self._filling = None

    def _settle(self) -> None:
        """Wait until no wake came for ``quiet`` seconds (``at_most`` in all)."""
        until = time.monotonic() + self._at_most
        while not self._stop.is_set():
            left = until - time.monotonic()
            if left <= 0 or not self._wake.wait(timeout=min(self._quiet, left)):
                return
            self._wake.clear()
