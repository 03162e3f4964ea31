"""Patching the last status snapshot instead of taking a whole one: after
targeted passes only the paths they looked at are listed again (the listing
kept as its differences from the manifest, ``reconcile/listed.py``), and git's
state is read again for them, for the files HEAD's move changed and, when git's
index or HEAD moved, for the paths that differed from HEAD (``snapshot.py``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hearth.reconcile.listed import ListingDelta
from hearth.reconcile.scan import is_inside
from hearth.store import git_cli
from hearth.store.repository import (
    Repository,
    folder_in_head,
    head_id,
    worktree_changes,
)
from hearth.store.tree_diff import changed_paths

#: A snapshot patches the last one when no more than this many paths are to
#: be read again; else it lists the whole tree.
MAX_PATCHED = 1000
#: Paths git's CLI is asked about by name at most; past this, its status of the
#: whole tree. git's cost grows with the number of names (docs/performance.md,
#: "Figures behind the code's comments"; each name is matched against every
#: entry of git's index), of the whole tree 310.
NAMED_PATHS = 50


@dataclass
class TreeRead:
    """What a snapshot read of the work tree and of git, kept to patch the next:
    the listing (as its differences from the manifest), git's state of every
    path that differs from HEAD, and HEAD."""

    listing: ListingDelta
    changes: dict[str, str]
    head: str | None
    #: Made by patching the one before (not by listing everything).
    patched: bool = False
    #: git's index file as it was read (inode, mtime, size): while it and HEAD stay,
    #: only the touched paths' states can have moved.
    index_stamp: tuple[int, int, int] | None = None


def patched_changes(
    root: Path, repo: Repository, last: TreeRead, touched: set[str]
) -> tuple[dict[str, str], str | None, tuple[int, int, int] | None] | None:
    """git's state of ``last``'s paths read again for the paths the passes since
    looked at (``touched``: a folder's files, all of them), for those that
    differed from HEAD and for the files HEAD's move changed, and HEAD; None
    when that cannot be done path by path (too many paths, an unknown commit).
    ``last``'s changed paths are read again only when git's index or HEAD moved.
    git's CLI reads them (``git_cli.changes``: one run reads git's index once,
    in its own process), by name up to NAMED_PATHS paths; past that, or when
    it cannot say, the whole tree's status is read (``whole_changes``)."""
    stamp, head = index_stamp(repo), head_id(repo)  # before the states: a later move shows next
    moved: list[str] = []
    if head != last.head:
        if head is None or last.head is None:
            return None
        found = changed_paths(repo, last.head, head, MAX_PATCHED)
        if found is None:
            return None
        moved = found
    again = {p for p in touched if not p.endswith("/")} | set(moved)
    if head != last.head or stamp is None or stamp != last.index_stamp:
        again |= set(last.changes)
    for folder in (p for p in touched if p.endswith("/")):
        if not (root / folder).is_dir() and folder_in_head(repo, folder[:-1]):
            return None  # a folder git tracked files in is gone: which ones, git's status says
        again.update(_files_under(root, folder))
        if len(again) > MAX_PATCHED:
            return None
    if len(again) > MAX_PATCHED:
        return None
    states = git_cli.changes(root, again) if len(again) <= NAMED_PATHS else None
    if states is None:  # many paths, a path that is a folder now, or no git to ask
        return whole_changes(root, repo), head, stamp
    changes = {p: state for p, state in last.changes.items() if p not in again}
    changes.update(states)
    return changes, head, stamp


def whole_changes(root: Path, repo: Repository) -> dict[str, str]:
    """git's state of every path that differs from HEAD: through git's CLI, which
    leaves Python's lock to the server's other threads, else through libgit2."""
    found = git_cli.changes(root)
    return dict(worktree_changes(repo)) if found is None else found


def index_stamp(repo: Repository) -> tuple[int, int, int] | None:
    try:
        st = (Path(repo.path) / "index").stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _files_under(root: Path, folder: str) -> list[str]:
    """Every file under the home's ``folder`` (``name/``), home-relative (none
    through a symlink)."""
    found: list[str] = []
    if not is_inside(root, folder[:-1]):
        return found
    for top, dirs, names in os.walk(root / folder):
        dirs[:] = [d for d in dirs if d != ".git"]
        rel = os.path.relpath(top, root).replace(os.sep, "/")
        found += [f"{rel}/{name}" for name in names]
    return found
