"""Row numbers of a vector store by passage digest, held compactly.

The store (``vectors.py``) keeps rows; which row holds a digest is asked at
every write (is this passage embedded?) and for every hit a search weighs.
This map answers it without a Python object per row: a dict of hex strings
and a list of them held several times the memory (docs/search.md, "Memory
of a hybrid server").
"""

from __future__ import annotations

import bisect

import numpy as np

from hearth.index.ondisk import KEY_BYTES


class RowsByDigest:
    """Row numbers by digest, compact: the 16-byte digests in one ``bytearray``
    (row order) and a sorted array of their first 8 bytes with each one's row;
    rows added since that array was sorted are in a small dict until there are
    enough of them to sort it again. Among rows of one digest (another process
    may have appended it too) the first is the one found."""

    def __init__(self) -> None:
        self.raw = bytearray()
        # (first 8 bytes sorted, their rows, rows added since), replaced whole;
        # memoryviews of numpy arrays: bisect reads them as Python ints, several
        # times faster than a call into numpy for one digest.
        empty = np.zeros(0, np.uint64).data
        self._index: tuple[memoryview, memoryview, dict[str, int]] = (empty, empty, {})

    def row(self, digest: str) -> int | None:
        heads, rows, recent = self._index
        row = recent.get(digest)
        if row is not None:
            return row
        try:
            key = bytes.fromhex(digest)
        except ValueError:
            return None
        if len(key) != KEY_BYTES:
            return None
        head = int.from_bytes(key[:8], "little")
        at = bisect.bisect_left(heads, head)
        raw = self.raw
        while at < len(heads) and heads[at] == head:
            row = rows[at]
            if raw[row * KEY_BYTES : (row + 1) * KEY_BYTES] == key:
                return row
            at += 1
        return None

    def extend(self, keys: bytes, first: int) -> None:
        """Digests of rows ``first`` on (``first`` is how many are held)."""
        self.raw += keys
        heads, _rows, recent = self._index
        if len(recent) + len(keys) // KEY_BYTES > max(1024, len(heads) // 8):
            self._sort(first + len(keys) // KEY_BYTES)
            return
        for i in range(0, len(keys), KEY_BYTES):
            digest = keys[i : i + KEY_BYTES]
            if self.row(digest.hex()) is None:
                recent[digest.hex()] = first + i // KEY_BYTES

    def _sort(self, count: int) -> None:
        heads = np.frombuffer(bytes(self.raw), dtype="<u8", count=2 * count)[::2].copy()
        order = np.argsort(heads, kind="stable")  # a digest's first row first
        self._index = (heads[order].data, order.astype(np.int64).data, {})

    def hex(self, row: int) -> str:
        return bytes(self.raw[row * KEY_BYTES : (row + 1) * KEY_BYTES]).hex()

    def all(self, count: int) -> list[str]:
        raw = self.raw
        return [raw[i : i + KEY_BYTES].hex() for i in range(0, count * KEY_BYTES, KEY_BYTES)]
