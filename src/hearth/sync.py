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
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pygit2
from pygit2.enums import FileStatus, RepositoryState

from hearth.domain import layout
from hearth.errors import Conflict, HearthError, StoreError
from hearth.store.git import Trailers
from hearth.store.history import changed_paths
from hearth.store.lock import write_lock

PUSH_ATTEMPTS = 5
_TRAILERS = Trailers(op="sync.merge", actor="sync").render()
SYNC_FILE = "sync.json"
GIT_TIMEOUT = 300


class NoUpstream(Conflict):
    """The branch tracks no remote branch, so there is nothing to sync with."""

    code = "no_upstream"


class SyncBlocked(Conflict):
    """Incoming changes would touch files with uncommitted local edits."""

    code = "sync_blocked"


@dataclass
class SyncResult:
    action: str  # up-to-date | fast-forward | pushed | merged
    upstream: str
    ahead: int = 0
    behind: int = 0
    pushed: bool = False
    conflicts: list[str] = field(default_factory=list)
    head: str | None = None

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
    ) -> None:
        self.root = root
        #: git config given to ``git merge`` (hearth's daily-note merge driver).
        self.merge_config = dict(merge_config or {})
        self.state_dir = state_dir
        self.clock = clock
        self.lock_timeout = lock_timeout
        self._last_stamp: tuple[int, int, int] | None = None
        self._last_record: dict[str, object] = {}
        self._attributes_stamp: tuple[int, int, int] | None = None
        self._attributes_legacy = False

    # -- git plumbing ------------------------------------------------------------

    def _git(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_MERGE_AUTOEDIT": "no"}
        try:
            proc = subprocess.run(
                ["git", *args],
                cwd=self.root,
                capture_output=True,
                env=env,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StoreError(f"git {args[0]} failed: {exc}") from exc
        if check and proc.returncode != 0:
            raise StoreError(
                f"git {' '.join(args[:2])} failed: {proc.stderr.decode(errors='replace').strip()}"
            )
        return proc

    def _text(self, *args: str) -> str:
        return self._git(*args).stdout.decode().strip()

    def upstream(self) -> tuple[str, str, str] | None:
        """(remote, remote branch, tracking ref) of the current branch, or None.

        Read from the repository's config with libgit2: status asks on every
        call, and three git processes would cost more than the rest of it.
        """
        repo = pygit2.Repository(str(self.root))
        if repo.head_is_unborn or repo.head_is_detached:
            return None
        name = repo.head.shorthand
        branch = repo.branches.local.get(name)
        try:
            upstream = branch.upstream if branch is not None else None
            if upstream is None:
                return None
            remote = str(repo.config[f"branch.{name}.remote"])
            merge = str(repo.config[f"branch.{name}.merge"]).removeprefix("refs/heads/")
        except (KeyError, pygit2.GitError):
            return None
        return remote, merge, upstream.shorthand

    # -- status ------------------------------------------------------------------

    def status(self) -> dict[str, object]:
        """Upstream, ahead/behind (as of the last fetch) and the last sync's outcome."""
        found = self.upstream()
        data: dict[str, object] = {"upstream": None, "ahead": 0, "behind": 0}
        if found is not None:
            repo = pygit2.Repository(str(self.root))
            local = repo.head.target
            remote_ref = repo.lookup_reference_dwim(found[2])
            ahead, behind = repo.ahead_behind(local, remote_ref.target)
            data.update(upstream=found[2], ahead=ahead, behind=behind)
        last = self._last()
        data["last_result"] = last.get("result")
        data["last_time"] = last.get("time")
        data["last_error"] = last.get("error")
        return data

    def attention(self) -> list[str]:
        """What ACTIVE.md's Needs attention should say about syncing."""
        notes = []
        last = self._last()
        if last.get("result") in ("refused", "failed"):
            notes.append(f"last sync {last['result']} at {last.get('time')}: {last.get('error')}")
        if self._legacy_attributes():
            notes.append(
                ".gitattributes still union-merges every file in memory/ (as older hearths "
                "wrote it), which splices topic notes changed on two machines; run "
                "'hearth hooks install' to move to the daily-note merge driver (one commit)"
            )
        return notes

    def _legacy_attributes(self) -> bool:
        """Whether .gitattributes holds the union rule older hearths wrote (read again
        only when the file changed: every reconcile pass asks)."""
        path = self.root / ".gitattributes"
        try:
            st = path.stat()
        except OSError:
            return False
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
        if stamp != self._attributes_stamp:
            try:
                lines = {line.strip() for line in path.read_text(errors="replace").splitlines()}
            except OSError:
                lines = set()
            self._attributes_stamp = stamp
            self._attributes_legacy = layout.LEGACY_GITATTRIBUTES[1] in lines
        return self._attributes_legacy

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
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                data = {}
            self._last_stamp, self._last_record = stamp, data if isinstance(data, dict) else {}
        return self._last_record

    def conflict_copies(self) -> list[str]:
        folder = self.root / layout.CONFLICTS_DIR
        if not folder.is_dir():
            return []
        return sorted(str(p.relative_to(self.root)) for p in folder.rglob("*") if p.is_file())

    def _record(self, result: str, error: str | None = None) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        when = self.clock().astimezone(dt.UTC).isoformat(timespec="seconds")
        data = {"result": result, "time": when, "error": error}
        temp = self.state_dir / f".{SYNC_FILE}.tmp"
        temp.write_text(json.dumps(data))
        temp.replace(self.state_dir / SYNC_FILE)

    # -- sync --------------------------------------------------------------------

    def sync(self) -> SyncResult:
        with write_lock(self.state_dir / "write.lock", self.lock_timeout):
            try:
                result = self._sync()
            except HearthError as exc:
                self._record("refused" if isinstance(exc, Conflict) else "failed", exc.message)
                raise
            self._record(result.action)
            return result

    def _sync(self) -> SyncResult:
        found = self.upstream()
        if found is None:
            raise NoUpstream(
                "this branch has no upstream; set one with 'git push -u <remote> main' "
                "(or 'git branch --set-upstream-to <remote>/main')"
            )
        remote, remote_branch, tracking = found
        repo = pygit2.Repository(str(self.root))
        if repo.state() != RepositoryState.NONE:
            raise Conflict(
                "a merge, rebase or cherry-pick is in progress; finish or abort it first"
            )
        result = SyncResult("up-to-date", tracking)
        for attempt in range(PUSH_ATTEMPTS):
            self._git("fetch", "--quiet", remote)
            repo = pygit2.Repository(str(self.root))
            local = repo.head.target
            theirs = repo.lookup_reference_dwim(tracking).target
            ahead, behind = repo.ahead_behind(local, theirs)
            if attempt == 0:
                result.ahead, result.behind = ahead, behind
            if behind:
                base = repo.merge_base(local, theirs)
                self._refuse_over_dirty(repo, str(base) if base else None, str(theirs))
                if ahead == 0:
                    self._git("merge", "--ff-only", "--quiet", tracking)
                    if result.action == "up-to-date":
                        result.action = "fast-forward"
                    break
                result.conflicts += self._merge(tracking)
                result.action = "merged"
            elif ahead == 0:
                break
            push = self._git(
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
        result.head = str(pygit2.Repository(str(self.root)).head.target)
        return result

    def _refuse_over_dirty(self, repo: pygit2.Repository, base: str | None, theirs: str) -> None:
        paths = changed_paths(repo, base, theirs, 100_000) if base else None
        incoming = set(paths) if paths is not None else None  # None: assume everything
        dirty = []
        for path, flags in repo.status(untracked_files="all").items():
            if flags & FileStatus.IGNORED or flags == FileStatus.CURRENT:
                continue
            if incoming is None or path in incoming:
                dirty.append(path)
        if dirty:
            raise SyncBlocked(
                "incoming changes touch files with uncommitted edits: "
                f"{', '.join(sorted(dirty))}; commit or stash them and sync again",
                detail={"paths": sorted(dirty)},
            )

    def _merge(self, tracking: str) -> list[str]:
        """Merge ``tracking``; conflicts keep ours in place and theirs as a copy."""
        message = f"sync: merge {tracking}\n\n{_TRAILERS}\n"
        settings = [arg for k, v in self.merge_config.items() for arg in ("-c", f"{k}={v}")]
        merged = self._git(
            *settings, "merge", "--no-ff", "--no-edit", "-m", message, tracking, check=False
        )
        if merged.returncode == 0:
            return []
        listed = self._git("diff", "--name-only", "--diff-filter=U", "-z").stdout
        conflicted = [p.decode() for p in listed.split(b"\0") if p]
        if not conflicted:
            self._git("merge", "--abort", check=False)
            raise StoreError(f"git merge failed: {merged.stderr.decode(errors='replace').strip()}")
        short = self._text("rev-parse", "--short=7", "MERGE_HEAD")
        copies = []
        for path in conflicted:
            ours = self._stage(path, 2)
            theirs = self._stage(path, 3)
            target = self.root / path
            if ours is not None:
                target.write_bytes(ours)
                self._git("add", "--", path)
            else:
                self._git("rm", "--cached", "--quiet", "--ignore-unmatch", "--", path)
                target.unlink(missing_ok=True)
            if theirs is not None:
                copy = f"{layout.CONFLICTS_DIR}/{path}--{short}.md"
                (self.root / copy).parent.mkdir(parents=True, exist_ok=True)
                (self.root / copy).write_bytes(theirs)
                self._git("add", "--", copy)
                copies.append(copy)
        body = "Kept the local version; the remote's is at:\n" + "\n".join(f"  {c}" for c in copies)
        self._git(
            "commit",
            "--no-verify",
            "--quiet",
            "-m",
            f"sync: merge {tracking} (kept both sides of {len(conflicted)} files)\n\n"
            f"{body}\n\n{_TRAILERS}\n",
        )
        return copies

    def _stage(self, path: str, stage: int) -> bytes | None:
        proc = self._git("show", f":{stage}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None
