"""Giving freed memory back to the system (glibc's ``malloc_trim``).

glibc's allocator keeps what a process frees for reuse rather than returning
it, so a server that once needed much held it for the rest of its life. Used
where a burst of work ends: a pass over the whole home (at 100,000 files the
start-up build left the server 249 MB of anonymous memory; 130 MB with this),
an ONNX Runtime session let go, a background fill of vectors (21 MB of a
hybrid server on the 10,000-file home); and every ``SEARCHES_PER_GIVE_BACK``
searches (``now_and_then``). It walks the heap (0.4 ms in a hybrid server
after 340 searches, more after a large pass), so it runs after such bursts
only. Elsewhere than glibc it does nothing. Shared by every tier, it imports
nothing of hearth's.

``for_long_runs`` sets glibc's allocator up for a process that runs for days
(``hearth serve``, ``watch``, ``mcp``): few arenas, and large blocks always in
mappings of their own, which go back to the system when freed.
"""

from __future__ import annotations

import functools
import itertools
import sys
from collections.abc import Callable

#: ``mallopt`` parameters (glibc's malloc.h).
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
#: Blocks at least this large get a mapping of their own. Not glibc's starting
#: value (128 KB): Tantivy's regex tokenizer asks for a 300 KB matcher cache
#: for every text it analyzes, several times a search, and a block mapped
#: anew is a block zeroed anew (10,000 files: keyword search p50 1.6 ms
#: against 2.5 ms with the threshold at 128 KB).
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

    Arenas: glibc gives threads their own and seldom returns what is freed
    in them; with Tantivy's writer threads that grew a server on a
    10,000-file home by about 1.5 MB per write (88 MB to 155 MB over 40
    writes). Two arenas keep it near 96 MB (bench/http_service.py).

    The mapping threshold: glibc raises it to the size of any mapped block
    that is freed (up to 32 MB), so once the manifest's file (10 MB at
    100,000 files) was read, every block below that size came from the
    arenas, and what a write or a status snapshot freed there stayed
    resident until the next ``give_back``: at 100,000 files the server held
    30 to 35 MB more after bench/scale.py's writes than with the threshold
    fixed, which also stops glibc raising it (docs/performance.md).
    """
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


#: A search frees what it used (ONNX Runtime's tensors for the query, Tantivy's
#: collectors and snippets) in among what stays, where glibc keeps it: a hybrid
#: server on the 10,000-file home held 3 to 5 MB of such free pages after 340
#: searches. Handing them back every 64th search costs 0.4 ms once in 64
#: (bench/search_alone.py, three turns beside ffcb0a9's server: hybrid VmRSS
#: 201 MB -> 195 to 197, p50 and p99 unchanged; every 16th search gave the
#: same, every search 194 to 195 MB for 1 ms more on the p50).
SEARCHES_PER_GIVE_BACK = 64


def now_and_then(every: int) -> Callable[[], None]:
    """A call that gives the heap back on every ``every``-th call. Threads may
    share it: ``next`` on an ``itertools.count`` holds the GIL throughout."""
    calls = itertools.count(1)

    def tick() -> None:
        if next(calls) % every == 0:
            give_back()

    return tick
