"""The repository as sync sees it: the git CLI for everything that moves
refs or talks to a remote, libgit2 for cheap reads.

Network steps and merges go through the git CLI so the user's ssh config,
credential helpers, merge drivers and hooks work exactly as for ``git pull``
and ``git push``; it never prompts (``GIT_TERMINAL_PROMPT=0``). Reads that
status asks on every call (the upstream, ahead/behind) use libgit2 on a
fresh repository object, so they see what the CLI just did.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pygit2
from pygit2.enums import FileStatus, RepositoryState

from hearth.errors import StoreError
from hearth.store.editors import editor_lock
from hearth.store.tree_diff import changed_paths

GIT_TIMEOUT = 300
#: Incoming paths looked at before a merge; more means "assume every path".
MAX_INCOMING_PATHS = 100_000


@dataclass(frozen=True)
class Upstream:
    remote: str
    branch: str  # the remote's branch name
    tracking: str  # the local tracking ref, e.g. origin/main


@dataclass(frozen=True)
class Divergence:
    local: str
    theirs: str
    ahead: int
    behind: int
    base: str | None


class Remote:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _repo(self) -> pygit2.Repository:
        return pygit2.Repository(str(self.root))

    # -- the git CLI ---------------------------------------------------------

    def git(
        self, *args: str, check: bool = True, config: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """Run ``git args`` in the home; a failure raises StoreError when ``check``."""
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_MERGE_AUTOEDIT": "no"}
        settings = [arg for k, v in (config or {}).items() for arg in ("-c", f"{k}={v}")]
        try:
            proc = subprocess.run(
                ["git", *settings, *args],
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

    def has_identity(self) -> bool:
        """Whether git can name the person's commits here (``user.name`` and
        ``user.email``, or the variables that stand for them): what a person's
        ``git commit`` needs."""
        return self.git("var", "GIT_COMMITTER_IDENT", check=False).returncode == 0

    def text(self, *args: str) -> str:
        return self.git(*args).stdout.decode().strip()

    def stage(self, path: str, stage: int) -> bytes | None:
        """A conflicted path's version at ``stage`` (2 ours, 3 theirs), or None."""
        proc = self.git("show", f":{stage}:{path}", check=False)
        return proc.stdout if proc.returncode == 0 else None

    def conflicted(self) -> list[str]:
        listed = self.git("diff", "--name-only", "--diff-filter=U", "-z").stdout
        return [p.decode() for p in listed.split(b"\0") if p]

    # -- libgit2 reads -------------------------------------------------------

    def upstream(self) -> Upstream | None:
        """The current branch's upstream, read from the config; None when it has none."""
        repo = self._repo()
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
        return Upstream(remote, merge, upstream.shorthand)

    def divergence(self, tracking: str) -> Divergence:
        """How HEAD and ``tracking`` compare (as of the last fetch)."""
        repo = self._repo()
        local = repo.head.target
        theirs = repo.lookup_reference_dwim(tracking).target
        ahead, behind = repo.ahead_behind(local, theirs)
        base = repo.merge_base(local, theirs) if behind else None
        return Divergence(str(local), str(theirs), ahead, behind, str(base) if base else None)

    def operation_in_progress(self) -> bool:
        """A merge, rebase, cherry-pick or similar that git has not finished."""
        return self._repo().state() != RepositoryState.NONE

    def head(self) -> str:
        return str(self._repo().head.target)

    def branch(self) -> str | None:
        """The current branch's name (also when it has no commit yet), or None when detached."""
        repo = self._repo()
        if repo.head_is_detached:
            return None
        target = repo.references["HEAD"].target
        return str(target).removeprefix("refs/heads/")

    def homes_on_remotes(self, marker: str) -> list[str]:
        """Remote-tracking branches (``origin/main``) whose tree holds ``marker``
        (a home's settings file): what an empty clone of a home's remote can become.
        The remote's HEAD branch first, then ``main``, then by name."""
        repo = self._repo()
        found: list[str] = []
        preferred: set[str] = set()
        for name in repo.references:
            if not name.startswith("refs/remotes/"):
                continue
            ref = repo.references[name]
            if name.endswith("/HEAD"):
                if isinstance(ref.target, str):
                    preferred.add(ref.target.removeprefix("refs/remotes/"))
                continue
            commit = repo.get(ref.target)
            if isinstance(commit, pygit2.Commit) and marker in commit.tree:
                found.append(name.removeprefix("refs/remotes/"))

        def rank(tracking: str) -> tuple[int, int, str]:
            return (tracking not in preferred, tracking.rpartition("/")[2] != "main", tracking)

        return sorted(found, key=rank)

    def unborn(self) -> bool:
        """True when the current branch has no commit yet (an empty clone, a new repo)."""
        return bool(self._repo().head_is_unborn)

    def check_out_tracking(self, tracking: str) -> str:
        """Check out ``tracking`` (``origin/main``) as a local branch of the same name
        that tracks it; returns the branch. For an empty clone: refused by git when a
        file in the work tree is in the way."""
        branch = tracking.partition("/")[2]
        self.git("checkout", "--quiet", "-b", branch, "--track", tracking)
        return branch

    def remotes(self) -> list[str]:
        return sorted(remote.name for remote in self._repo().remotes if remote.name)

    def dirty_among(self, base: str | None, theirs: str) -> list[str]:
        """Paths with uncommitted edits (or untracked files) that the changes from
        ``base`` to ``theirs`` would touch; every dirty path when that is unknown."""
        repo = self._repo()
        paths = changed_paths(repo, base, theirs, MAX_INCOMING_PATHS) if base else None
        incoming = set(paths) if paths is not None else None
        dirty = []
        for path, flags in repo.status(untracked_files="all").items():
            if flags & FileStatus.IGNORED or flags == FileStatus.CURRENT:
                continue
            if incoming is None or path in incoming:
                dirty.append(path)
        return sorted(dirty)

    def held_among(self, base: str | None, theirs: str) -> dict[str, str]:
        """The files the changes from ``base`` to ``theirs`` would touch that an
        editor holds with unsaved changes, each with its editor's lock: as much
        the person's edit as one on disk (the buffer would be saved over what
        came in)."""
        paths = changed_paths(self._repo(), base, theirs, MAX_INCOMING_PATHS) if base else None
        held = {path: editor_lock(self.root, path) for path in paths or ()}
        return {path: lock for path, lock in sorted(held.items()) if lock is not None}
