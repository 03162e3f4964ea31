"""Whether an editor holds a file with unsaved changes: its lock beside the file.

hearth never writes under a person's buffer. A file with uncommitted edits is
refused by the commit protocol (``git.py``); a file an editor has open with
changes not saved yet is the same on disk as HEAD, so only the editor's own
lock tells. Each is one look in the file's folder:

- vim (and neovim, and nano, which copies vim's format): a swap file
  ``.NAME.swp`` (``.swo``, ``.swn``... down to ``.swa`` when several exist).
  Its first block says which process wrote it, on which host, and whether
  the buffer is modified (a flag vim writes at once when the buffer changes).
  A swap whose process is gone (on this host) or whose buffer is unmodified
  holds nothing; one that cannot be read as a swap file is taken as held.
- emacs: a lock link ``.#NAME``, a symlink to ``user@host.PID:BOOT``, made when
  the buffer is first modified and removed when it is saved. One whose
  process is gone (on this host) is stale.
"""

from __future__ import annotations

import os
import re
import socket
import stat
from collections.abc import Container
from pathlib import Path

#: vim's swap file suffixes, the first one it tries first.
_SWAP_SUFFIXES = tuple(f".sw{c}" for c in "ponmlkjihgfedcba")
#: Block 0 of a swap file: id ``b0``, then the version, page size, mtime, inode,
#: pid (4 bytes, least significant first), user (40), host (40), file name
#: (900, whose last byte is the "modified" flag).
_PID_AT, _HOST_AT, _NAME_AT, _DIRTY_AT = 24, 68, 108, 1007
_DIRTY = 0x55
_EMACS_OWNER = re.compile(r"@(?P<host>[^@]*)\.(?P<pid>\d+)(?::\d+)?$")


def editor_lock(root: Path, path: str, hidden: Container[str] | None = None) -> str | None:
    """The home-relative path of the lock an editor holds on ``path`` with
    unsaved changes, or None. ``hidden``: the names in ``path``'s folder that
    start with a dot, when the caller listed it (``Folders``): only the locks
    among them are looked at."""
    folder, _sep, name = path.rpartition("/")
    where = root / folder if folder else root
    prefix = f"{folder}/" if folder else ""
    for suffix in _SWAP_SUFFIXES:
        swap = f".{name}{suffix}"
        if (hidden is None or swap in hidden) and _vim_holds(where / swap):
            return prefix + swap
    lock = f".#{name}"
    if (hidden is None or lock in hidden) and _emacs_holds(where / lock):
        return prefix + lock
    return None


class Folders:
    """``editor_lock`` for many files of a few folders (a commit of a whole
    folder, as ``hearth init`` adopting one): each folder is listed once and
    only the locks it holds are opened, instead of seventeen looks a file."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._hidden: dict[str, frozenset[str]] = {}

    def lock(self, path: str) -> str | None:
        folder = path.rpartition("/")[0]
        hidden = self._hidden.get(folder)
        if hidden is None:
            try:
                # Names alone, in one call (no Path made of each entry).
                names = os.listdir(self.root / folder if folder else self.root)  # noqa: PTH208
            except OSError:
                return editor_lock(self.root, path)  # looked at one by one, as ever
            hidden = self._hidden[folder] = frozenset(n for n in names if n[:1] == ".")
        return editor_lock(self.root, path, hidden)


def _vim_holds(swap: Path) -> bool:
    try:
        fd = os.open(swap, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        block = os.read(fd, _DIRTY_AT + 1)
    except OSError:
        return False
    finally:
        os.close(fd)
    if len(block) <= _DIRTY_AT or block[:2] != b"b0":
        return True  # not a swap file hearth can read: an editor may hold it
    if block[_DIRTY_AT] != _DIRTY:
        return False
    pid = int.from_bytes(block[_PID_AT : _PID_AT + 4], "little")
    host = block[_HOST_AT:_NAME_AT].split(b"\0", 1)[0].decode(errors="replace")
    return _alive(host, pid)


def _emacs_holds(lock: Path) -> bool:
    try:
        target = str(lock.readlink())
    except OSError:
        return False
    found = _EMACS_OWNER.search(target)
    if found is None:
        return True
    return _alive(found["host"], int(found["pid"]))


def _alive(host: str, pid: int) -> bool:
    """Whether process ``pid`` of ``host`` may still run (another host's: yes)."""
    ours = socket.gethostname()
    if host and host not in (ours, ours[:39]):  # vim keeps 39 characters of it
        return True
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True
