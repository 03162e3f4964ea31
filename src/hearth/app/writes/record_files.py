"""What the record writes share (``records.py`` one at a time, ``batch.py`` many
in one commit): finding a record by key in a snapshot, its archive move, a
merged target's text, a reason given for a rejection or a withdrawal."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Mapping, Sequence

from hearth.domain import entries, layout, notes, records
from hearth.domain.text import decode_text
from hearth.errors import InvalidInput, NotFound
from hearth.store.plans import FileChange, Snapshot


def archive_moves(
    kind: layout.RecordKind,
    key: str,
    record: records.Record,
    original: str,
    now: dt.datetime,
    status: str,
    note: str = "",
) -> tuple[FileChange, FileChange]:
    """Delete the active record file and add its archive copy with the new status."""
    outcome = status if layout.RECORD_KINDS[kind].outcome_folders else ""
    archive = layout.archive_path(kind, key, str(uuid.uuid4()), outcome)
    text = records.archived_text(record, original, key, now, status, note)
    return (
        FileChange(layout.record_path(kind, key), None),
        FileChange(archive, text.encode()),
    )


def merged_text(
    text: str,
    proposal: records.Proposal,
    leave_out: Sequence[str] = (),
    replace: Mapping[str, str] | None = None,
) -> tuple[str, list[str], str]:
    """The target's text after merging ``proposal`` (see ``RecordWrites.merge``),
    the entries added, and a note of what was skipped, left out or replaced."""
    replace = dict(replace or {})
    unknown = [e for e in (*leave_out, *replace) if e not in proposal.entries]
    if unknown:
        raise InvalidInput(
            f"{unknown[0]!r} is not an entry of the proposal {proposal.title!r}; "
            "reload the page and choose again"
        )
    for new, old in replace.items():
        text = entries.replace_entry(text, old, new)
    wanted = [e for e in proposal.entries if e not in leave_out and e not in replace]
    new_text, added = notes.add_entries(text, wanted)
    parts = [f"skipped {len(wanted) - len(added)} already there"]
    if leave_out:
        parts.append(f"left out {len(set(leave_out))} already known")
    if replace:
        parts.append(f"replaced {len(replace)} in place")
    return new_text, added, "; ".join(parts)


def checked_reason(text: str, doing: str) -> str:
    reason = " ".join(text.split())
    if not reason:
        raise InvalidInput(f"give a reason for {doing}")
    return reason


def record_path_of(kind: layout.RecordKind, key: str) -> str:
    if not records.is_key(key):
        raise NotFound(
            f"{key!r} is not a record key; keys look like 'some-title--<uuid>' "
            f"(list them with 'hearth {layout.RECORD_KINDS[kind].plural}')"
        )
    return layout.record_path(kind, key)


def existing_record(
    snap: Snapshot, kind: layout.RecordKind, path: str
) -> tuple[records.Record, str] | None:
    data = snap.read(path)
    if data is None:
        return None
    text = decode_text(data, path)
    return records.parse(kind, text), text


def require_record(
    snap: Snapshot, kind: layout.RecordKind, path: str, key: str
) -> tuple[records.Record, str]:
    found = existing_record(snap, kind, path)
    if found is None:
        raise NotFound(f"no {layout.RECORD_KINDS[kind].active_name} with key {key}")
    return found
