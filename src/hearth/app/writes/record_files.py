"""What the record writes share (``records.py`` one at a time, ``batch.py`` many
in one commit): finding a record by key in a snapshot, its archive move, a
merged target's text, a reason given for a rejection or a withdrawal."""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from hearth.domain import entries, known_folds, layout, notes, records
from hearth.domain.text import decode_text
from hearth.errors import DirtyFile, HearthError, InvalidInput, NotFound, StaleWrite
from hearth.store.active_records import blob_id
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
    fold: Mapping[str, str] | None = None,
    elsewhere: Sequence[str] = (),
) -> tuple[str, list[str], str]:
    """The target's text after merging ``proposal`` (see ``RecordWrites.merge``),
    the entries added, and a note of what was skipped, left out, replaced or
    folded (``fold``: proposed entry -> the held entry it folds into,
    ``domain/known_folds.py``). ``elsewhere``: its entries that took the place
    of a held one in another hot file (``supersede.py``), not added here."""
    replace = dict(replace or {})
    fold = dict(fold or {})
    unknown = [e for e in (*leave_out, *replace, *fold) if e not in proposal.entries]
    if unknown:
        raise InvalidInput(
            f"{unknown[0]!r} is not an entry of the proposal {proposal.title!r}; "
            "reload the page and choose again"
        )
    for new, old in replace.items():
        text = entries.replace_entry(text, old, new)
    for held, becomes in known_folds.folded(fold.items()).items():
        if becomes != held:
            text = entries.replace_entry(text, held, becomes)
    wanted = [
        e
        for e in proposal.entries
        if e not in leave_out and e not in replace and e not in fold and e not in elsewhere
    ]
    new_text, added = notes.add_entries(text, wanted)
    parts = [f"skipped {len(wanted) - len(added)} already there"]
    if leave_out:
        parts.append(f"left out {len(set(leave_out))} already known")
    if replace:
        parts.append(f"replaced {len(replace)} in place")
    if fold:
        parts.append(f"folded {len(fold)} into the entries they add to")
    if elsewhere:
        parts.append(f"replaced {len(set(elsewhere))} in other files")
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


#: The title of a proposal to change the person's decision of the same title.
CHANGE_PREFIX = "Change decision: "


def decision_change(decision: records.Decision, target: str) -> records.Proposal:
    """An agent's ``decision`` on the title of the person's own, as a proposal
    whose target is that decision's file: its entries are the new text's lines,
    its rationale the new why."""
    lines = [" ".join(line.split()) for line in decision.decision.splitlines()]
    return records.Proposal(
        title=records.clean_title(CHANGE_PREFIX + decision.title),
        entries=tuple(dict.fromkeys(line for line in lines if line)),
        created=decision.created,
        updated=decision.updated,
        rationale=decision.why,
        target=target,
    )


def changes_decision(proposal: records.Proposal) -> bool:
    """Whether ``proposal`` proposes a change to a decision (see ``decision_change``)."""
    return layout.record_location(proposal.target) == ("decision", False)


def superseded(
    snap: Snapshot, proposal: records.Proposal, now: dt.datetime, by: Who
) -> tuple[str, str, FileChange]:
    """Merging a ``decision_change``: the decision's text before and after, and
    its new file (the text and why replaced, ``created`` kept, ``by`` the merger)."""
    path = proposal.target
    found = existing_record(snap, "decision", path)
    if found is None or not isinstance(found[0], records.Decision):
        raise NotFound(f"the decision {path} this proposal would change is gone; reject it")
    decision = found[0]
    text = "\n".join(proposal.entries)
    new = by.stamp(
        dataclasses.replace(
            decision,
            decision=text,
            why=proposal.rationale or decision.why,
            updated=records.timestamp(now),
        )
    )
    key = path.rsplit("/", 1)[-1][: -len(".md")]
    return decision.decision, text, FileChange(path, records.render(new, key).encode())


def check_version(
    snap: Snapshot,
    path: str,
    version: str | None,
    on_disk: Callable[[], bytes | None] | None = None,
) -> None:
    """Refuse a merge of a proposal changed since the person read it: ``version``
    is the blob id (or its first twelve or more hex digits) the person was shown.
    When what they were shown is their own uncommitted edit (``on_disk`` reads
    the work tree's copy), it is refused as that (listing it again would show
    the same edit again)."""
    if version is None:
        return
    now = snap.oid(path) or ""
    wanted = version.strip().lower()
    if len(wanted) < 12 or not now.startswith(wanted):
        try:
            data = on_disk() if on_disk is not None else None
        except HearthError:
            data = None
        if data is not None and len(wanted) >= 12 and blob_id(data).startswith(wanted):
            raise DirtyFile([path])
        raise StaleWrite(
            f"{path} changed since you read it (you read version {wanted[:12]}, "
            f"{'it is gone now' if not now else f'it is {now[:12]} now'}); "
            "list it again, read what it holds now and decide again",
            detail={"path": path, "read": wanted, "now": now or None},
        )


R = TypeVar("R", bound=records.Record)


@dataclass(frozen=True)
class Who:
    """The fields that say who wrote a record (``records.WHO``), as hearth knows
    it: the actor as ``source``, what the caller said as ``stated_source``,
    ``by`` the agent's mark."""

    source: str
    stated_source: str
    by: str

    def stamp(self, record: R) -> R:
        return dataclasses.replace(
            record, source=self.source, stated_source=self.stated_source, by=self.by
        )


def who(actor: str, source: str, agent: bool) -> Who:
    """Who writes: ``actor``, having said ``source``; ``agent`` a write-scoped caller."""
    stated = " ".join(source.split())
    return Who(actor, stated if stated != actor else "", records.AGENT if agent else "")
