"""hearth's own write lock, and waiting politely for git's locks.

The write lock is an ``flock`` on ``.git/hearth/write.lock``: the kernel
drops it when its holder dies, so a killed hearth never leaves a stale lock.
Each acquisition opens its own descriptor, which makes it exclusive between
threads of one process as well as between processes.

git's ``index.lock`` is a plain file that git creates and removes; a process
killed while holding it leaves it behind. hearth takes it already carrying a
mark (``hearth-lock PID BOOT-ID START-TIME``) so that a lock left by a dead
hearth can be told apart from one a running git holds, and removed. The start
time (from ``/proc/PID/stat``) makes the mark name one process for good: a
zombie, or a live process that got the same id later, is not its owner.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hearth.errors import Busy, HomeGone

#: Seconds between polls while a lock is held by someone else.
POLL_STEPS = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1)


def backoff(timeout: float) -> Iterator[float]:
    """Yield sleeps of growing length until ``timeout`` seconds have passed."""
    deadline = time.monotonic() + timeout
    attempt = 0
    while time.monotonic() < deadline:
        step = POLL_STEPS[min(attempt, len(POLL_STEPS) - 1)]
        yield step
        time.sleep(step)
        attempt += 1


@contextmanager
def write_lock(path: Path, timeout: float) -> Iterator[None]:
    # The lock's folder (``.git/hearth``) is made if missing, but never the
    # git folder above it: a home deleted under a running process stays deleted.
    try:
        path.parent.mkdir(exist_ok=True)
    except FileNotFoundError as exc:
        raise HomeGone(f"{path.parent.parent} is gone; hearth makes nothing in it again") from exc
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        for _ in backoff(timeout):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                continue
        else:
            raise Busy(f"another hearth write held {path} for over {timeout:.0f} s; try again")
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


# -- git's index.lock, taken by hearth with a mark saying who took it ---------


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _process_start(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot), or None when there is
    no such process or it is a zombie (dead, waiting to be reaped).

    Together with the boot id, this names one process for good: a process id
    that was reused since belongs to a process with another start time.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: split after it.
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    return fields[19]


def lock_mark() -> str:
    pid = os.getpid()
    return f"hearth-lock {pid} {_boot_id()} {_process_start(pid) or '-'}\n"


def _mark_owner_alive(fields: list[str]) -> bool:
    """Whether the process a ``hearth-lock PID BOOT START`` mark names still runs.

    A zombie is dead, and so is a live process that merely reuses the id
    (another start time). A mark without a start time (older hearth) falls
    back to asking the kernel whether the id answers.
    """
    try:
        pid = int(fields[1])
    except (IndexError, ValueError):
        return False
    boot = fields[2] if len(fields) > 2 else ""
    if boot != _boot_id():
        return False  # taken before a reboot
    started = _process_start(pid)
    if started is None:
        return False
    if len(fields) > 3 and fields[3] != "-":
        return fields[3] == started
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a live process of another user
    return True


def read_mark(lock: Path) -> list[str] | None:
    """The fields of hearth's mark in a lock file, or None when it holds none."""
    try:
        with lock.open("rb") as handle:
            fields = handle.read(200).decode("ascii", "replace").split()
    except OSError:
        return None
    return fields if len(fields) >= 2 and fields[0] == "hearth-lock" else None


def take_marked(lock: Path) -> bool:
    """Create ``lock`` already holding who took it, or return False if it exists.

    The mark is written to a temp file that is then hard-linked into place
    (``link`` fails when the target exists): the lock never exists without
    its mark, so a killed hearth's lock is always recognisable. git's own
    lock holds index data (or nothing yet), never this mark.
    """
    temp = lock.with_name(f"{lock.name}.hearth-{os.getpid()}-{secrets.token_hex(4)}")
    temp.write_text(lock_mark())
    try:
        os.link(temp, lock)
        return True
    except FileExistsError:
        return False
    finally:
        temp.unlink(missing_ok=True)


def clear_if_orphaned(lock: Path) -> bool:
    """Remove git's index.lock when hearth took it and its process is gone.

    Only a lock that carries hearth's mark, for a process that no longer runs
    (a zombie counts as gone, as does a reused process id, or one from before
    a reboot), is removed; a lock held by git is never touched.
    """
    fields = read_mark(lock)
    if fields is None or _mark_owner_alive(fields):
        return False
    # The owner record in .git/hearth stays, if there is one: the next holder
    # sees it and finishes the dead hearth's write (_finish_interrupted_write).
    lock.unlink(missing_ok=True)
    return True


def held_lock(lock: Path) -> dict[str, object] | None:
    """Who holds ``lock`` and since when, for status; None when it is free.

    A lock with hearth's mark names its process and whether that still runs;
    any other holder is a git command (git writes index data there, no mark).
    """
    try:
        since = lock.stat().st_mtime
    except OSError:
        return None
    fields = read_mark(lock)
    if fields is None:
        holder = "a git command (not hearth)"
        alive = True
    else:
        alive = _mark_owner_alive(fields)
        holder = f"hearth process {fields[1]}" + ("" if alive else " (no longer running)")
    return {
        "path": lock.name,
        "holder": holder,
        "holder_running": alive,
        "since": dt.datetime.fromtimestamp(since, dt.UTC).isoformat(timespec="seconds"),
    }
