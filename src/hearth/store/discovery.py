"""Finding the home that holds a folder, the way git finds the repository.

git walks up from the working folder to the first folder with a ``.git``
directory or file (a linked worktree or a submodule has a file), stopping at
``GIT_CEILING_DIRECTORIES`` and at file-system boundaries; libgit2's
discovery does exactly that. The repository found is a hearth home when its
work tree holds ``hearth.toml`` (every ``hearth init`` writes it) or its git
directory holds hearth's local state (``.git/hearth/``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2

from hearth.domain.layout import SETTINGS_PATH

STATE_DIR_NAME = "hearth"


def enclosing_work_tree(start: Path, ceilings: str = "") -> Path | None:
    """The work tree of the repository git would find from ``start``, or None."""
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
    """A git work tree that hearth initialized."""
    dot_git = root / ".git"
    if not (dot_git.is_dir() or dot_git.is_file()):
        return False
    if (root / SETTINGS_PATH).is_file():
        return True
    try:
        git_dir = Path(pygit2.Repository(str(root)).path)
    except (pygit2.GitError, OSError):
        return False
    return (git_dir / STATE_DIR_NAME).is_dir()


def discover_home(start: Path, ceilings: str = "") -> Path | None:
    """The hearth home holding ``start`` (found as git finds its repository), or None."""
    root = enclosing_work_tree(start, ceilings)
    if root is None:
        return None
    root = Path(os.path.normpath(root))
    return root if is_hearth_home(root) else None
