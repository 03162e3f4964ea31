"""Giving freed memory back to the system (glibc's ``malloc_trim``).

glibc's allocator keeps what a process frees for reuse rather than returning
it, so a server that once needed much held it for the rest of its life.
``give_back`` runs where a burst of work ends (a pass over the whole home, an
ONNX Runtime session let go, a fill of vectors) and every
``SEARCHES_PER_GIVE_BACK`` searches (``now_and_then``); it walks the heap, so
not more often. ``let_go_of_files`` drops the pages of mapped files (the
index's, which searches map) from the process's resident memory, every
``SEARCHES_PER_LET_GO`` searches. ``for_long_runs`` sets glibc's allocator up for a process that
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
#: Blocks at least this large get a mapping of their own. Not glibc's 128 KB:
#: Tantivy asks for a 300 KB block several times a search, and a block mapped
#: anew is zeroed anew.
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


#: ``madvise`` advice (Linux): drop the range's pages from the process's page
#: tables; a file's pages stay in the page cache and fault in again when read.
MADV_DONTNEED = 4


def let_go_of_files(folder: str) -> int:
    """Unmap from this process the resident pages of the read-only mappings of
    files under ``folder`` (``/proc/self/maps``); returns how many mappings.

    Tantivy maps its index's files, and every page a search reads stays in
    the process's resident memory (VmRSS, RssFile) for the life of the
    mapping: after a few hundred searches most of the index. The pages are the
    file's, clean, and stay in the page cache: the next read of one maps it
    again (a minor fault), with the same bytes. A writable mapping could hold
    changes of its own and is never touched. Elsewhere than Linux: 0."""
    madvise = _libc_function("madvise")
    if madvise is None:
        return 0
    import ctypes  # noqa: PLC0415  (loaded already by _libc_function)
    import os  # noqa: PLC0415

    prefix = os.path.realpath(folder) + "/"
    done = 0
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                fields = line.split(maxsplit=5)
                if len(fields) < 6 or "w" in fields[1] or not fields[5].startswith(prefix):
                    continue
                start, _, end = fields[0].partition("-")
                low, high = int(start, 16), int(end, 16)
                madvise(ctypes.c_void_p(low), ctypes.c_size_t(high - low), MADV_DONTNEED)
                done += 1
    except OSError:
        return done
    return done


#: A search frees what it used in among what stays, where glibc keeps it; a
#: trim costs about 0.4 ms, and each makes the next searches fault pages in.
SEARCHES_PER_GIVE_BACK = 64
#: Searches between two ``let_go_of_files`` of the index: a search maps the
#: pages of the postings and stored fields it reads, so what is resident
#: between two grows with this; each time, the next searches fault the pages
#: they read in again (docs/performance.md, "The index's pages").
SEARCHES_PER_LET_GO = 32


def now_and_then(every: int, action: Callable[[], object] | None = None) -> Callable[[], None]:
    """A call that runs ``action`` (by default ``give_back``) on every
    ``every``-th call. Threads may share it: ``next`` on an
    ``itertools.count`` holds the GIL throughout."""
    calls = itertools.count(1)

    def tick() -> None:
        if next(calls) % every == 0:
            if action is None:
                give_back()
            else:
                action()

    return tick
