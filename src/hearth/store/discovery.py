"""Finding the home that holds a folder, the way git finds the repository.

git walks up from the working folder to the first folder with a ``.git``
directory or file (a linked worktree or a submodule has a file), stopping at
``GIT_CEILING_DIRECTORIES`` and at file-system boundaries; libgit2's
discovery does exactly that. The repository found is a hearth home when its
work tree holds ``hearth.toml`` (every ``hearth init`` writes and commits it).

The plain case (a ``.git`` folder of ours, no ceilings, one file system) is
walked here without libgit2, whose binding costs a command's start-up tens of
milliseconds; every other case (a ``.git`` file, a bare repository, another
owner's repository, ``core.worktree``, a ceiling, a mount point on the way)
is left to libgit2.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from hearth.domain.layout import SETTINGS_PATH

#: What the plain walk answers when libgit2 must decide.
_UNSURE = Path("/nonexistent/hearth-discovery-unsure")


def _plain_walk(start: Path) -> Path | None:
    """The work tree git would find from ``start`` when the case is plain, None when
    there is none, ``_UNSURE`` when libgit2 must decide."""
    try:
        current = Path(os.path.realpath(start))
        device = current.stat().st_dev
    except OSError:
        return _UNSURE
    while True:
        try:
            st = current.stat()
        except OSError:
            return _UNSURE
        if st.st_dev != device:
            return _UNSURE  # a mount point: git stops at file-system boundaries
        if current.name == ".git" or (current / "HEAD").exists():
            return _UNSURE  # inside a git folder, or a bare repository
        try:
            dot_git = os.lstat(current / ".git")
        except FileNotFoundError:
            dot_git = None
        except OSError:
            return _UNSURE
        if dot_git is not None:
            return current if _plain_git_dir(current / ".git", dot_git) else _UNSURE
        if current.parent == current:
            return None
        current = current.parent


def _plain_git_dir(git_dir: Path, st: os.stat_result) -> bool:
    """A ``.git`` folder of this user's, with the work tree beside it."""
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return False
    try:
        config = (git_dir / "config").read_text(errors="replace").lower()
    except OSError:
        return False
    return (
        (git_dir / "HEAD").is_file()
        and (git_dir / "objects").is_dir()
        and "worktree" not in config
        and "bare = true" not in config
    )


def enclosing_work_tree(start: Path, ceilings: str = "") -> Path | None:
    """The work tree of the repository git would find from ``start``, or None."""
    if not ceilings:
        walked = _plain_walk(start)
        if walked is not _UNSURE:
            return walked
    import pygit2  # noqa: PLC0415  (see the module's docstring)

    try:
        found = (
            pygit2.discover_repository(str(start), False, ceilings)
            if ceilings
            else pygit2.discover_repository(str(start))
        )
    except (pygit2.GitError, OSError):
        return None
    if found is None:
        return None
    try:
        repo = pygit2.Repository(found)
    except (pygit2.GitError, OSError):
        return None
    if repo.is_bare or repo.workdir is None:
        return None
    return Path(repo.workdir)


def is_hearth_home(root: Path) -> bool:
    """A git work tree that hearth initialized: its root holds ``hearth.toml``.

    hearth's local state (``.git/hearth/``) is no mark: an older hearth wrote it
    into any repository a command was pointed at."""
    dot_git = root / ".git"
    return (dot_git.is_dir() or dot_git.is_file()) and (root / SETTINGS_PATH).is_file()


def discover_home(start: Path, ceilings: str = "") -> Path | None:
    """The hearth home holding ``start`` (found as git finds its repository), or None."""
    root = enclosing_work_tree(start, ceilings)
    if root is None:
        return None
    root = Path(os.path.normpath(root))
    return root if is_hearth_home(root) else None
