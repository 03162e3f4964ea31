"""Keeping a home's files from the machine's other users.

A home holds what an assistant knows about a person, so it is private the way
``~/.ssh`` is: a home hearth makes is 0700, hearth's own folder
(``.git/hearth/``: the index, the tokens, the server's address and key, its
log) is 0700 whatever the folder around it is, and the files hearth writes
there are 0600. Modes are set explicitly, never left to the umask. A folder a
person adopts keeps its mode; :func:`exposure` says when others can enter it
and what fixes that. Imports nothing heavy: the thin client uses it too.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner enters: made 0700 when missing
    (parents as the umask says), tightened to 0700 when others could enter it."""
    if not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir(PRIVATE_DIR, exist_ok=True)
    st = path.lstat()
    if stat.S_ISDIR(st.st_mode) and st.st_mode & 0o077 and st.st_uid == os.geteuid():
        path.chmod(PRIVATE_DIR)  # an older hearth's folder, or one the umask widened
    return path


def write_file(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (mode 0600): a temporary file, fsync, rename."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, PRIVATE_FILE)
    try:
        os.fchmod(fd, PRIVATE_FILE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    temp.replace(path)


def open_log(path: Path) -> int:
    """A descriptor appending to the log at ``path`` (created 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, PRIVATE_FILE)
    os.fchmod(fd, PRIVATE_FILE)
    return fd


def exposure(root: Path) -> tuple[str, str] | None:
    """What other users of this machine can do in the home at ``root`` and the
    command that stops it, or None when only its owner can enter it."""
    try:
        mode = stat.S_IMODE(root.stat().st_mode)
    except OSError:
        return None
    if not mode & 0o055:  # neither read nor enter for group or others
        return None
    return (
        f"other users of this machine can read the home {root} (mode {mode:o}): "
        "it holds what the assistant knows about you, its history and its index",
        f"chmod 700 {shlex.quote(str(root))}",
    )
