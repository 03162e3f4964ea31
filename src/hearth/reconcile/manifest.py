"""What the reconciler last applied to the index, file by file.

The manifest lives in the index folder, so a rebuilt index and its manifest
are swapped in together and can never disagree about which index they
describe. Each file's entry holds the ``lstat`` signature (size, mtime) it
was read with and a hash of its content: a pass hashes only files whose
signature moved, and re-indexes only files whose hash moved.

Crash safety: the manifest is saved *after* the index commit, and every
index update deletes a path's documents before adding its new ones. A crash
between the two leaves a manifest behind the index. For files the manifest
knows, the next pass repairs that (a changed file is re-read and its documents
replaced, a deleted one is still listed and gets deleted); documents of a file
it never heard of would be orphans, so the reconciler compares the index's
document count with the manifest's whenever it loads a manifest from disk and
rebuilds the index when they differ.

On disk the file map is a base snapshot (``manifest.bin``) plus a journal
(``manifest.log``) of the entries each later pass changed, so a write that
touches one file appends one small record instead of rewriting ten thousand
entries. The journal is folded into a new base when it grows long or a pass
changes many files. A torn last record (a crash mid-append) is ignored.

In memory and in the base, each file is one packed row (``filemap.py``), so
loading the base is one ``marshal.loads``. A base of format 2 (an object per
field, hex digests) is still read, converted, and replaced by the next save.
"""

from __future__ import annotations

import datetime as dt
import json
import marshal
import os
import struct
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hearth.domain import layout
from hearth.errors import RuleFailure
from hearth.reconcile.filemap import FileEntry, FileMap, unpack

__all__ = ["FileEntry", "Manifest", "ParkedFile", "load", "save"]

MANIFEST_NAME = "manifest.bin"
JOURNAL_NAME = "manifest.log"
PASS_NAME = "pass.json"
FORMAT = 3
#: marshal's format can change between Python versions: another version's
#: manifest is treated as missing, and the index is rebuilt.
_HEADER = ("hearth-manifest", FORMAT, sys.version_info[:2])
#: The format before packed rows: read, converted, and replaced by the next save.
_HEADER_2 = ("hearth-manifest", 2, sys.version_info[:2])
#: Journal records before they are folded into a new base.
JOURNAL_LIMIT = 500
#: A pass that changed more entries than this writes a new base directly.
BIG_CHANGE = 1000
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class ParkedFile:
    """A file the reconciler will not try again until its signature changes."""

    size: int
    mtime_ns: int
    reason: str


@dataclass
class Manifest:
    files: FileMap = field(default_factory=FileMap)
    parked: dict[str, ParkedFile] = field(default_factory=dict)
    #: Failed reads per path since its last success; parked at a threshold.
    retries: dict[str, int] = field(default_factory=dict)
    indexed_head: str | None = None
    last_reconcile: str | None = None
    ignore_signature: str = ""
    #: Problems of the last pass that are not about one file's content.
    errors: list[str] = field(default_factory=list)
    active_error: str | None = None
    #: SHA-256 of the ACTIVE.md hearth last wrote (or found identical), and the
    #: HEAD it was rendered at: a file on disk with other bytes is not hearth's.
    active_digest: str | None = None
    active_head: str | None = None
    #: Records in the journal on disk since the base was written.
    journal_records: int = 0
    #: The paths of ``files`` whose entries ACTIVE.md's inputs read (``is_notable``:
    #: a failing file, a file under continuity/ that is not a daily note), and
    #: the newest dated daily note (its day and path; ``newest_daily``): found
    #: by one sweep when first asked for, then kept as entries change, so a
    #: refresh after each write does not sweep every file (a cost to each write
    #: that grows with the home; docs/performance.md) and loading the manifest
    #: (every CLI command) pays nothing.
    #: Change ``files`` only through ``put`` and ``drop``.
    _notable: set[str] | None = field(default=None, repr=False)
    _newest: tuple[dt.date, str] | None = field(default=None, repr=False)
    #: ``_newest`` is to be found again (the newest note was dropped), by a sweep.
    _newest_known: bool = field(default=False, repr=False)

    def documents(self) -> int:
        return self.files.documents()

    @property
    def notable(self) -> set[str]:
        if self._notable is None:
            files = self.files
            self._notable = {p for p in files if files.failing(p) or is_notable_path(p)}
        return self._notable

    def newest_daily(self, latest: dt.date | None = None) -> str | None:
        """The newest dated daily note of either layout, of ``latest`` or before when
        given; on the same day, the larger path (the hearth layout's), so the choice
        never depends on order."""
        if latest is not None:
            self.newest_daily()
            if self._newest is not None and self._newest[0] > latest:
                # A note dated ahead (rare): look past it.
                dated = ((layout.daily_note_date(p), p) for p in self.files)
                found = max(
                    ((d, p) for d, p in dated if d is not None and d <= latest), default=None
                )
                return None if found is None else found[1]
        if not self._newest_known:
            dated = ((layout.daily_note_date(p), p) for p in self.files)
            self._newest = max(((d, p) for d, p in dated if d is not None), default=None)
            self._newest_known = True
        return None if self._newest is None else self._newest[1]

    def put(self, path: str, entry: FileEntry) -> None:
        self.files.put(path, entry)
        if self._notable is not None:
            if is_notable(path, entry):
                self._notable.add(path)
            else:
                self._notable.discard(path)
        if self._newest_known:
            day = layout.daily_note_date(path)
            if day is not None and (self._newest is None or (day, path) > self._newest):
                self._newest = (day, path)

    def drop(self, path: str) -> FileEntry | None:
        """Forget ``path``'s entry; the entry it had, if any."""
        if self._notable is not None:
            self._notable.discard(path)
        if self._newest is not None and self._newest[1] == path:
            self._newest_known = False
        return self.files.pop(path)


def is_notable(path: str, entry: FileEntry) -> bool:
    """Whether ACTIVE.md reads this entry beyond its path: a file failing a rule,
    or anything under ``continuity/`` but a daily note (sync conflicts, outputs)."""
    return bool(entry.failures) or is_notable_path(path)


def is_notable_path(path: str) -> bool:
    """Whether ACTIVE.md reads the entry of a file at ``path`` whatever it holds
    (daily notes are found by ``Manifest.newest_daily``)."""
    return path.startswith("continuity/") and not layout.is_daily_note(path)


def _failure_rows(failures: tuple[RuleFailure, ...]) -> tuple[tuple[str, str, str], ...]:
    return tuple((f.rule, f.message, f.fix) for f in failures)


def _failures_of(path: str, rows: Iterable[tuple[str, str, str]]) -> tuple[RuleFailure, ...]:
    return tuple(RuleFailure(path, *f) for f in rows)


def _entry_row(path: str, state: Manifest) -> tuple[Any, Any, Any]:
    """A journal record's row for ``path``: its file row (packed, and its
    failures), its parked state, its failed reads."""
    row = state.files.rows.get(path)
    parked = state.parked.get(path)
    return (
        None if row is None else (row, _failure_rows(state.files.failures.get(path, ()))),
        None if parked is None else (parked.size, parked.mtime_ns, parked.reason),
        state.retries.get(path),
    )


def _apply_row(state: Manifest, path: str, row: tuple[Any, Any, Any], fmt: int = FORMAT) -> None:
    entry, parked, retries = row
    state.drop(path)
    state.parked.pop(path, None)
    state.retries.pop(path, None)
    if entry is not None:
        if fmt == FORMAT:
            packed, fails = entry
            state.put(path, unpack(bytes(packed), _failures_of(path, fails)))
        else:
            size, mtime, digest, docs, racy, fails = entry
            failures = _failures_of(path, fails)
            entry = FileEntry(size, mtime, bytes.fromhex(digest), docs, bool(racy), failures)
            state.put(path, entry)
    if parked is not None:
        state.parked[path] = ParkedFile(*parked)
    if retries is not None:
        state.retries[path] = int(retries)


def load(folder: Path) -> Manifest | None:
    """The manifest in ``folder`` (base plus journal); None when it is missing or unreadable."""
    state = Manifest()
    try:
        base = marshal.loads((folder / MANIFEST_NAME).read_bytes())
        header, signature_ = base[:2]
        if header == _HEADER:
            _, _, rows, failures, parked, retries = base
            state.files = FileMap(
                rows, {path: _failures_of(path, fails) for path, fails in failures.items()}
            )
            state.parked = {path: ParkedFile(*p) for path, p in parked.items()}
            state.retries = dict(retries)
        elif header == _HEADER_2:
            for path, row in base[2].items():
                _apply_row(state, path, row, 2)
            state.journal_records = JOURNAL_LIMIT  # the next save writes a new base
        else:
            return None
        state.ignore_signature = str(signature_)
        _replay(folder / JOURNAL_NAME, state, header)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, EOFError):
        return None
    load_pass(folder, state)
    return state


def _replay(journal: Path, state: Manifest, base_header: object = _HEADER) -> None:
    try:
        data = journal.read_bytes()
    except FileNotFoundError:
        return
    offset = 0
    while offset < len(data):
        chunk = b""
        if offset + _LENGTH.size <= len(data):
            (length,) = _LENGTH.unpack_from(data, offset)
            chunk = data[offset + _LENGTH.size : offset + _LENGTH.size + length]
        try:
            if not chunk or len(chunk) < length:
                raise EOFError
            header, signature_, rows = marshal.loads(chunk)
        except (ValueError, EOFError, TypeError):
            # Torn by a crash mid-append: the records before it stand, and the
            # tail is cut so later appends are not stranded behind it.
            with journal.open("r+b") as handle:
                handle.truncate(offset)
            break
        if header != base_header:
            raise ValueError("journal of another format")
        state.ignore_signature = str(signature_)
        fmt = FORMAT if header == _HEADER else 2
        for path, row in rows.items():
            _apply_row(state, path, row, fmt)
        state.journal_records += 1
        offset += _LENGTH.size + length


def load_pass(folder: Path, state: Manifest) -> None:
    """Read the small per-pass record (last reconcile, indexed HEAD, errors) into ``state``."""
    try:
        data = json.loads((folder / PASS_NAME).read_bytes())
        state.indexed_head = data.get("indexed_head")
        state.last_reconcile = data.get("last_reconcile")
        state.errors = [str(e) for e in data.get("errors", [])]
        state.active_error = data.get("active_error")
        state.active_digest = data.get("active_digest")
        state.active_head = data.get("active_head")
    except (OSError, ValueError, TypeError, AttributeError):
        return


def save(folder: Path, state: Manifest, changed: Iterable[str] | None = None) -> None:
    """Record ``state``: the entries of ``changed`` paths as one journal record, or
    (``changed`` None, a big change or a long journal) a new base. Then the pass record.
    """
    paths = None if changed is None else set(changed)
    if (
        paths is None
        or len(paths) > BIG_CHANGE
        or state.journal_records >= JOURNAL_LIMIT
        or not (folder / MANIFEST_NAME).exists()
    ):
        failures = {path: _failure_rows(f) for path, f in state.files.failures.items()}
        parked = {path: (p.size, p.mtime_ns, p.reason) for path, p in state.parked.items()}
        base = (_HEADER, state.ignore_signature, state.files.rows, failures, parked, state.retries)
        _write_atomic(folder / MANIFEST_NAME, marshal.dumps(base))
        (folder / JOURNAL_NAME).unlink(missing_ok=True)
        state.journal_records = 0
    elif paths:
        _append(folder, state, paths)
    summary = {
        "indexed_head": state.indexed_head,
        "last_reconcile": state.last_reconcile,
        "errors": state.errors,
        "active_error": state.active_error,
        "active_digest": state.active_digest,
        "active_head": state.active_head,
    }
    _write_atomic(folder / PASS_NAME, json.dumps(summary).encode(), durable=False)


def journal(folder: Path, state: Manifest, changed: Iterable[str]) -> None:
    """Record the entries of ``changed`` paths as one journal record, however
    long the journal is (the next ``save`` folds it), and nothing else (the
    pass record stays): one append, for a write's entries marked before its
    index commit (``ahead.py``)."""
    if not (folder / MANIFEST_NAME).exists():
        save(folder, state, changed)
        return
    _append(folder, state, set(changed))


def _append(folder: Path, state: Manifest, paths: set[str]) -> None:
    record = marshal.dumps(
        (_HEADER, state.ignore_signature, {path: _entry_row(path, state) for path in paths})
    )
    # Not fsynced: a record lost in a crash leaves the manifest behind the
    # index, which the next open detects (document counts) and repairs.
    with (folder / JOURNAL_NAME).open("ab") as handle:
        handle.write(_LENGTH.pack(len(record)) + record)
    state.journal_records += 1


def _write_atomic(target: Path, data: bytes, *, durable: bool = True) -> None:
    """Temp file and rename; ``durable`` also fsyncs (the pass record is informational)."""
    temp = target.with_name(f".{target.name}.tmp")
    with temp.open("wb") as handle:
        handle.write(data)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())
    temp.replace(target)


def signature(folder: Path) -> tuple[object, ...]:
    """Identity of the file map on disk (base and journal), to notice another process's save."""
    found: list[object] = []
    for name in (MANIFEST_NAME, JOURNAL_NAME):
        try:
            st = (folder / name).stat()
        except OSError:
            found.append(None)
            continue
        found.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(found)
