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

import functools
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from hearth.domain import layout
from hearth.domain.clock import Clock
from hearth.domain.validation import Bounds
from hearth.errors import IndexUnusable
from hearth.heap import give_back
from hearth.index.live import LiveIndex
from hearth.index.search_index import IndexUpdate
from hearth.index.semantic import Progress
from hearth.reconcile import manifest
from hearth.reconcile.differ import Changes, Differ
from hearth.reconcile.manifest import Manifest
from hearth.reconcile.prepare import MAX_INDEX_BYTES, PARALLEL_FROM, EarlyWorkers
from hearth.reconcile.refresh import ActiveRefresher, AttentionSource
from hearth.reconcile.reports import PassReport
from hearth.reconcile.scan import Listing, scan_tree
from hearth.reconcile.session import ManifestSession
from hearth.store import state as state_files
from hearth.store.ignore import IgnoreRules
from hearth.store.presence import HomePresence
from hearth.store.repository import Repository, git_dir, head_id, parent_ids
from hearth.store.rooted import RootedFiles
from hearth.store.tree_diff import changed_paths

#: A pseudo-path for reconcile requests: a git ref moved (see ``reconcile``).
HEAD_MOVED = ".git/HEAD"
#: A HEAD move touching more markdown files than this is handled by a full pass.
MAX_MOVED_PATHS = 2000


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
        index: LiveIndex | None = None,
    ) -> None:
        self.root = root
        self.files = files
        self.repo = repo
        self.state_dir = state_dir
        self.clock = clock
        #: The index the passes keep (its lifecycle and searching live there).
        self.index = index or LiveIndex(state_dir / state_files.INDEX_DIR, clock=clock)
        # Hits' bodies come from the index while their files are the bytes
        # the manifest knows (``vouched``), else from the files; one grown past
        # what a pass indexes (it parks it) is not read whole by a search.
        self.index.read_from(
            functools.partial(files.read_many, limit=MAX_INDEX_BYTES),
            files.signature,
            self.vouched,
        )
        self.folder = self.index.folder
        self.active = ActiveRefresher(root, files, repo, attention, clock)
        #: What a pass reads, parks, retries or drops (``differ.py``).
        self.differ = Differ(root, files, bounds, IgnoreRules(repo, git_dir(repo)))
        #: The home as this reconciler opened it (``store/presence.py``).
        self.presence = HomePresence(root, git_dir(repo))
        #: The manifest, its lock and what was touched, shared with a write's
        #: index update (``session.py``, ``ahead.py``).
        self.session = ManifestSession(
            self.folder,
            state_dir / state_files.RECONCILE_LOCK,
            self.presence,
            clock,
            lock_timeout,
        )
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
        own_commit: str | None = None,
    ) -> PassReport:
        """A full pass (``paths`` None) or a pass over just ``paths``.

        ``HEAD_MOVED`` among ``paths`` (a ref changed: a commit, checkout or
        pull) adds the markdown files that differ between the HEAD the index
        last saw and the current one; when that is not known or too many
        files differ, the pass becomes a full one.

        ``own_commit``: the commit of a write whose every path is in ``paths``
        (``reconcile_paths``): when it is HEAD and its parent the HEAD the index
        reflects, the pass covers it without comparing the two trees.
        """
        started = time.monotonic()
        wanted = None if paths is None else list(paths)
        with self.session.locked():
            self._progress = progress
            rebuilt = self.open()
            indexed_head = self.session.manifest.indexed_head
            if wanted is not None and HEAD_MOVED in wanted:
                wanted.remove(HEAD_MOVED)
                head = head_id(self.repo)
                if head != indexed_head:
                    moved = self._changed_between(indexed_head, head)
                    wanted = None if moved is None else [*wanted, *moved]
                elif not wanted:
                    return _timed(PassReport(full=False), started)
            echo = wanted == [layout.ACTIVE_PATH] and not rebuilt
            if echo and self.active.is_ours(self.session.manifest):
                # The watcher's echo of hearth's own write of ACTIVE.md: nothing to do,
                # and no pass record to save for it.
                return _timed(PassReport(full=False), started)
            try:
                report = self._pass(
                    None if rebuilt else wanted, rebuilt, refresh_active, own_commit
                )
            except IndexUnusable:
                # The live index cannot take writes (say, debris of a killed
                # process): build a new one aside from the files and swap it in.
                report = self._pass(None, self._rebuild(), refresh_active)
        if report.full:
            give_back()  # a pass over every file: its garbage is the size of the home
        return _timed(report, started)

    def _changed_between(self, old: str | None, new: str | None) -> list[str] | None:
        """Markdown paths that differ between two commits; None when unknown or too many."""
        if old is None or new is None:
            return None
        paths = changed_paths(self.repo, old, new, MAX_MOVED_PATHS)
        return None if paths is None else [p for p in paths if p.endswith(".md")]

    def reconcile_paths(
        self, paths: Iterable[str], *, refresh_active: bool = True, commit: str | None = None
    ) -> PassReport:
        """A pass over ``paths``; ``commit``: the write's commit, which changed
        only those paths (see ``reconcile``'s ``own_commit``)."""
        return self.reconcile(list(paths), refresh_active=refresh_active, own_commit=commit)

    def rebuild(
        self, progress: Progress | None = None, early: EarlyWorkers | None = None
    ) -> PassReport:
        """Build a new index from every file, aside, and swap it in.

        ``progress(done, total)`` is called as files are read (for a terminal);
        ``early``: worker processes started before, to read them with.
        """
        started = time.monotonic()
        with self.session.locked():
            self._progress = progress
            report = self._pass(None, self._rebuild(early))
        give_back()
        return _timed(report, started)

    def vouched(self, path: str) -> bytes | None:
        """The digest of the bytes of the file ``path`` as it is on disk now,
        when the manifest knows them (its row's signature is the file's
        ``lstat``'s, and not racy: what a pass skips the file for); None
        otherwise. A search uses a body stored in the index only when its
        ``file_digest`` is this (``bodies.py``). Called from searches'
        threads: one read of the manifest's row, no lock."""
        sign = self.files.signature(path)
        if sign is None:
            return None
        return self.session.manifest.files.vouched(path, sign[2], sign[4])

    def catch_up(self) -> LiveIndex:
        """The index, made current with what other processes did to it and the
        files (under the reconcile lock): for a process whose own passes do not
        keep it current (the CLI, a hook). The server searches ``index`` as is."""
        with self.session.locked():
            self.open()
        return self.index

    def open(self) -> Changes | None:
        """Make the index and manifest current (the caller holds ``session.locked``);
        what a rebuild did, if one was needed."""
        live = self.index
        session = self.session
        if live.current is not None:
            if session.unchanged():
                # Nobody else saved since our own last pass (a swapped-in rebuild
                # brings a new manifest file), and we reload after our own
                # commits: the open index is current.
                session.reload_pass()
                return None
            session.touch(None)  # another process's pass: which files, unknown
            if not live.swapped_elsewhere():
                loaded = manifest.load(self.folder)
                live.reload()
                if loaded is None or loaded.documents() != live.documents():
                    return self._rebuild()
                session.adopt(loaded)
                return None
        index = live.open()
        if index is None:
            return self._rebuild()
        loaded = manifest.load(self.folder)
        if loaded is None or loaded.documents() != index.documents():
            # Documents no manifest describes (a crash between the index commit and
            # the manifest save) cannot be found and removed one by one.
            index.close()
            return self._rebuild()
        live.adopt(index)
        session.adopt(loaded)
        return None

    def _rebuild(self, early: EarlyWorkers | None = None) -> Changes:
        new_folder, fresh = self.index.build_aside()
        built = Manifest()
        listing = scan_tree(self.root)
        with fresh.update(fresh=True) as batch:
            changes = self._diff(listing, built, None, batch, early)
        changes.scanned, changes.errors = len(listing.files), list(listing.errors)
        built.errors = list(listing.errors)
        built.indexed_head = head_id(self.repo)
        built.last_reconcile = self.session.stamp()
        manifest.save(new_folder, built)
        self.index.swap_in(new_folder, fresh, changes.sections)
        self.session.adopt(built)
        return changes

    def _diff(
        self,
        listing: Listing,
        state: Manifest,
        scope: list[str] | None,
        batch: IndexUpdate,
        early: EarlyWorkers | None = None,
    ) -> Changes:
        return self.differ.diff(
            listing,
            state,
            scope,
            batch,
            self._progress,
            self.parallel_from,
            keep_sections=self.index.semantic is not None,
            early=early,
        )

    def _pass(
        self,
        paths: Iterable[str] | None,
        rebuilt: Changes | None,
        refresh_active: bool = True,
        own_commit: str | None = None,
    ) -> PassReport:
        """Apply the difference for ``paths`` (or everything), or finish a rebuild."""
        live = self.index.current
        assert live is not None
        if paths is not None:
            paths = list(paths)
        # A pass that names ACTIVE.md (a watcher event on it) or looks at everything
        # compares its bytes, not only its identity: an edit within the same
        # mtime tick as hearth's own write keeps inode, size and mtime.
        check_active = paths is None or layout.ACTIVE_PATH in paths
        session = self.session
        state = session.manifest
        head = head_id(self.repo)
        changes = rebuilt
        if changes is not None:
            session.touch(None)
        else:
            listing, scope = self.differ.listing(paths)
            session.touch(scope)
            with live.update() as batch:
                changes = self._diff(listing, state, scope, batch)
            self.index.noted(changes.sections, changes.replaced)
            changes.scanned, changes.errors = len(listing.files), list(listing.errors)
            if paths is None:
                state.errors = list(changes.errors)
                state.indexed_head = head
            elif scope is not None and self.reflects(
                state.indexed_head, head, own_commit, paths, scope
            ):
                state.indexed_head = head
        state.last_reconcile = session.stamp()
        settled = not (changes.indexed or changes.delete or changes.parked or rebuilt)
        active_written = refresh_active and self.active.refresh(state, head, settled, check_active)
        # A rebuild saved its file map beside its new index just before: only the
        # pass record (no changed paths) is left to save.
        changed = () if rebuilt is not None else None if changes.rules_changed else changes.touched
        session.save(changed)
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

    def reflects(
        self,
        old: str | None,
        new: str | None,
        own_commit: str | None,
        paths: list[str] | None,
        scope: list[str],
    ) -> bool:
        """Whether an index that reflected commit ``old`` reflects ``new`` once the
        files of ``scope`` are applied: ``new`` is the write's ``own_commit`` on
        ``old`` changing only ``paths``, or every markdown file the two commits
        differ in lies in ``scope``."""
        return self._own_commit_on(old, new, own_commit, paths, scope) or self._covers_commits(
            old, new, scope
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

    def _own_commit_on(
        self,
        old: str | None,
        new: str | None,
        own_commit: str | None,
        paths: list[str] | None,
        scope: list[str],
    ) -> bool:
        """True when ``new`` is a write's own commit, made on ``old``, whose paths
        (``paths``, all of them) the pass's ``scope`` holds: then the commit
        changed no file the pass did not look at, and the two trees need no
        comparing (``_covers_commits`` walks both, a cost each write pays on
        a large home whose daily notes share one folder; docs/performance.md)."""
        if own_commit is None or new != own_commit or old is None or paths is None:
            return False
        if parent_ids(self.repo, new) != [old]:
            return False
        exact = set(scope)
        return all(path in exact for path in paths)

    def close(self) -> None:
        self.index.close()


def _timed(report: PassReport, started: float) -> PassReport:
    return PassReport(**{**report.__dict__, "seconds": round(time.monotonic() - started, 4)})
