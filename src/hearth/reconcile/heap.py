"""Giving freed memory back to the system after a pass over the whole home.

A full pass or a rebuild reads every file: at 100,000 files the server's heap
grew to about 250 MB, and glibc's allocator keeps what was freed for reuse
rather than returning it, so the server held it for the rest of its life.
``malloc_trim(0)`` returns the free pages (measured at 100,000 files: the
server's anonymous memory after a start-up that built the index, 249 -> 130 MB). It
walks the heap, a few milliseconds, so it runs after whole-home passes only.
Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys
from collections.abc import Callable


@functools.cache
def _trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim: Callable[[int], int] = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim


def give_back() -> None:
    """Return the heap's free pages to the system, where the allocator can."""
    trim = _trim()
    if trim is not None:
        trim(0)
