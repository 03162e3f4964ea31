"""The reconciler: keeps the search index and ACTIVE.md in step with the files.

Level, not edge. Nothing that triggers a pass (a watcher event, a git hook,
an API write, the scheduler, start-up) says *what* changed; it only says that
something may have. A pass therefore compares the files on disk with the
manifest of what it last applied:

1. list the candidate markdown files with ``lstat`` only (``scan.py``);
2. a file whose size and mtime match its manifest entry is taken as is; any
   other file is read and hashed, and re-indexed only if its hash moved;
3. manifest paths no longer listed lose their documents;
4. every change of the pass goes to Tantivy in one commit, then the manifest
   is saved, then ACTIVE.md is rendered and written if its bytes changed.

So missed, doubled or reordered events cannot leave the index wrong: the next
pass sees the files as they are. A *targeted* pass does the same for a few
paths (the files of a write, a watcher batch); a folder among them is scanned
as a whole, which is how a renamed or removed folder drops its documents.

What the pass cannot take is classified, never swallowed: a file that
vanished between listing and reading is simply gone for this pass; a symlink,
FIFO, oversized or non-UTF-8 file is *parked* at once with its reason (it is
not going to get better until it changes); a read that fails for another
reason (permission, I/O) is retried on later passes and parked after
``PARK_AFTER`` failures. A parked file is tried again as soon as its size or
mtime changes. Listing errors (a folder that may not be entered) are kept for
status and ACTIVE.md's Needs attention.

Passes of all processes of one home are serialized by an ``flock`` on
``.git/hearth/reconcile.lock``, so the CLI and a running server can share
one index: each reloads the manifest and reopens the index when another
process has changed them.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from hearth.domain import layout
from hearth.domain.sections import Section
from hearth.domain.validation import Bounds
from hearth.errors import HearthError, IndexUnusable
from hearth.index.hybrid import SearchResult, VectorCoverage
from hearth.index.query import Hit
from hearth.index.search_index import (
    IndexUpdate,
    SearchIndex,
    aside,
    read_generation,
    remove_leftovers,
    swap_in,
)
from hearth.reconcile import manifest
from hearth.reconcile import refresh as active
from hearth.reconcile.manifest import FileEntry, Manifest, ParkedFile
from hearth.reconcile.prepare import PARALLEL_FROM, Outcome, outcomes
from hearth.reconcile.reports import IndexStatus, PassReport
from hearth.reconcile.scan import Listing, Signature, is_inside, scan_tree, stat_paths
from hearth.reconcile.semantic import Progress, SemanticRanking
from hearth.store import state as state_files
from hearth.store.history import PersonaHistory, changed_paths
from hearth.store.ignore import IgnoreRules
from hearth.store.lock import write_lock
from hearth.store.repository import GitError, Repository, git_dir, head_id
from hearth.store.rooted import RootedFiles

#: Failed reads of one file before it is parked.
PARK_AFTER = 3
#: A file changed this recently before it was read may change again within the
#: same mtime tick, unseen: it is hashed again on the next pass (git calls this
#: "racy"). Linux stamps mtimes from a coarse clock (one tick, 1 to 10 ms); file
#: systems with whole-second mtimes (FAT, ext3, some network mounts) get 2 s.
RACY_WINDOW_NS = 100_000_000
RACY_WINDOW_COARSE_NS = 2_000_000_000

Clock = Callable[[], dt.datetime]

#: A pseudo-path for reconcile requests: a git ref moved (see ``reconcile``).
HEAD_MOVED = ".git/HEAD"
#: A HEAD move touching more markdown files than this is handled by a full pass.
MAX_MOVED_PATHS = 2000


@dataclass
class _Changes:
    """What a pass changes; index updates stream into ``batch`` as they are found."""

    batch: IndexUpdate
    indexed: int = 0
    delete: set[str] = field(default_factory=set)
    hashed: int = 0
    parked: int = 0
    scanned: int = 0
    errors: list[str] = field(default_factory=list)
    #: Paths whose manifest entries may have changed (journaled after the pass).
    touched: set[str] = field(default_factory=set)
    #: The ignore rules changed: the whole manifest is saved anew.
    rules_changed: bool = False
    #: Sections put in the index (for semantic ranking to embed).
    sections: list[Section] = field(default_factory=list)

    def remove(self, path: str) -> None:
        self.touched.add(path)
        self.delete.add(path)
        self.batch.delete(path)

    def put(self, path: str, sections: list[Section]) -> None:
        self.touched.add(path)
        self.indexed += 1
        self.batch.replace(path, sections)
        self.sections += sections


class AttentionSource(Protocol):
    """Something outside the files that ACTIVE.md's Needs attention reports
    (sync, reflection runs, a served home's jobs and recovery)."""

    def attention(self) -> list[str]: ...


class Reconciler:
    def __init__(
        self,
        root: Path,
        files: RootedFiles,
        repo: Repository,
        state_dir: Path,
        bounds: Bounds,
        clock: Clock,
        *,
        attention: Sequence[AttentionSource] = (),
        lock_timeout: float = 60.0,
        semantic: SemanticRanking | None = None,
    ) -> None:
        self.root = root
        self.files = files
        self.repo = repo
        self.state_dir = state_dir
        self.bounds = bounds
        self.clock = clock
        self.attention = attention
        self.lock_timeout = lock_timeout
        #: Vectors for hybrid ranking; None when semantic ranking is off.
        self.semantic = semantic
        self.folder = state_dir / state_files.INDEX_DIR
        self._index: SearchIndex | None = None
        self._manifest = Manifest()
        self._manifest_sig: tuple[object, ...] | None = None
        self._ignore = IgnoreRules(repo, git_dir(repo))
        self._active_key: tuple[object, ...] | None = None
        self._history = PersonaHistory()
        #: Told of the files read by the current pass (``rebuild``, ``reconcile``).
        self._progress: Progress | None = None
        #: Files to read from which a pass reads them in worker processes.
        self.parallel_from = PARALLEL_FROM

    # -- passes --------------------------------------------------------------

    def reconcile(
        self,
        paths: Iterable[str] | None = None,
        *,
        refresh_active: bool = True,
        progress: Progress | None = None,
    ) -> PassReport:
        """A full pass (``paths`` None) or a pass over just ``paths``.

        ``HEAD_MOVED`` among ``paths`` (a ref changed: a commit, checkout or
        pull) adds the markdown files that differ between the HEAD the index
        last saw and the current one; when that is not known or too many
        files differ, the pass becomes a full one.
        """
        started = time.monotonic()
        wanted = None if paths is None else list(paths)
        with write_lock(self.state_dir / state_files.RECONCILE_LOCK, self.lock_timeout):
            self._progress = progress
            rebuilt = self._open()
            if wanted is not None and HEAD_MOVED in wanted:
                wanted.remove(HEAD_MOVED)
                head = head_id(self.repo)
                if head != self._manifest.indexed_head:
                    moved = self._changed_between(self._manifest.indexed_head, head)
                    wanted = None if moved is None else [*wanted, *moved]
                elif not wanted:
                    return _timed(PassReport(full=False), started)
            if wanted == [layout.ACTIVE_PATH] and not rebuilt and self._active_is_ours():
                # The watcher's echo of hearth's own write of ACTIVE.md: nothing to do,
                # and no pass record to save for it.
                return _timed(PassReport(full=False), started)
            try:
                report = self._pass(None if rebuilt else wanted, rebuilt, refresh_active)
            except IndexUnusable:
                # The live index cannot take writes (say, debris of a killed
                # process): build a new one aside from the files and swap it in.
                report = self._pass(None, self._rebuild(), refresh_active)
        return _timed(report, started)

    def _changed_between(self, old: str | None, new: str | None) -> list[str] | None:
        """Markdown paths that differ between two commits; None when unknown or too many."""
        if old is None or new is None:
            return None
        paths = changed_paths(self.repo, old, new, MAX_MOVED_PATHS)
        return None if paths is None else [p for p in paths if p.endswith(".md")]

    def reconcile_paths(self, paths: Iterable[str], *, refresh_active: bool = True) -> PassReport:
        return self.reconcile(list(paths), refresh_active=refresh_active)

    def rebuild(self, progress: Progress | None = None) -> PassReport:
        """Build a new index from every file, aside, and swap it in.

        ``progress(done, total)`` is called as files are read (for a terminal).
        """
        started = time.monotonic()
        with write_lock(self.state_dir / state_files.RECONCILE_LOCK, self.lock_timeout):
            self._progress = progress
            report = self._pass(None, self._rebuild())
        return _timed(report, started)

    def _open(self) -> _Changes | None:
        """Make the index and manifest current; what a rebuild did, if one was needed."""
        if self._index is not None:
            sig = manifest.signature(self.folder)
            if sig == self._manifest_sig:
                # Nobody else saved since our own last pass (a swapped-in rebuild
                # brings a new manifest file), and we reload after our own
                # commits: the open index is current.
                manifest.load_pass(self.folder, self._manifest)
                return None
            if read_generation(self.folder) == self._index.generation:
                loaded = manifest.load(self.folder)
                self._index.refresh()
                if loaded is None or loaded.documents() != self._index.documents():
                    return self._rebuild()
                self._manifest, self._manifest_sig = loaded, sig
                if self.semantic is not None:
                    self.semantic.index_opened()
                return None
        remove_leftovers(self.folder)
        try:
            index = SearchIndex(self.folder)
        except IndexUnusable:
            return self._rebuild()
        loaded = manifest.load(self.folder)
        if loaded is None or loaded.documents() != index.documents():
            # Documents no manifest describes (a crash between the index commit and
            # the manifest save) cannot be found and removed one by one.
            index.close()
            return self._rebuild()
        self._index, self._manifest = index, loaded
        self._manifest_sig = manifest.signature(self.folder)
        if self.semantic is not None:
            self.semantic.index_opened()
        return None

    def _rebuild(self) -> _Changes:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        new_folder = aside(self.folder)
        fresh = SearchIndex.create(new_folder)
        built = Manifest()
        listing = scan_tree(self.root)
        with fresh.update(fresh=True) as batch:
            changes = self._diff(listing, built, None, batch)
        changes.scanned, changes.errors = len(listing.files), list(listing.errors)
        built.errors = list(listing.errors)
        built.indexed_head = head_id(self.repo)
        built.last_reconcile = self._now()
        manifest.save(new_folder, built)
        fresh.close()
        swap_in(new_folder, self.folder)
        self._index = SearchIndex(self.folder)
        self._manifest = built
        self._manifest_sig = manifest.signature(self.folder)
        if self.semantic is not None:
            self.semantic.index_replaced(changes.sections)
        return changes

    def _pass(
        self, paths: Iterable[str] | None, rebuilt: _Changes | None, refresh_active: bool = True
    ) -> PassReport:
        """Apply the difference for ``paths`` (or everything), or finish a rebuild."""
        assert self._index is not None
        if paths is not None:
            paths = list(paths)
        # A pass that names ACTIVE.md (a watcher event on it) or looks at everything
        # compares its bytes, not only its identity: an edit within the same
        # mtime tick as hearth's own write keeps inode, size and mtime.
        check_active = paths is None or layout.ACTIVE_PATH in paths
        state = self._manifest
        head = head_id(self.repo)
        changes = rebuilt
        if changes is None:
            listing, scope = self._listing(paths)
            with self._index.update() as batch:
                changes = self._diff(listing, state, scope, batch)
            if self.semantic is not None:
                self.semantic.note(changes.sections)
            changes.scanned, changes.errors = len(listing.files), list(listing.errors)
            if paths is None:
                state.errors = list(changes.errors)
                state.indexed_head = head
            elif scope is not None and self._covers_commits(state.indexed_head, head, scope):
                state.indexed_head = head
        state.last_reconcile = self._now()
        settled = not (changes.indexed or changes.delete or changes.parked or rebuilt)
        active_written = refresh_active and self._refresh_active(head, settled, check_active)
        manifest.save(self.folder, state, None if changes.rules_changed else changes.touched)
        self._manifest_sig = manifest.signature(self.folder)
        return PassReport(
            full=paths is None,
            scanned=changes.scanned,
            hashed=changes.hashed,
            indexed=changes.indexed,
            removed=len(changes.delete),
            parked=changes.parked,
            errors=tuple(changes.errors),
            rebuilt=rebuilt is not None,
            active_written=active_written,
        )

    def _covers_commits(self, old: str | None, new: str | None, scope: list[str]) -> bool:
        """True when every markdown file that differs between commits ``old`` and
        ``new`` lies in ``scope``: then a targeted pass saw all of them (a write's
        own commit, a person's commit), and the index may say it reflects ``new``."""
        if old == new:
            return True
        moved = self._changed_between(old, new)
        if moved is None:
            return False
        exact = set(scope)
        folders = tuple(s for s in scope if s.endswith("/"))
        return all(path in exact or path.startswith(folders) for path in moved)

    def _listing(self, paths: Iterable[str] | None) -> tuple[Listing, list[str] | None]:
        """The files to compare, and the scope they cover (None: the whole home)."""
        if paths is None:
            return scan_tree(self.root), None
        scope: list[str] = []
        singles: list[str] = []
        listing = Listing()
        for path in dict.fromkeys(paths):
            if path == layout.ACTIVE_PATH:
                continue  # hearth's own output: the refresh after the pass looks at it
            if not is_inside(self.root, path):
                # Gone, or reached through a symlink: whatever was indexed under it goes.
                scope += [path, path + "/"]
                continue
            if (self.root / path).is_dir():
                sub = scan_tree(self.root, path)
                listing.files.update(sub.files)
                listing.refused.update(sub.refused)
                listing.errors += sub.errors
                scope.append(path + "/")
            else:
                singles.append(path)
                scope.append(path)
        single = stat_paths(self.root, singles)
        listing.files.update(single.files)
        listing.refused.update(single.refused)
        listing.errors += single.errors
        return listing, scope

    def _indexable(self, listing: Listing, state: Manifest, full: bool) -> tuple[set[str], str]:
        """Listed paths git does not ignore, and the ignore signature they were judged by."""
        signature = state.ignore_signature
        if full:
            signature = self._ignore.signature(listing.ignore_files)
        listed = [*listing.files, *listing.refused]
        if signature == state.ignore_signature:
            # Rules unchanged: what is indexed or parked was judged already.
            listed = [p for p in listed if p not in state.files and p not in state.parked]
        ignored = self._ignore.ignored(listed, signature)
        return {p for p in [*listing.files, *listing.refused] if p not in ignored}, signature

    def _diff(
        self, listing: Listing, state: Manifest, scope: list[str] | None, batch: IndexUpdate
    ) -> _Changes:
        """Compare ``listing`` with ``state``, read what moved, and update ``state``.

        The index changes go to ``batch`` as they are found, so Tantivy's threads
        index while the next files are read.
        """
        changes = _Changes(batch)
        before = state.ignore_signature
        present, state.ignore_signature = self._indexable(listing, state, scope is None)
        changes.rules_changed = before != state.ignore_signature
        if scope is None:
            known = [*state.files, *state.parked]
        else:
            known = [p for p in scope if p in state.files or p in state.parked]
            folders = tuple(s for s in scope if s.endswith("/"))
            if folders:
                known += [p for p in [*state.files, *state.parked] if p.startswith(folders)]
        for path in known:
            if path not in present:
                changes.touched.add(path)
                if state.files.pop(path, None) is not None:
                    changes.remove(path)
                state.parked.pop(path, None)
                state.retries.pop(path, None)
        for path, (signature, reason) in listing.refused.items():
            if path in present:
                self._park(state, changes, path, signature, reason)
        to_read = []
        for path in sorted(p for p in present if p in listing.files):
            signature = listing.files[path]
            entry = state.files.get(path)
            if entry is not None and entry.matches(*signature):
                continue
            parked = state.parked.get(path)
            if parked is not None and (parked.size, parked.mtime_ns) == signature:
                continue
            to_read.append((path, signature))
        batch.expect(len(to_read))
        pass_start = time.time_ns()
        progress, total = self._progress, len(to_read)
        digests = {p: e.digest for p, _sig in to_read if (e := state.files.get(p)) is not None}
        found = outcomes(self.files, self.bounds, to_read, digests, self.parallel_from)
        for done, (outcome, signature) in enumerate(found, start=1):
            if state.parked.pop(outcome.path, None) is not None:
                changes.touched.add(outcome.path)
            self._apply(state, changes, outcome, signature, pass_start)
            if progress is not None:
                progress(done, total)
        return changes

    def _apply(
        self,
        state: Manifest,
        changes: _Changes,
        outcome: Outcome,
        signature: Signature,
        pass_start: int,
    ) -> None:
        path, mtime_ns = outcome.path, signature[1]
        if outcome.kind == "refused":
            self._park(state, changes, path, signature, outcome.reason)
            return
        if outcome.kind == "failed":
            failures = state.retries.get(path, 0) + 1
            state.retries[path] = failures
            changes.touched.add(path)
            reason = f"cannot be read ({outcome.reason})"
            if failures >= PARK_AFTER:
                self._park(state, changes, path, signature, f"{reason}, {failures} times")
            return
        if state.retries.pop(path, None) is not None:
            changes.touched.add(path)
        if outcome.kind == "gone":  # vanished between listing and reading: gone for this pass
            if state.files.pop(path, None) is not None:
                changes.remove(path)
            return
        changes.hashed += 1
        window = RACY_WINDOW_COARSE_NS if mtime_ns % 1_000_000_000 == 0 else RACY_WINDOW_NS
        racy = mtime_ns >= pass_start - window
        entry = state.files.get(path)
        if entry is not None and entry.digest == outcome.digest:
            if (entry.size, entry.mtime_ns, entry.racy) != (outcome.size, mtime_ns, racy):
                entry.size, entry.mtime_ns, entry.racy = outcome.size, mtime_ns, racy
                changes.touched.add(path)
            return
        if outcome.kind == "undecodable":
            self._park(state, changes, path, signature, "not valid UTF-8 text; save it as UTF-8")
            return
        sections = list(outcome.sections)
        changes.put(path, sections)
        state.files[path] = FileEntry(
            outcome.size, mtime_ns, outcome.digest, len(sections), racy, outcome.problems
        )

    @staticmethod
    def _park(
        state: Manifest, changes: _Changes, path: str, signature: Signature, reason: str
    ) -> None:
        changes.touched.add(path)
        if state.files.pop(path, None) is not None:
            changes.remove(path)
        known = state.parked.get(path)
        if known is None or (known.size, known.mtime_ns) != signature or known.reason != reason:
            changes.parked += 1
        state.parked[path] = ParkedFile(signature[0], signature[1], reason)
        state.retries.pop(path, None)

    # -- ACTIVE.md -----------------------------------------------------------

    def _refresh_active(self, head: str | None, settled: bool, check_bytes: bool = False) -> bool:
        """Render and write ACTIVE.md; a failure is recorded, never raised.

        When the pass changed nothing (``settled``) and HEAD, the attention
        list and the file itself are as this process last left them, the
        render would give the same bytes, so it is skipped. With
        ``check_bytes`` the file's bytes must also still be the ones last
        rendered (a small read).
        """
        attention = tuple(note for source in self.attention for note in source.attention())
        key = (
            head,
            attention,
            tuple(self._manifest.errors),
            _identity(self.root / layout.ACTIVE_PATH),
        )
        if (
            settled
            and key == self._active_key
            and self._manifest.active_error is None
            and not (
                check_bytes
                and active.state_on_disk(self.files, self._manifest.active_digest) != "written"
            )
        ):
            return False
        try:
            inputs = active.gather(
                self.files, self.repo, self._manifest, head, attention, self._history
            )
            written, digest = active.write_if_changed(self.files, inputs)
        except (HearthError, OSError, GitError) as exc:
            self._manifest.active_error = f"ACTIVE.md could not be refreshed: {exc}"
            self._active_key = None
            return False
        self._manifest.active_error = None
        self._manifest.active_digest, self._manifest.active_head = digest, head
        self._active_key = (*key[:3], _identity(self.root / layout.ACTIVE_PATH))
        return written

    # -- reading -------------------------------------------------------------

    def search(
        self,
        text: str,
        kind: str | None = None,
        path_prefix: str | None = None,
        limit: int = 10,
        *,
        reopen: bool = True,
    ) -> list[Hit]:
        return self.search_ranked(text, kind, path_prefix, limit, reopen=reopen).hits

    def search_ranked(
        self,
        text: str,
        kind: str | None = None,
        path_prefix: str | None = None,
        limit: int = 10,
        *,
        reopen: bool = True,
    ) -> SearchResult:
        """Search the index (hybrid when semantic ranking is on and vectors exist).

        ``reopen`` first picks up what other processes did to it (under the
        reconcile lock). A long-running process whose own passes keep the index
        current (the server) passes False: it then reads the searcher it has,
        which Tantivy lets threads share, without waiting for a pass; a rebuild
        swaps in a new index object rather than changing this one.
        """
        index = self._index
        if reopen or index is None:
            with write_lock(self.state_dir / state_files.RECONCILE_LOCK, self.lock_timeout):
                self._open()
                index = self._index
        assert index is not None
        if self.semantic is None:
            return SearchResult(index.search(text, kind, path_prefix, limit), "keyword")
        return self.semantic.search(index, text, kind, path_prefix, limit)

    def fill_vectors(
        self, progress: Progress | None = None, stop: threading.Event | None = None
    ) -> int:
        """Embed the sections that have no vector yet (slow: never under the lock)."""
        if self.semantic is None:
            return 0
        index = self._index
        if index is None:
            with write_lock(self.state_dir / state_files.RECONCILE_LOCK, self.lock_timeout):
                self._open()
                index = self._index
        assert index is not None
        return self.semantic.fill(index, progress, stop)

    def vector_coverage(self) -> VectorCoverage | None:
        index = self._index
        if self.semantic is None or index is None:
            return None
        return self.semantic.coverage(index)

    def status(self, listing: Listing | None = None) -> IndexStatus:
        """Compare the files on disk with the manifest by signature, reading nothing
        (``listing``: a ``scan_tree`` of the home taken just before, without the lock)."""
        with write_lock(self.state_dir / state_files.RECONCILE_LOCK, self.lock_timeout):
            self._open()
            assert self._index is not None
            state = self._manifest
            listing = scan_tree(self.root) if listing is None else listing
            present, _signature = self._indexable(listing, state, full=True)
            on_disk = {
                p: sig for p, sig in listing.files.items() if p in present and p not in state.parked
            }
            refused = {p: sig for p, (sig, _) in listing.refused.items() if p in present}
            stale = sum(1 for p, sig in on_disk.items() if not _same(state.files.get(p), sig))
            stale += sum(1 for p in state.files if p not in on_disk)
            stale += sum(1 for p, sig in refused.items() if not _same(state.parked.get(p), sig))
            documents = self._index.documents()
            head = head_id(self.repo)
            return IndexStatus(
                fresh=(
                    stale == 0
                    and documents == state.documents()
                    and head == state.indexed_head
                    and not listing.errors
                ),
                files_on_disk=len(on_disk),
                files_indexed=len(state.files),
                documents=documents,
                stale_files=stale,
                head=head,
                indexed_head=state.indexed_head,
                last_reconcile=state.last_reconcile,
                parked=[
                    {"path": path, "reason": p.reason} for path, p in sorted(state.parked.items())
                ],
                errors=sorted(set(listing.errors) | set(state.errors)),
                active_error=state.active_error,
                active=self._active_state(head),
                vectors=self.vector_coverage(),
            )

    def _active_is_ours(self) -> bool:
        """ACTIVE.md is the file this process last wrote, with the bytes it rendered."""
        return (
            self._active_key is not None
            and self._active_key[3] == _identity(self.root / layout.ACTIVE_PATH)
            and self._manifest.active_error is None
            and active.state_on_disk(self.files, self._manifest.active_digest) == "written"
        )

    def _active_state(self, head: str | None) -> str:
        """How ACTIVE.md on disk compares with what hearth last rendered."""
        state = self._manifest
        if state.active_error is not None:
            return "error"
        on_disk = active.state_on_disk(self.files, state.active_digest)
        if on_disk != "written":
            return on_disk
        return "fresh" if state.active_head == head else "behind"

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
            self._index = None

    def _now(self) -> str:
        return self.clock().astimezone(dt.UTC).isoformat(timespec="seconds")


def _same(entry: FileEntry | ParkedFile | None, signature: Signature) -> bool:
    return entry is not None and (entry.size, entry.mtime_ns) == signature


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def _timed(report: PassReport, started: float) -> PassReport:
    return PassReport(**{**report.__dict__, "seconds": round(time.monotonic() - started, 4)})
