"""The git store: every hearth write is exactly one commit.

A write is described by a *planner*: a function from a snapshot of HEAD
to a ``Plan`` (the subject line and the file changes). The store

1. takes hearth's write lock;
2. reads HEAD, asks the planner for its plan, and checks every target
   path in the work tree and git's index: a path whose work-tree copy holds
   uncommitted edits is refused (never rewritten: an editor may hold it); a
   change that can be re-applied (a daily-note append) is applied to a
   staged copy that differs, the work tree being clean;
3. builds the new tree from HEAD's tree plus exactly the planned paths
   (never from git's index, so a person's staged work is not swept in);
4. creates the commit with HEAD as its required parent: libgit2 refuses if
   the branch moved, and the store then starts again from the new tip;
5. writes the work-tree files and updates git's index entries for just
   those paths, so ``git status`` stays clean for them.

The commit comes before the work tree on purpose: the compare-and-swap on
the branch decides, and nothing on disk changes for a write that loses.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import FileMode, RepositoryState

from hearth.domain.stale_copy import LOG_ARGS, NO_BLOB, replaced_only_by_hearth
from hearth.errors import (
    Busy,
    Conflict,
    DirtyFile,
    HearthError,
    NotAHome,
    NotFound,
    StoreError,
)
from hearth.store import git_cli, state
from hearth.store.editors import Folders, editor_lock
from hearth.store.git_index import GitIndexFile, index_entry, stat_data
from hearth.store.lock import backoff, write_lock
from hearth.store.plans import CommitResult, Plan, Snapshot, Trailers
from hearth.store.private import private_dir
from hearth.store.recovery import blob_mode, clear_dead_ref_lock, finish_interrupted_write
from hearth.store.repository import worktree_blob_id
from hearth.store.rooted import RootedFiles
from hearth.store.trees import build_tree

FALLBACK_SIGNATURE = ("hearth", "hearth@localhost")
MOVED_TIP_RETRIES = 20
#: Files in one commit above which editors' locks are looked for by listing each
#: folder once (``editors.Folders``): a file costs seventeen looks otherwise.
LISTED_FROM = 16


@dataclass
class _Apply:
    """What step 5 does for one path after the commit landed."""

    path: str
    worktree: bytes | None
    commit_oid: pygit2.Oid | None
    index_oid: pygit2.Oid | None
    mode: FileMode = FileMode.BLOB
    previous: bytes | None = None  # the work-tree bytes before, to undo a failed apply
    #: The work-tree file already holds these bytes (a file adopted by init, say):
    #: rewriting it would cost a temp file, two fsyncs and a rename, for nothing.
    in_place: bool = False
    #: For a file ``in_place``: its stat data when those bytes were read, for git's
    #: index entry (``git_index.stat_data``; None when racy).
    stat: bytes | None = None


#: What libgit2 says when the branch moved under ``create_commit``: its own
#: first-parent check ("current tip is not the first parent"), or the
#: compare-and-swap of the ref update losing to a commit (or a ``pack-refs``
#: of ``git gc --auto``) that landed between its read and its write.
_MOVED = ("not the first parent", "old reference value does not match")
#: ... and when a lock it needs is held: the ref's own ``.lock``, or
#: ``packed-refs.lock`` while git's maintenance rewrites packed refs.
_LOCKED = ("lock", "locked")


def _ref_contention(exc: Exception) -> str | None:
    """``moved`` (plan again on the new tip), ``locked`` (wait and retry the same
    commit) or None (a failure that retrying will not fix)."""
    text = str(exc).lower()
    if any(m in text for m in _MOVED):
        return "moved"
    if any(m in text for m in _LOCKED):
        return "locked"
    return None


#: What a plan will change: each path and the bytes it will hold (None: removed).
Planned = tuple[tuple[str, bytes | None], ...]


def _changed(snap: Snapshot, plan: Plan) -> Planned:
    """The paths whose blob the plan changes, with their new bytes (hashed, not
    yet stored: the work tree is checked after)."""
    changed = []
    for change in plan.changes:
        entry = snap.entry(change.path)
        new = pygit2.hash(change.data) if change.data is not None else None
        if (entry.id if entry is not None else None) != new:
            changed.append((change.path, change.data))
    return tuple(changed)


def _object_folder_gone(exc: Exception) -> bool:
    """libgit2 lost a race with a person's ``git prune`` or ``gc``, which removes an
    empty folder of .git/objects between libgit2 making it and renaming a new
    object into it (seen under tests/torture/test_person_git.py)."""
    text = str(exc).lower()
    return "/objects/" in text and "no such file or directory" in text


class GitStore:
    def __init__(
        self,
        root: Path,
        files: RootedFiles,
        clock: Callable[[], dt.datetime],
        *,
        lock_timeout: float = 10.0,
    ) -> None:
        try:
            self.repo = pygit2.Repository(str(root))
        except pygit2.GitError as exc:
            raise NotAHome(f"{root} is not a git repository; run 'hearth init {root}'") from exc
        if self.repo.is_bare or self.repo.workdir is None:
            raise NotAHome(f"{root} is a bare repository; a home needs a work tree")
        self.root = root
        self.files = files
        self.clock = clock
        self.lock_timeout = lock_timeout
        self.git_dir = Path(self.repo.path)
        self.state_dir = state.state_dir(self.git_dir)
        with contextlib.suppress(OSError):  # a read-only home is still read
            private_dir(self.state_dir)
        self.index_file = GitIndexFile(self.git_dir, self.state_dir)
        #: When the hearth that died holding git's index lock took it, if one did.
        self._dead_since: float | None = None

    # -- reading -----------------------------------------------------------

    def branch_ref(self) -> str:
        head = self.repo.lookup_reference("HEAD")
        target = head.target
        if not isinstance(target, str):
            raise Conflict("HEAD is detached; check out a branch (git switch main) first")
        return target

    def head_commit(self) -> pygit2.Commit | None:
        if self.repo.head_is_unborn:
            return None
        commit = self.repo.head.peel(pygit2.Commit)
        return commit

    def snapshot(self, rev: str | None = None) -> Snapshot:
        if rev is None:
            return Snapshot(self.repo, self.head_commit())
        try:
            commit = self.repo.revparse_single(rev).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise NotFound(f"no revision {rev!r} in this home") from exc
        return Snapshot(self.repo, commit)

    def signature(self) -> pygit2.Signature:
        now = self.clock()
        offset = int((now.utcoffset() or dt.timedelta()).total_seconds() // 60)
        try:
            configured = self.repo.default_signature
            name, email = configured.name, configured.email
        except (KeyError, pygit2.GitError):
            name, email = FALLBACK_SIGNATURE
        return pygit2.Signature(name, email, int(now.timestamp()), offset)

    # -- writing -----------------------------------------------------------

    def commit(
        self,
        planner: Callable[[Snapshot], Plan],
        trailers: Trailers,
        progress: Callable[[int, int], None] | None = None,
        planned: Callable[[Planned], None] | None = None,
    ) -> CommitResult:
        """Run ``planner`` against HEAD and land its plan as one commit;
        ``progress(done, total)`` is told as the plan's files are stored as blobs
        (for a terminal: a first commit can hold a whole folder). ``planned`` is
        told the bytes each changed path will hold (None: removed) as soon as the
        plan is made, before it is checked against the work tree, the tree is
        built and the commit made (again if the branch moved and the plan was
        made anew): the served home indexes them meanwhile (``reconcile/ahead.py``;
        a plan refused after, a dirty file say, is taken out of the index again)."""
        with write_lock(self.state_dir / state.WRITE_LOCK, self.lock_timeout):
            self._recover_locked()
            for _ in range(MOVED_TIP_RETRIES):
                if self.repo.state() != RepositoryState.NONE:
                    raise Conflict(
                        "a merge, rebase or cherry-pick is in progress; finish or abort it first"
                    )
                ref = self.branch_ref()
                snap = Snapshot(self.repo, self.head_commit())
                plan = planner(snap)
                base_tree = snap.tree
                if planned is not None and (changed := _changed(snap, plan)):
                    planned(changed)
                try:
                    applies = self._plan_work_tree(snap, plan, progress)
                    tree_id = self._build_tree(
                        base_tree, {a.path: (a.commit_oid, a.mode) for a in applies}
                    )
                except (OSError, pygit2.GitError) as exc:
                    if _object_folder_gone(exc):
                        continue  # objects are content-addressed: write them again
                    raise
                if base_tree is not None and tree_id == base_tree.id:
                    return CommitResult(snap.head, (), changed=False)
                message = f"{plan.subject}\n\n"
                if plan.body:
                    message += plan.body.rstrip() + "\n\n"
                message += trailers.render() + "\n"
                # git's index.lock is held from before the commit until the index
                # entries are updated: a commit never lands without its index update.
                with self._index_locked():
                    commit_id = self._create_commit(ref, snap, message, tree_id)
                    if commit_id is None:
                        continue  # the branch moved: plan again on the new tip
                    try:
                        self._apply(applies)
                    except (OSError, pygit2.GitError) as exc:
                        self._undo(ref, commit_id, snap, applies)
                        why = getattr(exc, "strerror", None) or str(exc)
                        raise StoreError(
                            f"could not update the work tree or git's index ({why}); "
                            "nothing was committed"
                        ) from exc
                return CommitResult(str(commit_id), tuple(a.path for a in applies))
        raise Busy("the branch kept moving while hearth tried to commit; try again")

    def _undo(self, ref: str, commit_id: pygit2.Oid, snap: Snapshot, applies: list[_Apply]) -> None:
        """Take back a commit whose work-tree update failed (a full disk, say).

        The branch goes back to the old tip only if it still points at our
        commit (a compare-and-swap); the files already replaced get their old
        bytes back, best effort. git's index file was not replaced (that is the
        last step), but the in-memory copy may hold the new entries: drop it.
        """
        self.index_file.forget()
        reference = self.repo.lookup_reference(ref)
        if reference.target == commit_id:
            if snap.commit is None:
                reference.delete()
            else:
                reference.set_target(snap.commit.id, "hearth: undo a write that failed")
        for apply in applies:
            if apply.in_place:
                continue
            try:
                if apply.previous is None:
                    self.files.delete(apply.path)
                else:
                    self.files.write(apply.path, apply.previous)
            except (OSError, HearthError):
                continue

    def recover(self, timeout: float | None = None) -> None:
        """Finish a write a killed hearth left between its commit and its work tree.

        Raises Busy when git's index lock stays held by a running process for
        ``timeout`` seconds (default: the store's lock timeout).
        """
        wait = self.lock_timeout if timeout is None else timeout
        try:
            with write_lock(self.state_dir / state.WRITE_LOCK, wait):
                self._recover_locked(wait)
        except (OSError, pygit2.GitError) as exc:
            raise StoreError(f"could not finish an interrupted write: {exc}") from exc

    def recovery_pending(self) -> bool:
        """True while a killed hearth's write waits to be finished (see ``recover``)."""
        return self.index_file.recovery_pending()

    def index_lock(self) -> dict[str, object] | None:
        """Who holds git's index lock and since when; None when it is free."""
        return self.index_file.held()

    def _recover_locked(self, timeout: float | None = None) -> None:
        if self.index_file.recovery_pending():
            # Under our write lock no other hearth holds git's lock: the record
            # is a dead hearth's. Finish its write before planning on top of it.
            with self._index_locked(timeout):
                pass

    def _create_commit(
        self, ref: str, snap: Snapshot, message: str, tree_id: pygit2.Oid
    ) -> pygit2.Oid | None:
        sig = self.signature()
        parents = [snap.commit.id] if snap.commit is not None else []
        for _ in backoff(self.lock_timeout):
            try:
                landed = self.repo.create_commit(ref, sig, sig, message, tree_id, parents)
                self._dead_since = None
                return landed
            except (pygit2.GitError, OSError) as exc:
                contention = _ref_contention(exc)
                if contention is None:
                    raise StoreError(f"git refused the commit: {exc}") from exc
                if contention == "moved":
                    return None
                if self._dead_since is not None:  # perhaps the dead hearth's ref lock
                    clear_dead_ref_lock(self.git_dir, ref, self._dead_since)
        raise Busy(
            f"the branch {ref} stayed locked (a .lock file in .git/refs, or git's "
            "maintenance rewriting packed-refs); try again"
        )

    def _plan_work_tree(
        self, snap: Snapshot, plan: Plan, progress: Callable[[int, int], None] | None = None
    ) -> list[_Apply]:
        index = self.index_file.current()
        applies: list[_Apply] = []
        dirty: list[str] = []
        held: dict[str, str] = {}
        # A commit of many files looks for editors' locks a folder at a time.
        folders = Folders(self.root) if len(plan.changes) > LISTED_FROM else None
        for done, change in enumerate(plan.changes, start=1):
            if progress is not None:
                progress(done, len(plan.changes))
            head_entry = snap.entry(change.path)
            head_oid = head_entry.id if head_entry is not None else None
            mode = blob_mode(snap.tree, change.path)
            new_oid = self.repo.create_blob(change.data) if change.data is not None else None
            read_at_ns = time.time_ns()
            on_disk, seen = self.files.read_stat(change.path)
            disk_oid = pygit2.hash(on_disk) if on_disk is not None else None
            if on_disk is not None and disk_oid not in (head_oid, new_oid):
                # git may have written it out with CRLF (eol=crlf, core.autocrlf):
                # judged as git judges it, that is no edit of the person's.
                disk_oid = pygit2.Oid(hex=worktree_blob_id(self.repo, change.path, on_disk))
            staged_oid = index[change.path].id if change.path in index else None
            apply = _Apply(change.path, change.data, new_oid, new_oid, mode, on_disk)
            disk_clean = disk_oid in (head_oid, new_oid)
            staged_clean = staged_oid in (head_oid, new_oid) or (
                disk_oid == head_oid and self._lost_to_a_race(change.path, staged_oid)
            )
            if disk_clean and staged_clean:
                # The same bytes as HEAD on disk, but perhaps not in an editor's
                # buffer: its lock says so, and the buffer would be saved over
                # the change as surely as an uncommitted edit.
                lock = (
                    folders.lock(change.path)
                    if folders is not None
                    else editor_lock(self.root, change.path)
                )
                if lock is not None:
                    held[change.path] = lock
                    continue
                if new_oid is not None and disk_oid == new_oid:
                    # Nothing to undo either: no second copy of the file is kept
                    # (init adopting a folder would hold every file twice).
                    apply.in_place, apply.previous = True, None
                    apply.stat = stat_data(seen, read_at_ns)
                applies.append(apply)
                continue
            # A work-tree copy with uncommitted edits is never rewritten, not even to
            # add an entry to it: an editor holding the file would save its buffer
            # over the change (or the change would land inside the person's edit).
            if not disk_clean or change.rebase is None or staged_oid is None:
                dirty.append(change.path)
                continue
            # Only git's index differs (staged, then the work tree put back): the
            # edit is applied to the staged copy too; no editor holds that one.
            staged = self.repo[staged_oid]
            assert isinstance(staged, pygit2.Blob)
            apply.index_oid = self.repo.create_blob(change.rebase(staged.data))
            applies.append(apply)
        if dirty or held:
            raise DirtyFile([*dirty, *held], editors=held)
        return applies

    def _lost_to_a_race(self, path: str, staged_oid: pygit2.Oid | None) -> bool:
        """The staged copy is an older version that only hearth's commits replaced:
        a ``git commit`` that raced an earlier hearth write put it back
        (``domain/stale_copy.py``). It is not the person's: it gets hearth's version.
        No entry at all is such a copy too when hearth's own commit created the file:
        git read the index before that commit."""
        log = git_cli.path_log(self.root, LOG_ARGS, path)
        staged = str(staged_oid) if staged_oid is not None else NO_BLOB
        return log is not None and replaced_only_by_hearth(log, staged)

    def _build_tree(
        self,
        base: pygit2.Tree | None,
        changes: dict[str, tuple[pygit2.Oid | None, FileMode]],
    ) -> pygit2.Oid:
        return build_tree(self.repo, base, changes)[0]

    def _apply(self, applies: Iterable[_Apply]) -> None:
        applies = list(applies)
        for apply in applies:
            if apply.worktree is None:
                self.files.delete(apply.path)
            elif not apply.in_place:
                self.files.write(apply.path, apply.worktree)
        index = self.index_file.current()
        for apply in applies:
            if apply.index_oid is None:
                if apply.path in index:
                    index.remove(apply.path)
            else:
                stat = apply.stat if apply.index_oid == apply.commit_oid else None
                index.add(index_entry(apply.path, apply.index_oid, apply.mode, stat))
        self.index_file.save(index)

    @contextmanager
    def _index_locked(self, timeout: float | None = None) -> Iterator[None]:
        """Hold git's own ``index.lock`` across the commit and the index update
        (``git_index.py``), first finishing a write a dead hearth left."""
        wait = self.lock_timeout if timeout is None else timeout
        with self.index_file.locked(wait) as interrupted:
            if interrupted is not None:
                self._dead_since = interrupted  # kept until a commit of ours lands
                with contextlib.suppress(Conflict):  # a detached HEAD has no ref lock
                    clear_dead_ref_lock(self.git_dir, self.branch_ref(), interrupted)
                finish_interrupted_write(self.repo, self.files, self.index_file)
            yield
