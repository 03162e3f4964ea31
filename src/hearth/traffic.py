"""Requests in flight, so that background work steps aside while one is served.

The server fills a new home's vectors on background threads. ONNX Runtime's
products release Python's lock, but the tokenizer and the glue around each
run are Python: while they run, a request thread waits for the lock, a
switch interval at a time, at every point where it gave the lock up (a
socket write, a file read, the event loop's turn). The filler also runs at the
lowest CPU priority, so on a busy machine it may be taken off the core while
it holds the lock, and the request waits until it is scheduled again.

So the server counts the requests it is serving (``serving``, from its outermost
middleware) and a thread marked as giving way (``give_way``: the filler and the
workers it starts) calls ``step_aside`` between steps of a few milliseconds;
while a request is in flight it waits on a condition, holding no lock, until the
request is answered. Only young requests count: a stream that stays open (an
MCP session's events) is in flight for as long as it lives, and would otherwise
stop the fill. Every other thread's ``step_aside`` does nothing, so a search
that embeds its query on its own request thread never waits for itself.

Shared by the server's edge and the embedding engine, it imports nothing of
hearth's.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator

#: A request older than this no longer holds background work back (a stream).
YOUNG_SECONDS = 1.0
#: The longest one ``step_aside`` waits: background work always moves on.
MOST_SECONDS = 1.0

_changed = threading.Condition()
#: When each request in flight arrived (by a number of its own).
_arrived: dict[int, float] = {}
_numbers = itertools.count()
_local = threading.local()


@contextlib.contextmanager
def serving() -> Iterator[None]:
    """Count a request as in flight while the block runs."""
    number = next(_numbers)
    with _changed:
        _arrived[number] = time.monotonic()
    try:
        yield
    finally:
        with _changed:
            del _arrived[number]
            if not _arrived:
                _changed.notify_all()


def in_flight() -> int:
    """How many requests are being served now."""
    with _changed:
        return len(_arrived)


def give_way() -> None:
    """Mark the calling thread as background work that steps aside for requests."""
    _local.gives_way = True


def gives_way() -> bool:
    """Whether the calling thread was marked by ``give_way``."""
    return bool(getattr(_local, "gives_way", False))


def _young(now: float) -> bool:  # under _changed
    return any(now - arrived < YOUNG_SECONDS for arrived in _arrived.values())


def step_aside() -> float:
    """On a thread that gives way: wait while a young request is in flight (at
    most ``MOST_SECONDS``). Returns the seconds waited (0.0 elsewhere)."""
    if not _arrived or not gives_way():
        return 0.0
    started = time.monotonic()
    deadline = started + MOST_SECONDS
    with _changed:
        while True:
            now = time.monotonic()
            if now >= deadline or not _young(now):
                break
            _changed.wait(timeout=min(deadline - now, 0.05))
    return time.monotonic() - started
