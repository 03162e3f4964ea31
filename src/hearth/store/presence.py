"""Whether the home a process opened is still there.

A long-running process (the server, ``hearth watch``) keeps a home open for
hours, and tests and scripts delete homes by the hundred while one runs. A
path is not enough to know the home is the same: ``rm -rf`` followed by a new
``hearth init`` at the same place is another home. So the presence is the
identity (device and inode) of the home's folder and of its git folder when
the process opened them; a pass, a lock or the served process asks it before
making anything under ``.git/hearth/`` again, so nothing is written into a
deleted tree (which would also make ``rm -rf`` fail with "Directory not
empty" and leave a home-shaped corpse that says it is a repository).
"""

from __future__ import annotations

from pathlib import Path

from hearth.errors import HomeGone


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


class HomePresence:
    """The home folder ``root`` and its git folder ``git_dir`` as they are now."""

    def __init__(self, root: Path, git_dir: Path) -> None:
        self.root = root
        self.git_dir = git_dir
        self._root = _identity(root)
        self._git = _identity(git_dir)

    def gone(self) -> bool:
        """True once either folder is removed or replaced by another."""
        return (
            self._root is None
            or _identity(self.root) != self._root
            or _identity(self.git_dir) != self._git
        )

    def check(self) -> None:
        """Raise ``HomeGone`` when the home is gone (see ``gone``)."""
        if self.gone():
            raise HomeGone(
                f"the home {self.root} is gone (deleted or replaced while hearth had it "
                "open); hearth makes nothing in it again"
            )
