"""Giving freed memory back to the system (glibc's ``malloc_trim``).

glibc's allocator keeps what a process frees for reuse rather than returning
it, so a server that once needed much held it for the rest of its life. Used
where a burst of work ends: a pass over the whole home (at 100,000 files the
start-up build left the server 249 MB of anonymous memory; 130 MB with this),
an ONNX Runtime session let go, a background fill of vectors (21 MB of a
hybrid server on the 10,000-file home). It walks the heap, a few
milliseconds, so it runs after such bursts only. Elsewhere than glibc it does
nothing. Shared by every tier, it imports nothing of hearth's.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable


@functools.cache
def _trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    # Imported here: a command that never trims (a settled status) should not
    # pay for ctypes. The process's own symbols hold libc's: no library lookup
    # (``ctypes.util.find_library`` would start a subprocess).
    import ctypes  # noqa: PLC0415

    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return trim


def give_back() -> None:
    """Return the heap's free pages to the system, where the allocator can."""
    trim = _trim()
    if trim is not None:
        trim(0)
