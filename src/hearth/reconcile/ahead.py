"""A write's way to the index: each commit's files indexed before it answers,
and a served write's index update run beside its git commit, not after it.

The write class (``app/writes/home.py``) is handed an ``AfterWrite``
(``app/writes/writer.py``) and tells it of each commit; ``IndexEachWrite``
is the one the composition root hands it. Unserved (a CLI command),
``written`` runs a targeted pass over the commit's paths, ACTIVE.md
included. Served (a reconcile worker given), ``IndexAhead`` indexes the
files from their planned bytes while git commits them: the store calls
``planned`` as soon as it has a plan, then exactly one of ``written`` or
``abandoned``; ACTIVE.md is left to the worker's next pass.

A write returns once it is committed and searchable. Its index update is
mostly Tantivy's commit (a string of fdatasyncs), and git's commit is mostly
CPU under the GIL; one after the other, they were the whole write
(docs/performance.md, "Figures behind the code's comments"). Tantivy
waits on the disk with the GIL released, so the two can overlap: as soon as
the store has planned the write (``GitStore.commit``'s ``planned``: the bytes
each changed path will hold), a thread indexes those bytes while the store
builds the tree, commits and writes the files; the write joins it before it
answers. The file on disk will hold exactly the planned bytes, so the index
gets what an ordinary pass would read from it.

Order, and why a crash or a failure leaves the index in step:

- ``begin`` (the writing thread, inside the store's commit, as soon as the
  plan is made: before the work tree is checked and the tree built): takes
  the reconcile lock (kept until ``landed`` or ``abandoned``), makes the
  index current, and gives each planned path an *unknown* manifest entry (a
  digest no content has, an mtime no file has), journaled before the index
  can hold the planned bytes. Whatever happens after (the process killed at
  any point), the next pass that sees those entries reads the files as they
  are. The journal is not fsynced, as for any pass (``manifest.py``): a
  record the machine's crash lost is caught only when the document counts
  disagree at the next load.
- the thread: sections the planned bytes and commits them to the index. It
  touches no pygit2 object (libgit2's objects are not shared between
  threads) and no file of the home.
- ``landed`` (the commit stands and its files are written): joins the
  thread, gives each entry the planned digest and the signature of the file
  now on disk, marks the index as reflecting HEAD when the write's own
  commit is HEAD on the HEAD it reflected (``Reconciler.reflects``),
  saves the manifest, lets the lock go.
- ``abandoned`` (no commit: it failed and the store put the files back, a
  file was refused as dirty, or it changed nothing): joins the thread and
  lets the lock go; the caller then runs an ordinary pass over the paths it
  gives, whose unknown entries make it read the files as they are: the
  index is back in step before the write's error is answered.

Whatever this path does not take (a rebuild when the index is opened, a path
that is not a plain markdown file, an ignored or parked one, a failure on
the thread) it leaves to the ordinary pass after the commit (``landed`` says
False). The reconciler's companion: it works on the reconciler's manifest
session (``session.py``: the lock, the manifest and its signature, what was
touched) and index through their public methods, as its passes do.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hearth.domain import layout
from hearth.domain.sections import Section
from hearth.errors import HearthError, NotPlain
from hearth.reconcile.differ import RACY_WINDOW_COARSE_NS, RACY_WINDOW_NS
from hearth.reconcile.manifest import FileEntry
from hearth.reconcile.prepare import MAX_INDEX_BYTES, Outcome, read_file
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.scan import Listing, is_candidate
from hearth.reconcile.worker import ReconcileWorker
from hearth.store.git import Planned
from hearth.store.repository import head_id

#: The digest of an entry whose content is not known (no blake2b digest of
#: 16 bytes is all zeros in practice): any pass reads its file again.
UNKNOWN_DIGEST = bytes(16)
#: ... and its mtime, which no file has.
UNKNOWN_MTIME = -1
#: Seconds ``begin`` waits for the reconcile lock, the store's write lock held:
#: another process's pass (a ``hearth reindex``) may hold it long, and the
#: ordinary pass after the commit waits for it as it always did.
LOCK_WAIT = 0.05


@dataclass
class _Run:
    """One plan's index update on its thread."""

    files: dict[str, bytes | None]
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    error: BaseException | None = None
    thread: threading.Thread | None = None

    def join(self) -> None:
        if self.thread is not None:
            self.thread.join()


class IndexAhead:
    """Indexes a write's planned files beside its commit (see the module's text).
    One write at a time (the caller holds the home's owner lock)."""

    def __init__(self, reconciler: Reconciler) -> None:
        self._reconciler = reconciler
        self._held: contextlib.ExitStack | None = None
        self._run: _Run | None = None
        #: Paths given unknown entries by this write: an ordinary pass reads them.
        self._marked: set[str] = set()
        #: This write is left to the ordinary pass after the commit.
        self._declined = False

    def begin(self, files: Sequence[tuple[str, bytes | None]]) -> None:
        """The store planned ``files``: start indexing them (again when the
        store planned anew on a moved branch). Never raises: what it cannot
        do is left to the ordinary pass after the commit."""
        if self._run is not None:
            self._run.join()
            self._run = None
        if self._declined:
            return
        try:
            if self._held is None and not self._take():
                self._declined = True
                return
            wanted = dict(files)
            if not self._takes(wanted):
                self._declined = True
                return
            self._mark(wanted)
        except Exception:  # never the write's failure: the ordinary pass says what went wrong
            self._declined = True
            return
        run = _Run(wanted)
        run.thread = threading.Thread(
            target=self.index_planned, args=(run,), name="hearth-index-ahead", daemon=True
        )
        self._run = run
        run.thread.start()

    def landed(self, paths: Sequence[str], commit: str | None) -> bool:
        """The commit of ``paths`` stands: finish the manifest. False when the
        write was not indexed here (nothing begun, declined, the thread failed,
        or other paths): the caller runs the ordinary pass over ``pending``."""
        run = self._run
        try:
            if run is not None:
                run.join()
            if run is None or self._declined or run.error is not None:
                return False
            if set(paths) != set(run.files):
                return False
            return self._finish(run, list(paths), commit)
        finally:
            self._release()

    def abandoned(self) -> None:
        """No commit landed: let everything go (``pending`` says what to pass over)."""
        try:
            if self._run is not None:
                self._run.join()
        finally:
            self._release()

    @property
    def pending(self) -> set[str]:
        """The paths this write marked unknown, for the ordinary pass to read."""
        return set(self._marked)

    def reset(self) -> None:
        """Forget the last write (after its ordinary pass, if it needed one)."""
        self._marked = set()
        self._declined = False
        self._run = None

    # -- the steps -----------------------------------------------------------

    def _take(self) -> bool:
        """Take the reconcile lock (Busy when another process holds it) and make
        the index current; False (the lock let go) when that needed a rebuild
        (read from the files on disk, which do not hold the write yet: the
        ordinary pass will see it)."""
        r = self._reconciler
        held = contextlib.ExitStack()
        held.enter_context(r.session.locked_within(LOCK_WAIT))
        try:
            rebuilt = r.open()
        except BaseException:
            held.close()
            raise
        if rebuilt is not None or r.index.current is None:
            held.close()
            return False
        self._held = held
        return True

    def _release(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.close()

    def _takes(self, files: dict[str, bytes | None]) -> bool:
        """Whether every planned path is one an ordinary pass would simply
        index or drop: a markdown file (or none) in a real folder, not
        ACTIVE.md, not ignored by git, not parked, not too large."""
        r = self._reconciler
        state = r.session.manifest
        listing = Listing()
        for path, data in files.items():
            name = path.rsplit("/", 1)[-1]
            if path == layout.ACTIVE_PATH or not is_candidate(name) or path in state.parked:
                return False
            if data is not None and len(data) > MAX_INDEX_BYTES:
                return False
            if not _real_folders(r.root, path):
                return False
            try:
                mode = os.lstat(r.root / path).st_mode
            except FileNotFoundError:
                mode = None
            if mode is not None and not stat.S_ISREG(mode):
                return False
            listing.files[path] = (0, UNKNOWN_MTIME)
        present, _signature = r.differ.indexable(listing, state, full=False)
        return all(path in present for path in files)

    def _mark(self, files: dict[str, bytes | None]) -> None:
        """Journal an unknown entry for each path before the index changes."""
        session = self._reconciler.session
        state = session.manifest
        for path in files:
            old = state.files.get(path)
            documents = 0 if old is None else old.documents
            failures = () if old is None else old.failures
            unknown = FileEntry(0, UNKNOWN_MTIME, UNKNOWN_DIGEST, documents, True, failures)
            state.put(path, unknown)
            state.retries.pop(path, None)
            self._marked.add(path)
        session.journal(files)

    def index_planned(self, run: _Run) -> None:
        """The thread: the planned bytes' sections into one index commit (a
        method of its own so that a benchmark can time it: bench/write_phases.py)."""
        r = self._reconciler
        live = r.index.current
        try:
            assert live is not None
            with live.update() as batch:
                for path, data in run.files.items():
                    if data is None:
                        batch.delete(path)
                        continue
                    outcome = read_file(_planned(data), path, None, r.differ.bounds)
                    if outcome.kind != "sections":  # not UTF-8: the ordinary pass parks it
                        raise NotPlain(path)
                    run.outcomes[path] = outcome
                    batch.replace(path, list(outcome.sections), outcome.digest)
        except BaseException as exc:  # the ordinary pass takes over
            run.error = exc

    def _finish(self, run: _Run, paths: list[str], commit: str | None) -> bool:
        """The files stand as planned: their entries get the planned digests and
        the signatures of the files on disk (the same as a pass reading them
        now would record), and the index may say it reflects HEAD."""
        r = self._reconciler
        session = r.session
        state = session.manifest
        now = time.time_ns()
        sections: list[Section] = []
        for path, data in run.files.items():
            try:
                st = os.lstat(r.root / path)
            except FileNotFoundError:
                st = None
            if data is None:
                if st is not None:
                    return False
                state.drop(path)
                continue
            outcome = run.outcomes[path]
            if st is None or not stat.S_ISREG(st.st_mode) or st.st_size != outcome.size:
                return False  # not the planned file: the ordinary pass reads it
            mtime = st.st_mtime_ns
            window = RACY_WINDOW_COARSE_NS if mtime % 1_000_000_000 == 0 else RACY_WINDOW_NS
            documents = len(outcome.sections)
            entry = FileEntry(
                outcome.size, mtime, outcome.digest, documents, mtime >= now - window,
                outcome.problems,
            )  # fmt: skip
            state.put(path, entry)
            sections += outcome.sections
        head = head_id(r.repo)
        if r.reflects(state.indexed_head, head, commit, paths, paths):
            state.indexed_head = head
        state.last_reconcile = session.stamp()
        session.save(run.files)
        if r.index.semantic is not None:
            r.index.noted(sections, paths)
        session.touch(paths)
        self._marked.clear()
        return True


class IndexEachWrite:
    """After each commit: index its paths before the write returns (read-your-writes).

    ACTIVE.md is rendered in the same call, or, given the served home's worker,
    by the worker's next pass, so an API write returns as soon as it is
    committed and indexed. A served home indexes a write's files while git
    commits them (``reconcile/ahead.py``), not after.
    """

    def __init__(self, reconciler: Reconciler, worker: ReconcileWorker | None = None) -> None:
        self._reconciler = reconciler
        self._worker = worker
        self._ahead = IndexAhead(reconciler) if worker is not None else None

    def planned(self, files: Planned) -> None:
        if self._ahead is not None:
            self._ahead.begin(files)

    def written(self, paths: tuple[str, ...], commit: str | None = None) -> None:
        # The commit stands whatever happens here: status shows the index as
        # stale (those files' signatures differ) until the next pass repairs it.
        ahead = self._ahead
        indexed = False
        if ahead is not None:
            with contextlib.suppress(HearthError, OSError):
                indexed = ahead.landed(paths, commit)
        if not indexed:
            # The paths of a plan made before the branch moved, too.
            pending = (*paths, *sorted(ahead.pending - set(paths))) if ahead else paths
            with contextlib.suppress(HearthError, OSError):
                self._reconciler.reconcile_paths(
                    pending, refresh_active=self._worker is None, commit=commit
                )
        if ahead is not None:
            ahead.reset()
        if self._worker is not None:
            self._worker.request([])

    def abandoned(self) -> None:
        ahead = self._ahead
        if ahead is None:
            return
        ahead.abandoned()
        # The index may hold what was planned: a pass over those paths reads
        # the files as they are (the store put them back), before the write's
        # error is answered.
        with contextlib.suppress(HearthError, OSError):
            if ahead.pending:
                self._reconciler.reconcile_paths(sorted(ahead.pending), refresh_active=False)
                if self._worker is not None:
                    self._worker.request([])
        ahead.reset()


def _real_folders(root: Path, path: str) -> bool:
    """Whether ``path``'s folders are real ones (no symlink, no file), as far as
    they exist: the store makes the missing ones."""
    current = root
    for part in path.split("/")[:-1]:
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return True
        if not stat.S_ISDIR(mode):
            return False
    return True


def _planned(data: bytes) -> Callable[[str], bytes]:
    """A reader of one file that gives its planned bytes."""

    def read(_path: str) -> bytes:
        return data

    return read
