"""The repository's status as the git CLI reports it, for a command that must start
fast: one ``git status --porcelain=v2`` gives the branch, HEAD, the upstream with
ahead/behind, and every changed path, and starting git costs a few milliseconds
where importing libgit2's binding costs tens of them (``hearth status``; see
docs/cli.md, "Start-up").

The answers are the ones ``repository.py`` gives through libgit2 (the tests hold
the two side by side); when git fails or says anything this module does not
recognize, it answers None, and the caller asks libgit2 instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: Seconds the git CLI may take before the caller falls back to libgit2.
GIT_TIMEOUT = 30.0
#: What names a repository or index other than the home's in the environment of
#: a process started by git (a hook): the home's own is wanted here.
_GIT_LOCATORS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
)


def change_state(*, conflicted: bool, untracked: bool, staged: bool, unstaged: bool) -> str:
    """A changed path's state as status shows it (the same words for libgit2's flags)."""
    if conflicted:
        return "conflicted"
    if untracked:
        return "untracked"
    if staged and unstaged:
        return "staged+modified"
    return "staged" if staged else "modified"


@dataclass(frozen=True)
class WorkTreeStatus:
    head: str | None
    #: The branch HEAD names (None when detached).
    branch: str | None
    #: The upstream's short name (``origin/main``), None without one (or when its
    #: tracking ref does not exist yet); ahead/behind of it, as of the last fetch.
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    #: (path, state), sorted by path; ignored files left out.
    changes: list[tuple[str, str]] = field(default_factory=list)


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATORS}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # status must not write git's index
    env["LC_ALL"] = "C"
    return env


def run_git(root: Path, args: list[str], stdin: bytes) -> tuple[int, bytes] | None:
    """``git args`` in ``root`` fed ``stdin``: its exit status and standard output."""
    import subprocess  # noqa: PLC0415  (start-up: status itself spawns git directly)

    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            env=_environment(),
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.returncode, proc.stdout


def path_log(root: Path, args: Iterable[str], path: str) -> str | None:
    """``git ARGS HEAD -- PATH`` in the home at ``root`` (its output), None on failure."""
    done = _spawn_git(root, [*args, "HEAD", "--", path])
    if done is None or done[0] != 0:
        return None
    return done[1].decode("utf-8", "replace")


def _spawn_git(root: Path, args: list[str]) -> tuple[int, bytes] | None:
    """``git args`` in ``root`` with no input: its exit status and standard output;
    None when it cannot start or runs past ``GIT_TIMEOUT``. Started with
    ``posix_spawn``: importing ``subprocess`` costs ``hearth status`` about as
    much as git's own run (docs/cli.md, "Start-up")."""
    import select  # noqa: PLC0415  (a built-in module: free)

    out_r, out_w = os.pipe()  # both close-on-exec; the child gets its copy as fd 1
    try:
        null = os.open(os.devnull, os.O_RDWR | os.O_CLOEXEC)
        try:
            pid = os.posix_spawnp(
                "git",
                ["git", "-C", str(root), *args],
                _environment(),
                file_actions=[
                    (os.POSIX_SPAWN_DUP2, null, 0),
                    (os.POSIX_SPAWN_DUP2, out_w, 1),
                    (os.POSIX_SPAWN_DUP2, null, 2),
                ],
            )
        finally:
            os.close(null)
    except OSError:
        os.close(out_r)
        return None
    finally:
        os.close(out_w)
    chunks: list[bytes] = []
    deadline = time.monotonic() + GIT_TIMEOUT
    poller = select.poll()
    poller.register(out_r, select.POLLIN)
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(left * 1000):
                _stop(pid)
                return None
            chunk = os.read(out_r, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(out_r)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), b"".join(chunks)


def _stop(pid: int) -> None:
    import signal  # noqa: PLC0415  (only when git hangs)

    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


# X (HEAD to index) and Y (index to work tree) of porcelain v2's XY; ``.`` is no change.
# An index typechange (X ``T``) is neither staged nor unstaged for status, as in
# ``repository._state``; an intent-to-add entry (Y ``A``) goes to libgit2.
_STAGED = frozenset("MADR")
_UNSTAGED = frozenset("MDT")
_KNOWN_X = frozenset("MADRT.")
_KNOWN_Y = frozenset("MDT.")


_STATUS = [
    "status",
    "--porcelain=v2",
    "-z",
    "--untracked-files=all",
    "--no-renames",
    "--ignored=no",
]


def status(root: Path) -> WorkTreeStatus | None:
    """HEAD, the branch, its upstream and the changed paths of the work tree at ``root``."""
    done = _spawn_git(root, [*_STATUS, "--branch"])
    if done is None or done[0] != 0:
        return None
    try:
        return _parse(done[1])
    except (ValueError, IndexError):
        return None


def changes(root: Path, paths: Iterable[str] | None = None) -> dict[str, str] | None:
    """The changed paths of the work tree at ``root`` with their states (as
    ``repository.worktree_changes``), or of just ``paths`` (files, taken
    literally); None when git cannot say (or a path names a folder).

    For a served home's status snapshot: git runs in its own process, so the
    server's threads go on meanwhile (libgit2's status holds Python's lock for
    its whole run, and reads git's index for each single path too;
    docs/performance.md), and git limits its look
    for untracked files to the named paths' folders."""
    args = list(_STATUS)
    wanted = None if paths is None else set(paths)
    if wanted is not None:
        if not wanted:
            return {}
        args += ["--", *(f":(literal){p}" for p in sorted(wanted))]
    done = _spawn_git(root, args)
    if done is None or done[0] != 0:
        return None
    try:
        found = _parse(done[1])
    except (ValueError, IndexError):
        return None
    if found is None:
        return None
    listed = dict(found.changes)
    if wanted is not None and not listed.keys() <= wanted:
        return None  # a path names a folder now: which of its files changed, the whole status says
    return listed


def _parse(out: bytes) -> WorkTreeStatus | None:
    head: str | None = None
    branch: str | None = None
    upstream: str | None = None
    ahead_behind: tuple[int, int] | None = None
    # A path deleted from the index but still on disk comes twice (``1 D.`` and
    # ``?``); libgit2 gives it once, with both flags, and calls it untracked.
    changes: dict[str, str] = {}
    for raw in out.split(b"\0"):
        if not raw:
            continue
        line = raw.decode("utf-8", "replace")
        kind = line[0]
        if kind == "#":
            _, key, value = [*line.split(" ", 2), "", ""][:3]
            if key == "branch.oid":
                head = None if value == "(initial)" else value
            elif key == "branch.head":
                branch = None if value == "(detached)" else value
            elif key == "branch.upstream":
                upstream = value
            elif key == "branch.ab":
                plus, minus = value.split(" ")
                ahead_behind = (int(plus.lstrip("+")), int(minus.lstrip("-")))
            continue
        if kind == "?":
            changes[line[2:]] = "untracked"
        elif kind == "u":
            changes[line.split(" ", 10)[10]] = "conflicted"
        elif kind == "1":
            parts = line.split(" ", 8)
            x, y = parts[1][0], parts[1][1]
            if x not in _KNOWN_X or y not in _KNOWN_Y:
                return None
            state = change_state(
                conflicted=False, untracked=False, staged=x in _STAGED, unstaged=y in _UNSTAGED
            )
            changes.setdefault(parts[8], state)
        else:
            return None  # "2" (a rename) cannot come with --no-renames
    if ahead_behind is None:
        upstream = None  # configured, but never fetched: libgit2 finds no upstream either
    ahead, behind = ahead_behind or (0, 0)
    return WorkTreeStatus(head, branch, upstream, ahead, behind, sorted(changes.items()))


def ignored(root: Path, paths: Iterable[str]) -> set[str] | None:
    """Those of ``paths`` that git's ignore rules match, tracked or not (as libgit2's
    ``path_is_ignored`` answers)."""
    wanted = list(paths)
    if not wanted:
        return set()
    done = run_git(
        root,
        ["check-ignore", "--no-index", "-z", "--stdin"],
        stdin=b"".join(p.encode() + b"\0" for p in wanted),
    )
    if done is None or done[0] not in (0, 1):  # 1: none of them is ignored
        return None
    return {p.decode("utf-8", "replace") for p in done[1].split(b"\0") if p}
