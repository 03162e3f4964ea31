"""The active records of a home, read from the work tree."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from hearth.domain import layout, records
from hearth.domain.text import decode_text
from hearth.errors import HearthError
from hearth.store.rooted import RootedFiles


@dataclass(frozen=True)
class RecordView:
    key: str
    path: str
    record: records.Record | None
    error: str | None = None
    #: The file's text as it was parsed (review reads its entries' lines from it).
    text: str = ""
    #: The git blob id of what was read: the version a person was shown, which a
    #: merge carries (``version``) so a proposal changed since is refused.
    oid: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"key": self.key, "path": self.path, "oid": self.oid}
        if self.record is None:
            data["error"] = self.error
            return data
        data.update(self.record.__dict__)
        if isinstance(self.record, records.Proposal):
            data["entries"] = list(self.record.entries)
        return data


def list_records(files: RootedFiles, kind: layout.RecordKind) -> list[RecordView]:
    """Active records in the work tree, oldest first; a broken file is listed with its error."""
    folder = layout.record_dir(kind)
    views = []
    for name in files.list_files(folder):
        if not name.endswith(".md"):
            continue
        path = f"{folder}/{name}"
        try:
            data = files.read(path)
            if data is None:
                continue  # vanished since listing
            text = decode_text(data, path)
        except HearthError as exc:
            views.append(RecordView(name[:-3], path, None, exc.message))
            continue
        views.append(record_view(kind, name[:-3], path, text, blob_id(data)))
    return sorted(views, key=lambda v: (v.record.created if v.record else "", v.key))


def record_view(kind: layout.RecordKind, key: str, path: str, text: str, oid: str) -> RecordView:
    """One record file's view, as ``list_records`` lists it: also what a client
    shows of a record the home's server read for it (``hearth merge KEY``)."""
    try:
        record = records.parse(kind, text)
    except HearthError as exc:
        return RecordView(key, path, None, exc.message, text)
    return RecordView(key, path, record, text=text, oid=oid)


def blob_id(data: bytes) -> str:
    """The id git gives a blob of these bytes (without libgit2: lean readers list
    records too)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
