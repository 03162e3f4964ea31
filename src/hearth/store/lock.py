"""hearth's own write lock, and waiting politely for git's locks.

The write lock is an ``flock`` on ``.git/hearth/write.lock``: the kernel
drops it when its holder dies, so a killed hearth never leaves a stale lock.
Each acquisition opens its own descriptor, which makes it exclusive between
threads of one process as well as between processes.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hearth.errors import Busy

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
    path.parent.mkdir(parents=True, exist_ok=True)
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
