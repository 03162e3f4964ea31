"""The rough scores of a vector search: every row's int8 codes times the query.

``VectorStore.nearest_in`` scores every row from its codes (``vectors.py``)
before it reads any exact row; this is that scan. A block of codes is turned
into floats at a time, into one buffer, then multiplied; a large store is
scanned in two halves at once, the second on a thread of its own (numpy lets
go of Python's lock while it converts and multiplies), every block holding
the same rows as in one pass, so each row's score is the same bits.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

#: Rows of codes turned into floats at a time, into one buffer (768 KB: under
#: the size glibc gives a mapping of its own, so a search does not map and
#: fault in fresh pages for it; ``hearth.heap``).
BLOCK = 512
#: Stores of at least this many rows are scanned in two halves at once: the
#: 10,000-file home's 40,000 rows cost about 4 ms of one core a search
#: (bench/vector_scan.py), and the other core is idle then on a quiet machine
#: (the query's embedding is done, the keyword side too).
SPLIT = 16 * BLOCK


def scanned(codes: npt.NDArray[np.int8], query: Vectors) -> Vectors:
    """``codes @ query`` as float32 (one float per row), without the rows' scales."""
    n = len(codes)
    rough = np.empty(n, dtype=np.float32)
    if n >= SPLIT:
        half = n // 2 // BLOCK * BLOCK
        other = _scanner().submit(_scan, codes, query, rough, half, n)
        try:
            _scan(codes, query, rough, 0, half)
        finally:
            other.result()
    else:
        _scan(codes, query, rough, 0, n)
    return rough


def _scan(
    codes: npt.NDArray[np.int8], query: Vectors, rough: Vectors, start: int, stop: int
) -> None:
    """``rough[start:stop]``, a block of ``BLOCK`` rows at a time."""
    block = np.empty((min(stop - start, BLOCK), codes.shape[1]), dtype=np.float32)
    for at in range(start, stop, BLOCK):
        end = min(stop, at + BLOCK)
        floats = block[: end - at]
        np.copyto(floats, codes[at:end], casting="unsafe")
        np.matmul(floats, query, out=rough[at:end])


_SCANNER: ThreadPoolExecutor | None = None
_SCANNER_LOCK = threading.Lock()


def _scanner() -> ThreadPoolExecutor:
    """The thread that scans the second half of large stores (made on first use)."""
    global _SCANNER  # noqa: PLW0603  (one a process)
    with _SCANNER_LOCK:
        if _SCANNER is None:
            _SCANNER = ThreadPoolExecutor(1, thread_name_prefix="hearth-vector-scan")
        return _SCANNER
