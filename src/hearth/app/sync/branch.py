"""Syncing a home with its git remote, through the git CLI.

``sync`` fetches, then: nothing when even; fast-forwards when only behind;
pushes when only ahead; merges when diverged, then pushes. Every network
step is the git CLI, so the user's ssh config, credential helpers and
remotes work exactly as they do for ``git pull`` and ``git push``.

Nothing from either side is lost:

- daily notes merge entry by entry (hearth's merge driver, named for them
  in ``.gitattributes`` and passed to ``git merge`` on its command line, so
  it works in a clone whose config lacks it): both machines' entries are
  kept whole under their own headings, in time order;
- any other file changed on both sides (a topic note in ``memory/`` too) is
  never spliced line by line: it keeps the local version in place and
  gets the remote version as a copy, ``continuity/conflicts/<path>--<short
  commit>.md``, in the merge commit; both versions are in history, and the
  copy is listed in status and ACTIVE.md until a person resolves it (edit the
  file, delete the copy, commit);
- incoming changes to a file with uncommitted local edits (staged,
  unstaged, or an untracked file in the way) stop the sync before anything
  is touched, naming the files;
- a push the remote rejects because it moved meanwhile is retried after a
  new fetch, a bounded number of times.

The sync holds hearth's write lock throughout, so no hearth write lands
between the fetch and the merge.

With semantic ranking on, the sync then exchanges vectors on their own ref
(``vector_sync.py``): whatever happens there is reported in the result
(``vectors``) and never fails the sync of the branch.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.app.sync.copies import conflict_copies
from hearth.app.sync.settled import entry_merge, merged_by_entries, settled_apart
from hearth.domain import gitattributes, layout
from hearth.domain.entry_merge import EntryConflict, merge_entry_files, render_record
from hearth.domain.text import counted
from hearth.errors import Conflict, HearthError, NoUpstream, StoreError, SyncBlocked
from hearth.store import state
from hearth.store.lock import write_lock
from hearth.store.plans import Trailers
from hearth.store.remote import Remote
from hearth.store.rooted import RootedFiles

if TYPE_CHECKING:
    from hearth.app.sync.vectors import VectorExchange

PUSH_ATTEMPTS = 5
_TRAILERS = Trailers(op="sync.merge", actor="sync").render()
SYNC_FILE = state.SYNC_RECORD


def _quiet(_what: str) -> None:
    """No one to tell of the steps (a scheduled sync, a script)."""


def _commits(count: int) -> str:
    return counted(count, "commit")


@dataclass
class SyncResult:
    action: str  # up-to-date | fast-forward | pushed | merged
    upstream: str
    ahead: int = 0
    behind: int = 0
    pushed: bool = False
    conflicts: list[str] = field(default_factory=list)
    head: str | None = None
    #: The vectors' exchange (``VectorSyncResult.as_dict``); None with semantic ranking off.
    vectors: dict[str, object] | None = None

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


class Syncer:
    def __init__(
        self,
        root: Path,
        state_dir: Path,
        clock: Callable[[], dt.datetime],
        *,
        lock_timeout: float = 30.0,
        merge_config: dict[str, str] | None = None,
        vectors: VectorExchange | None = None,
    ) -> None:
        self.root = root
        self.remote = Remote(root)
        #: Moves semantic vectors on their own ref after the branch (None: semantic off).
        self.vectors = vectors
        #: git config given to ``git merge`` (hearth's daily-note merge driver).
        self.merge_config = dict(merge_config or {})
        self.state_dir = state_dir
        self.clock = clock
        self.lock_timeout = lock_timeout
        self._last_stamp: tuple[int, int, int] | None = None
        self._last_record: dict[str, object] = {}
        self._attributes_stamp: tuple[int, int, int] | None = None
        self._attributes_notes: list[str] = []

    def upstream(self) -> tuple[str, str, str] | None:
        """(remote, remote branch, tracking ref) of the current branch, or None."""
        found = self.remote.upstream()
        return None if found is None else (found.remote, found.branch, found.tracking)

    # -- status ------------------------------------------------------------------

    def status(self) -> dict[str, object]:
        """Upstream, ahead/behind (as of the last fetch) and the last sync's outcome."""
        found = self.upstream()
        data: dict[str, object] = {"upstream": None, "ahead": 0, "behind": 0}
        if found is not None:
            where = self.remote.divergence(found[2])
            data.update(upstream=found[2], ahead=where.ahead, behind=where.behind)
        last = self._last()
        data["last_result"] = last.get("result")
        data["last_time"] = last.get("time")
        data["last_error"] = last.get("error")
        data["last_vectors"] = last.get("vectors")
        return data

    def attention(self) -> list[str]:
        """What ACTIVE.md's Needs attention should say about syncing."""
        notes = []
        last = self._last()
        if last.get("result") in ("refused", "failed"):
            notes.append(f"last sync {last['result']} at {last.get('time')}: {last.get('error')}")
        return notes + self._attributes()

    def _attributes(self) -> list[str]:
        """What .gitattributes says that the person should hear about
        (``gitattributes.attention``; read again only when the file changed:
        every reconcile pass asks)."""
        path = self.root / ".gitattributes"
        try:
            st = path.stat()
        except OSError:
            self._attributes_stamp, self._attributes_notes = None, []
            return []
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._attributes_stamp:
            try:
                lines = {line.strip() for line in path.read_text(errors="replace").splitlines()}
            except OSError:
                lines = set()
            self._attributes_stamp, self._attributes_notes = stamp, gitattributes.attention(lines)
        return list(self._attributes_notes)

    def _last(self) -> dict[str, object]:
        """The last sync's record; read again only when the file changed (every
        reconcile pass asks, through ACTIVE.md's Needs attention)."""
        path = self.state_dir / SYNC_FILE
        try:
            st = path.stat()
        except OSError:
            return {}
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._last_stamp:
            self._last_stamp, self._last_record = stamp, state.read_record(path)
        return self._last_record

    def conflict_copies(self) -> list[str]:
        return conflict_copies(self.root)

    def _record(
        self, result: str, error: str | None = None, vectors: dict[str, object] | None = None
    ) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        when = self.clock().astimezone(dt.UTC).isoformat(timespec="seconds")
        data = {"result": result, "time": when, "error": error, "vectors": vectors}
        temp = self.state_dir / f".{SYNC_FILE}.tmp"
        temp.write_text(json.dumps(data))
        temp.replace(self.state_dir / SYNC_FILE)

    # -- sync --------------------------------------------------------------------

    def sync(self, step: Callable[[str], None] | None = None) -> SyncResult:
        """Sync with the upstream; ``step(what)`` is told of each network or merge
        step as it starts (for a terminal: a fetch may take a while)."""
        with write_lock(self.state_dir / state.WRITE_LOCK, self.lock_timeout):
            try:
                result = self._sync(step or _quiet)
            except HearthError as exc:
                self._record("refused" if isinstance(exc, Conflict) else "failed", exc.message)
                raise
            self._record(result.action, vectors=result.vectors)
            return result

    def _sync(self, step: Callable[[str], None]) -> SyncResult:
        found = self.upstream()
        if found is None:
            raise NoUpstream(self._no_upstream_advice())
        remote, remote_branch, tracking = found
        if self.remote.operation_in_progress():
            raise Conflict(
                "a merge, rebase or cherry-pick is in progress; finish or abort it first"
            )
        result = SyncResult("up-to-date", tracking)
        for attempt in range(PUSH_ATTEMPTS):
            step(f"fetching {remote}")
            self.remote.git("fetch", "--quiet", remote)
            where = self.remote.divergence(tracking)
            if attempt == 0:
                result.ahead, result.behind = where.ahead, where.behind
            if where.behind:
                self._refuse_over_dirty(where.base, where.theirs)
                if where.ahead == 0:
                    step(f"fast-forwarding to {tracking} ({_commits(where.behind)})")
                    self.remote.git("merge", "--ff-only", "--quiet", tracking)
                    if result.action == "up-to-date":
                        result.action = "fast-forward"
                    break
                step(f"merging {tracking} ({_commits(where.behind)})")
                result.conflicts += self._merge(tracking)
                result.action = "merged"
            elif where.ahead == 0:
                break
            step(f"pushing to {remote}")
            push = self.remote.git(
                "push", "--quiet", remote, f"HEAD:refs/heads/{remote_branch}", check=False
            )
            if push.returncode == 0:
                result.pushed = True
                if result.action == "up-to-date":
                    result.action = "pushed"
                break
            stderr = push.stderr.decode(errors="replace")
            if not any(word in stderr for word in ("rejected", "fetch first", "non-fast-forward")):
                raise StoreError(f"git push failed: {stderr.strip()}")
        else:
            raise Conflict(
                f"the remote kept moving; {PUSH_ATTEMPTS} pushes were rejected. Try again."
            )
        result.head = self.remote.head()
        if self.vectors is not None:
            result.vectors = self.vectors.exchange(remote, step, result.head).as_dict()
        return result

    def _no_upstream_advice(self) -> str:
        """What to run, with this home's branch and remote (or a placeholder)."""
        branch = self.remote.branch() or "main"
        remotes = self.remote.remotes()
        remote = remotes[0] if len(remotes) == 1 else "<remote>"
        if not remotes:
            return (
                f"this branch ({branch}) has no upstream and the home has no remote; add one "
                f"with 'git remote add origin URL', then 'git push -u origin {branch}'"
            )
        return (
            f"this branch ({branch}) has no upstream; set one with "
            f"'git push -u {remote} {branch}' (or 'git branch --set-upstream-to "
            f"{remote}/{branch}' when {remote} already has it)"
        )

    def _refuse_over_dirty(self, base: str | None, theirs: str) -> None:
        dirty = self.remote.dirty_among(base, theirs)
        if layout.ACTIVE_PATH in dirty:
            # A commit put the generated ACTIVE.md on the branch, and hearth wrote
            # it again here: nobody's edit, and neither a commit nor a stash could
            # clear it. git gets the committed copy back so the sync goes on; the
            # file is written again from the home once the sync lands.
            dirty.remove(layout.ACTIVE_PATH)
            self.remote.git("checkout", "--quiet", "HEAD", "--", layout.ACTIVE_PATH, check=False)
        if dirty:
            raise SyncBlocked(
                "incoming changes touch files with uncommitted edits: "
                f"{', '.join(dirty)}; commit or stash them and sync again",
                detail={"paths": dirty},
            )
        held = self.remote.held_among(base, theirs)
        if held:
            locks = ", ".join(f"{path} (its lock: {lock})" for path, lock in held.items())
            raise SyncBlocked(
                f"incoming changes touch files an editor holds with unsaved changes: {locks}; "
                "save and commit your edit, or discard it (in the editor, save or quit), "
                "and sync again",
                detail={"paths": list(held), "editor_locks": held},
            )

    def _merge(self, tracking: str) -> list[str]:
        """Merge ``tracking`` in one commit (``_merge_steps``). A merge that fails
        for any reason is aborted, so no merge is left in progress, and the
        error says why."""
        try:
            return self._merge_steps(tracking)
        except (HearthError, OSError) as exc:
            why = exc.message if isinstance(exc, HearthError) else str(exc)
            if self.remote.operation_in_progress():
                self.remote.git("merge", "--abort", check=False)
            raise StoreError(f"the merge of {tracking} stopped and was undone: {why}") from exc

    def _merge_steps(self, tracking: str) -> list[str]:
        """Entry files entry by entry (both versions of an entry changed two ways
        stay in the file, and a record names them), and any other file changed
        on both sides kept as ours in place and theirs as a copy. Returns the
        copies and records, all written through the rooted file layer."""
        git = self.remote.git
        merged = git(
            "merge", "--no-ff", "--no-commit", tracking,
            check=False, config=self.merge_config,
        )  # fmt: skip
        conflicted = self.remote.conflicted()
        if merged.returncode != 0 and not conflicted:
            git("merge", "--abort", check=False)
            raise StoreError(f"git merge failed: {merged.stderr.decode(errors='replace').strip()}")
        theirs_short = self.remote.text("rev-parse", "--short=7", "MERGE_HEAD")
        ours_short = self.remote.text("rev-parse", "--short=7", "HEAD")
        files = RootedFiles(self.root)
        try:
            copies: list[str] = []
            for path in conflicted:
                copies += self._settle_conflicted(files, path, ours_short, theirs_short)
            records = self._entry_records(files)
        finally:
            files.close()
        lines = [f"sync: merge {tracking}"]
        if copies:
            lines[0] += f" (kept both sides of {counted(len(copies), 'file')})"
            lines.append(
                "Kept one version in place (a file deleted on one side and changed on "
                "the other stays deleted); the other version is at:\n" + _listed(copies)
            )
        if records:
            lines.append(
                "Entries changed two ways; both versions are in the file, named at:\n"
                + _listed(records)
            )
        message = "\n\n".join([*lines, _TRAILERS]) + "\n"
        git("commit", "--no-verify", "--quiet", "-m", message)
        return copies + records

    def _settle_conflicted(
        self, files: RootedFiles, path: str, ours_short: str, theirs_short: str
    ) -> list[str]:
        """Resolve one path git could not merge; returns the copies it kept.

        An entry file whose frame changed two ways keeps every entry of both
        sides in place (ours' frame) and theirs whole as a copy. A file deleted
        on one side and changed on the other stays deleted, and the changed
        version is kept as a copy: the same outcome whichever machine merges.
        Any other file keeps ours in place and theirs as a copy."""
        git = self.remote.git
        base, ours, theirs = (self.remote.stage(path, n) for n in (1, 2, 3))
        if ours is not None and theirs is not None:
            entries_merged = entry_merge(path, base or b"", ours, theirs)
            if entries_merged is not None:
                files.write(path, entries_merged.text.encode("utf-8"))
                git("add", "--", path)
                if not entries_merged.frame_conflict:
                    return []
                return [self._copy(files, path, theirs, theirs_short)]
        kept, other, other_short = ours, theirs, theirs_short
        if base is not None and (ours is None or theirs is None):
            kept, other = None, ours if theirs is None else theirs
            other_short = ours_short if theirs is None else theirs_short
        if kept is not None:
            files.write(path, kept)
            git("add", "--", path)
        else:
            git("rm", "--cached", "--quiet", "--ignore-unmatch", "--", path)
            files.delete(path)
        if other is None:
            return []
        return [self._copy(files, path, other, other_short)]

    def _copy(self, files: RootedFiles, path: str, data: bytes, short: str) -> str:
        copy = f"{layout.CONFLICTS_DIR}/{path}--{short}.md"
        files.write(copy, data)
        self.remote.git("add", "--", copy)
        return copy

    def _entry_records(self, files: RootedFiles) -> list[str]:
        """Records of the entries this merge found changed two ways (both versions
        are in the file), written and staged for the merge commit: the entry
        files both sides changed, merged again from their three versions, and
        a conflict both sides settled, each its own way (``settled_apart``)."""
        base = self.remote.git("merge-base", "HEAD", "MERGE_HEAD", check=False)
        if base.returncode != 0:
            return []
        base_commit = base.stdout.decode().split()[0]
        changed = []
        for side in ("HEAD", "MERGE_HEAD"):
            listed = self.remote.git("diff", "--name-only", "-z", base_commit, side).stdout
            changed.append({p.decode() for p in listed.split(b"\0") if p})
        records: list[str] = []
        for path in sorted(changed[0] & changed[1]):
            if not layout.takes_entries(path):
                continue
            texts = [self._version(rev, path) for rev in (base_commit, "HEAD", "MERGE_HEAD")]
            found = [t for t in texts if t is not None]
            if len(found) < 3 or not merged_by_entries(path, found):
                continue
            for conflict in merge_entry_files(*found).conflicts:
                records += self._write_record(files, path, conflict)
        for path, text, conflict in settled_apart(self._version, base_commit, changed):
            files.write(path, text.encode("utf-8"))
            self.remote.git("add", "--", path)
            records += self._write_record(files, path, conflict)
        return records

    def _write_record(self, files: RootedFiles, path: str, conflict: EntryConflict) -> list[str]:
        record, text = render_record(path, conflict)
        if files.read(record) is not None:
            return []
        files.write(record, text.encode("utf-8"))
        self.remote.git("add", "--", record)
        return [record]

    def _version(self, rev: str, path: str) -> str | None:
        shown = self.remote.git("show", f"{rev}:{path}", check=False)
        if shown.returncode != 0:
            return None
        try:
            return shown.stdout.decode("utf-8")
        except UnicodeDecodeError:
            return None


def _listed(paths: list[str]) -> str:
    return "\n".join(f"  {p}" for p in paths)
