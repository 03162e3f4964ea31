"""Giving freed memory back to the system (glibc's ``malloc_trim``).

glibc's allocator keeps what a process frees for reuse rather than returning
it, so a server that once needed much held it for the rest of its life.
``give_back`` runs where a burst of work ends (a pass over the whole home, an
ONNX Runtime session let go, a fill of vectors) and every
``SEARCHES_PER_GIVE_BACK`` searches (``now_and_then``); it walks the heap, so
not more often. ``for_long_runs`` sets glibc's allocator up for a process that
runs for days (``hearth serve``, ``watch``, ``mcp``): few arenas, and large
blocks in mappings of their own, which go back to the system when freed.
What each saved is in docs/performance.md ("Giving memory back"). Elsewhere
than glibc it does nothing. Shared by every tier, it imports nothing of
hearth's.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable

#: ``mallopt`` parameters (glibc's malloc.h).
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
#: Blocks at least this large get a mapping of their own. Not glibc's default:
#: Tantivy asks for a block above it several times a search, and a block mapped
#: anew is zeroed anew (docs/performance.md, "Giving memory back").
MMAP_THRESHOLD = 1024 * 1024
#: Arenas: the main one and one for every other thread.
ARENA_MAX = 2


@functools.cache
def _libc_function(name: str) -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    # Imported here: a command that never trims (a settled status) should not
    # pay for ctypes. The process's own symbols hold libc's: no library lookup
    # (``ctypes.util.find_library`` would start a subprocess).
    import ctypes  # noqa: PLC0415

    try:
        function: Callable[..., int] = getattr(ctypes.CDLL(None), name)
    except (OSError, AttributeError):  # not glibc (musl has neither function)
        return None
    return function


def _trim() -> Callable[[int], int] | None:
    return _libc_function("malloc_trim")


def for_long_runs() -> bool:
    """Set the allocator up for a long-running process; False where it cannot be.

    Arenas: glibc gives threads their own and seldom returns what is freed in
    them (Tantivy's writer threads grew a server with every write). The
    mapping threshold: fixed, glibc no longer raises it to the size of the
    largest mapped block freed (the manifest's file), below which what writes
    and status snapshots freed stayed resident."""
    mallopt = _libc_function("mallopt")
    if mallopt is None:
        return False
    # mallopt returns 1 on success.
    arenas = mallopt(M_ARENA_MAX, ARENA_MAX)
    return bool(arenas) and bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


def give_back() -> None:
    """Return the heap's free pages to the system, where the allocator can."""
    trim = _trim()
    if trim is not None:
        trim(0)


#: A search frees what it used in among what stays, where glibc keeps it; a
#: trim takes time, and each makes the next searches fault pages in.
SEARCHES_PER_GIVE_BACK = 64


def now_and_then(every: int) -> Callable[[], None]:
    """A call that gives the heap back on every ``every``-th call. Threads may
    share it: ``next`` on an ``itertools.count`` holds the GIL throughout."""
    calls = itertools.count(1)

    def tick() -> None:
        if next(calls) % every == 0:
            give_back()

    return tick
