"""The manifest's file map: one compact row of bytes per file.

A pass compares every listed file's ``lstat`` signature with its row, and a
served home keeps the map for its whole life, one row per markdown file of
the home. As one object per field (an entry object, two ints, a hex digest
string), loading a large home's map took more than twice the memory of a
fresh process (with the heap its intermediate tuples left in pieces) and five
times the time of one ``bytes`` a file (docs/performance.md, "Figures behind
the code's comments"). Rows are unpacked into a
``FileEntry`` only where one is asked for; the comparisons of a whole pass
(``matches``, ``signature``) read the packed bytes.

A row is ``size`` and ``mtime_ns`` (two signed 64-bit integers, so the
signature is the first 16 bytes), ``documents`` (32 bits), ``racy`` (one
byte), then the content digest. The rule failures of a file, rare, are kept
beside the rows.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from hearth.errors import RuleFailure

_HEAD = struct.Struct("<qqIB")
_SIGNATURE = struct.Struct("<qq")
_RACY = 20  # the offset of ``racy`` in a row


@dataclass(frozen=True, slots=True)
class FileEntry:
    """What the reconciler last applied for one file (a copy: change it with
    ``Manifest.put``)."""

    size: int
    mtime_ns: int
    digest: bytes
    documents: int = 0
    racy: bool = False  # read too close to its last change: hash again next pass
    failures: tuple[RuleFailure, ...] = ()

    def matches(self, size: int, mtime_ns: int) -> bool:
        return not self.racy and self.size == size and self.mtime_ns == mtime_ns


def pack(entry: FileEntry) -> bytes:
    return _HEAD.pack(entry.size, entry.mtime_ns, entry.documents, entry.racy) + entry.digest


def unpack(row: bytes, failures: tuple[RuleFailure, ...] = ()) -> FileEntry:
    size, mtime_ns, documents, racy = _HEAD.unpack_from(row)
    return FileEntry(size, mtime_ns, row[_HEAD.size :], documents, bool(racy), failures)


class FileMap(Mapping[str, FileEntry]):
    """Path to ``FileEntry``, stored as packed rows; changed only by ``put`` and ``pop``."""

    __slots__ = ("_documents", "failures", "rows")

    def __init__(
        self,
        rows: dict[str, bytes] | None = None,
        failures: dict[str, tuple[RuleFailure, ...]] | None = None,
    ) -> None:
        #: The packed rows (``pack``), as saved.
        self.rows: dict[str, bytes] = {} if rows is None else rows
        #: The rule failures of the files that have some.
        self.failures: dict[str, tuple[RuleFailure, ...]] = {} if failures is None else failures
        self._documents: int | None = None

    def __getitem__(self, path: str) -> FileEntry:
        return unpack(self.rows[path], self.failures.get(path, ()))

    def get(self, path: str, default: FileEntry | None = None) -> FileEntry | None:  # type: ignore[override]
        row = self.rows.get(path)
        return default if row is None else unpack(row, self.failures.get(path, ()))

    def __contains__(self, path: object) -> bool:
        return path in self.rows

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def matches(self, path: str, size: int, mtime_ns: int) -> bool:
        """``self[path].matches(size, mtime_ns)`` without unpacking the row."""
        row = self.rows.get(path)
        return row is not None and not row[_RACY] and row[:16] == _SIGNATURE.pack(size, mtime_ns)

    def vouched(self, path: str, size: int, mtime_ns: int) -> bytes | None:
        """The content digest of ``path``'s row when it ``matches`` a file of
        ``lstat`` signature ``(size, mtime_ns)``: the digest of that file's
        bytes, as a pass skips it for; None otherwise (no row, another
        signature, racy)."""
        row = self.rows.get(path)  # one read of a row: a pass may put another
        if row is None or row[_RACY] or row[:16] != _SIGNATURE.pack(size, mtime_ns):
            return None
        return row[_HEAD.size :]

    def signature(self, path: str) -> tuple[int, int] | None:
        """``(size, mtime_ns)`` of ``path``'s row; None when there is none."""
        row = self.rows.get(path)
        return None if row is None else _SIGNATURE.unpack_from(row)

    def documents(self) -> int:
        """Documents of every file (counted once, then kept as rows change)."""
        if self._documents is None:
            self._documents = sum(_HEAD.unpack_from(row)[2] for row in self.rows.values())
        return self._documents

    def put(self, path: str, entry: FileEntry) -> None:
        self.pop(path)
        self.rows[path] = pack(entry)
        if entry.failures:
            self.failures[path] = entry.failures
        if self._documents is not None:
            self._documents += entry.documents

    def pop(self, path: str) -> FileEntry | None:
        """Forget ``path``; the entry it had, if any."""
        row = self.rows.pop(path, None)
        if row is None:
            return None
        entry = unpack(row, self.failures.pop(path, ()))
        if self._documents is not None:
            self._documents -= entry.documents
        return entry

    def failing(self, path: str) -> bool:
        return path in self.failures
