"""The operations on a home: each write is one commit through the git store.

Every write method builds an *operation* (a function of HEAD's snapshot to a
plan) so that when the branch moves under it, the store can simply ask again
on the new tip: a daily append lands on the newest note, a merge reads the
newest MEMORY.md. Every planned file is checked by the validation rules
before anything is committed.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from hearth.app.results import Expected, KeyFix, MergePreview, WriteResult
from hearth.domain import entries, keys, layout, notes, records, rollup
from hearth.domain.paths import normalize
from hearth.domain.settings import Settings
from hearth.domain.text import decode_text
from hearth.domain.validation import check_blob
from hearth.errors import (
    InvalidInput,
    NotFound,
    StaleWrite,
    TooLarge,
    ValidationFailed,
)
from hearth.store.git import CommitResult, FileChange, GitStore, Plan, Snapshot, Trailers
from hearth.store.rooted import RootedFiles

Clock = Callable[[], dt.datetime]


def check_proposal_target(target: str) -> str:
    path = normalize(target)
    if (
        not path.endswith(".md")
        or path.startswith("continuity/")
        or layout.kind_of(path) == "daily"
        or path in ("SOUL.md", "IDENTITY.md")
    ):
        raise InvalidInput(
            f"{target!r} cannot receive memory entries; use MEMORY.md, USER.md, "
            "memory/topics/<topic>.md or another markdown file outside continuity/"
        )
    return path


class AfterWrite(Protocol):
    """Told the paths of each commit an operation made (to index them before the
    write returns); its failures never undo the commit."""

    def written(self, paths: tuple[str, ...]) -> None: ...


class Operations:
    """The home's writes (each one commit through the store) and the reads they
    share. The use cases (``app.usecases.Hearth``) call these under the owner lock."""

    def __init__(
        self,
        root: Path,
        files: RootedFiles,
        store: GitStore,
        settings: Settings,
        clock: Clock,
        after_write: AfterWrite | None = None,
    ) -> None:
        self.root = root
        self.files = files
        self.store = store
        self.settings = settings
        self.clock = clock
        self._after_write = after_write

    # -- plumbing ------------------------------------------------------------

    def _commit(
        self, operation: Callable[[Snapshot], Plan], op: str, actor: str, record: str | None = None
    ) -> CommitResult:
        def validated(snap: Snapshot) -> Plan:
            plan = operation(snap)
            failures = []
            for change in plan.changes:
                if change.data is None:
                    continue
                if len(change.data) > self.settings.file_bytes:
                    raise TooLarge(
                        f"{change.path} would be {len(change.data)} bytes, over the bound of "
                        f"{self.settings.file_bytes} ([bounds] file_bytes in hearth.toml)"
                    )
                failures += check_blob(change.path, change.data, self.settings.bounds)
            if failures:
                raise ValidationFailed(failures)
            return plan

        result = self.store.commit(validated, Trailers(op=op, actor=actor, record=record))
        if result.changed and result.paths and self._after_write is not None:
            self._after_write.written(tuple(result.paths))
        return result

    def _now(self) -> dt.datetime:
        return self.clock().astimezone(dt.UTC)

    # -- daily notes and files ------------------------------------------------

    def note(self, text: str, title: str | None, actor: str) -> WriteResult:
        if len(text) > self.settings.daily_text:
            raise TooLarge(
                f"note text has {len(text)} characters, over the bound of "
                f"{self.settings.daily_text} ([bounds] daily_text in hearth.toml)"
            )
        moment = self._now()
        daily_layout = self.settings.daily_layout
        path = layout.daily_note_path(moment.date(), daily_layout)
        summary = " ".join((title or text).split())[:60]

        def append(existing: bytes | None) -> bytes:
            current = decode_text(existing, path) if existing is not None else None
            return notes.append_daily_entry(
                current, moment, title or "", text, daily_layout
            ).encode()

        def operation(snap: Snapshot) -> Plan:
            return Plan(f"daily: {summary}", (FileChange(path, append(snap.read(path)), append),))

        result = self._commit(operation, "daily.append", actor)
        return WriteResult(result.commit, path, result.changed)

    def put(
        self,
        path: str,
        content: bytes,
        actor: str,
        expected_oid: str | None = None,
        message: str | None = None,
    ) -> WriteResult:
        path = normalize(path)
        decode_text(content, path)

        def operation(snap: Snapshot) -> Plan:
            if expected_oid is not None and snap.oid(path) != expected_oid:
                raise StaleWrite(
                    f"{path} changed since you read it (HEAD has {snap.oid(path)}, "
                    f"you expected {expected_oid}); read it again and redo your edit"
                )
            subject = f"{_area(path)}: {message or f'update {path}'}"
            return Plan(" ".join(subject.split()), (FileChange(path, content),))

        result = self._commit(operation, "file.put", actor)
        return WriteResult(result.commit, path, result.changed)

    def restore(
        self, path: str, rev: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        path = normalize(path)
        old = self.store.snapshot(rev)
        data = old.read(path)
        if data is None:
            raise NotFound(f"{path} does not exist at {rev}")
        short = (old.head or "")[:12]

        def operation(snap: Snapshot) -> Plan:
            _check_expected(snap, expected)
            return Plan(
                f"{_area(path)}: restore {path} from {short}",
                (FileChange(path, data),),
                body=f"Restored from commit {old.head}.",
            )

        result = self._commit(operation, "file.restore", actor)
        return WriteResult(result.commit, path, result.changed)

    def rollup(self, week: str | None, actor: str) -> WriteResult:
        """Commit the digest of ISO week ``week`` (default: last week) from its daily notes.

        The digest is a function of the committed notes, so a second run of the
        same week commits nothing.
        """
        label = week or rollup.previous_week(self._now().date())
        days = rollup.week_days(label)
        path = layout.rollup_path(label)

        def operation(snap: Snapshot) -> Plan:
            notes_of_week = []
            for day in days:
                for note_path in layout.daily_note_paths(day):
                    data = snap.read(note_path)
                    if data is not None:
                        notes_of_week.append((day, note_path, decode_text(data, note_path)))
            if not notes_of_week:
                raise NotFound(f"no committed daily notes in week {label}; nothing to roll up")
            digest = rollup.render_rollup(label, notes_of_week)
            return Plan(f"rollup: week {label}", (FileChange(path, digest.encode()),))

        result = self._commit(operation, "rollup.write", actor)
        return WriteResult(result.commit, path, result.changed)

    # -- records -------------------------------------------------------------

    def propose(
        self,
        title: str,
        entries: Sequence[str],
        actor: str,
        target: str | None = None,
        rationale: str = "",
        source: str = "",
    ) -> WriteResult:
        title = records.clean_title(title)
        cleaned = tuple(dict.fromkeys(records.clean_entry(e) for e in entries))
        if not cleaned:
            raise InvalidInput("a proposal needs at least one entry")
        checked_target = check_proposal_target(target) if target else None

        def build(stamp: str) -> records.Proposal:
            return records.Proposal(
                title=title,
                entries=cleaned,
                created=stamp,
                updated=stamp,
                source=" ".join(source.split()),
                rationale=" ".join(rationale.split()),
                target=checked_target or layout.DEFAULT_PROPOSAL_TARGET,
            )

        return self._save_record("proposal", title, build, actor)

    def _save_record(
        self,
        kind: layout.RecordKind,
        title: str,
        build: Callable[[str], records.Record],
        actor: str,
    ) -> WriteResult:
        """Create the record for ``title``, or update the one with the same key."""
        area, verb = ("proposals", "propose") if kind == "proposal" else ("loops", "open")
        key = records.record_key(title)
        legacy = records.legacy_record_key(title)
        head = self.store.snapshot()
        if (
            legacy != key
            and head.entry(layout.record_path(kind, key)) is None
            and head.entry(layout.record_path(kind, legacy)) is not None
        ):
            # A home from an older release holds this title under its old key:
            # update that file rather than start a second one.
            key = legacy
        path = layout.record_path(kind, key)

        def operation(snap: Snapshot) -> Plan:
            found = _existing(snap, kind, path)
            existing = found[0] if found else None
            record = records.upsert(existing, build(records.timestamp(self._now())))
            subject = f"{area}: {'update' if existing else verb} {title}"
            return Plan(subject, (FileChange(path, records.render(record, key).encode()),))

        result = self._commit(operation, f"{kind}.create", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    def merge(self, key: str, actor: str, *, expected: Expected | None = None) -> WriteResult:
        path = _record_path("proposal", key)

        def operation(snap: Snapshot) -> Plan:
            _check_expected(snap, expected)
            proposal, original = _require(snap, "proposal", path, key)
            assert isinstance(proposal, records.Proposal)
            target = check_proposal_target(proposal.target)
            current = snap.read(target)
            text = decode_text(current, target) if current is not None else _new_target_text(target)
            new_text, added = notes.add_entries(text, proposal.entries)
            changes = list(
                _archive_moves("proposal", key, proposal, original, self._now(), "merged")
            )
            if added:
                changes.insert(0, FileChange(target, new_text.encode()))
            skipped = len(proposal.entries) - len(added)
            return Plan(
                f"proposals: merge {proposal.title} into {target}",
                tuple(changes),
                body=f"Added {len(added)} entries to {target}; skipped {skipped} already there.",
            )

        result = self._commit(operation, "proposal.merge", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    def reject(
        self, key: str, reason: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        path = _record_path("proposal", key)
        reason = " ".join(reason.split())
        if not reason:
            raise InvalidInput("give a reason for rejecting the proposal (--reason)")

        def operation(snap: Snapshot) -> Plan:
            _check_expected(snap, expected)
            proposal, original = _require(snap, "proposal", path, key)
            assert isinstance(proposal, records.Proposal)
            return Plan(
                f"proposals: reject {proposal.title}",
                _archive_moves(
                    "proposal", key, proposal, original, self._now(), "rejected", reason
                ),
                body=f"Reason: {reason}",
            )

        result = self._commit(operation, "proposal.reject", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    def fix_keys(self, actor: str) -> KeyFix:
        """Rename every committed record still named with hearth's old key to
        LionClaw's key, in one commit; the content moves unchanged (a LionClaw
        record's ``- Key:`` line follows), so ``git log --follow`` finds the
        history. A record whose new name is already taken is left alone and
        reported."""
        renamed: list[tuple[str, str]] = []
        blocked: list[tuple[str, str]] = []

        def operation(snap: Snapshot) -> Plan:
            renamed.clear()
            blocked.clear()
            changes: list[FileChange] = []
            for folder in layout.record_folders():
                for name in snap.names(folder):
                    path = f"{folder}/{name}"
                    data = snap.read(path)
                    if data is None or not name.endswith(".md"):
                        continue
                    try:
                        text = decode_text(data, path)
                    except InvalidInput:
                        continue
                    fix = records.lionclaw_key_rename(path, text)
                    if fix is None:
                        continue
                    new_path, new_text = fix
                    if snap.entry(new_path) is not None or self.files.read(new_path) is not None:
                        blocked.append((path, f"{new_path} already exists; merge the two by hand"))
                        continue
                    changes += [FileChange(path, None), FileChange(new_path, new_text.encode())]
                    renamed.append((path, new_path))
            body = "\n".join(f"{old} -> {new}" for old, new in renamed)
            count = len(renamed)
            return Plan(
                f"records: rename {count} record{'s' if count != 1 else ''} to LionClaw's keys",
                tuple(changes),
                body=body,
            )

        result = self._commit(operation, "records.fix-keys", actor)
        return KeyFix(result.commit if result.changed else None, tuple(renamed), tuple(blocked))

    def preview_merge(self, key: str) -> MergePreview:
        """The target's text before and after merging ``key``, as the merge would
        compute it now (from HEAD), with the blob ids it was computed from."""
        path = _record_path("proposal", key)
        snap = self.store.snapshot()
        proposal, _original = _require(snap, "proposal", path, key)
        assert isinstance(proposal, records.Proposal)
        target = check_proposal_target(proposal.target)
        current = snap.read(target)
        before = decode_text(current, target) if current is not None else ""
        after, added = notes.add_entries(
            before if current is not None else _new_target_text(target), proposal.entries
        )
        skipped = tuple(e for e in proposal.entries if e not in added)
        return MergePreview(
            key,
            path,
            snap.oid(path),
            target,
            snap.oid(target),
            before,
            after,
            tuple(added),
            skipped,
        )

    def revise_proposal(
        self,
        key: str,
        new_entries: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
    ) -> WriteResult:
        """Replace a pending proposal's entries (a person's edit before merging).

        ``propose`` with the same title only ever adds entries; this one sets
        them, so an entry can be reworded or dropped. One commit.
        """
        path = _record_path("proposal", key)
        cleaned = tuple(dict.fromkeys(records.clean_entry(e) for e in new_entries if e.strip()))
        if not cleaned:
            raise InvalidInput("a proposal needs at least one entry (reject it to drop it)")

        def operation(snap: Snapshot) -> Plan:
            _check_expected(snap, expected)
            proposal, _original = _require(snap, "proposal", path, key)
            assert isinstance(proposal, records.Proposal)
            revised = dataclasses.replace(
                proposal, entries=cleaned, updated=records.timestamp(self._now())
            )
            return Plan(
                f"proposals: edit {proposal.title}",
                (FileChange(path, records.render(revised, key).encode()),),
            )

        result = self._commit(operation, "proposal.edit", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    def add_loop(
        self, title: str, actor: str, summary: str = "", next_step: str = "", source: str = ""
    ) -> WriteResult:
        title = records.clean_title(title)

        def build(stamp: str) -> records.OpenLoop:
            return records.OpenLoop(
                title=title,
                created=stamp,
                updated=stamp,
                summary=summary.strip(),
                next_step=" ".join(next_step.split()),
                source=" ".join(source.split()),
            )

        return self._save_record("loop", title, build, actor)

    def resolve_loop(
        self, key: str, actor: str, note: str = "", *, expected: Expected | None = None
    ) -> WriteResult:
        path = _record_path("loop", key)

        def operation(snap: Snapshot) -> Plan:
            _check_expected(snap, expected)
            loop, original = _require(snap, "loop", path, key)
            assert isinstance(loop, records.OpenLoop)
            resolution = " ".join(note.split())
            return Plan(
                f"loops: resolve {loop.title}",
                _archive_moves("loop", key, loop, original, self._now(), "resolved", resolution),
            )

        result = self._commit(operation, "loop.resolve", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    # -- memory entries, topic and person notes --------------------------------

    def entry_list(self, path: str) -> list[entries.Entry]:
        """The entries of a memory file as it is committed (what the operations edit)."""
        path = entry_file(path)
        data = self.store.snapshot().read(path)
        return entries.list_entries(decode_text(data, path)) if data is not None else []

    def entry_add(self, path: str, entry: str, actor: str) -> WriteResult:
        path = entry_file(path)
        text = entries.clean_entry(entry)

        def change(current: str) -> str:
            return entries.add_entry(current, text)

        return self._edit_entries(path, change, f"add {_quote(text)}", "memory.add", actor)

    def entry_replace(self, path: str, old: str, new: str, actor: str) -> WriteResult:
        path = entry_file(path)
        text = entries.clean_entry(new)

        def change(current: str) -> str:
            return entries.replace_entry(current, old, text)

        return self._edit_entries(
            path, change, f"replace with {_quote(text)}", "memory.replace", actor
        )

    def entry_remove(self, path: str, old: str, actor: str) -> WriteResult:
        path = entry_file(path)
        removed: list[str] = []

        def change(current: str) -> str:
            removed[:] = [entries.find_entry(current, old).text]
            return entries.remove_entry(current, old)

        return self._edit_entries(path, change, "remove {}", "memory.remove", actor, removed)

    def _edit_entries(
        self,
        path: str,
        change: Callable[[str], str],
        summary: str,
        op: str,
        actor: str,
        removed: list[str] | None = None,
    ) -> WriteResult:
        """One entry operation as one commit, computed from HEAD's version of the file.

        The store refuses it when the file holds uncommitted edits (a person is
        editing it), and plans again on a moved tip, so concurrent operations
        never lose each other's entries.
        """

        def operation(snap: Snapshot) -> Plan:
            data = snap.read(path)
            if data is None and path not in (*_BOUNDED_FILES, *_user_paths(path)):
                raise NotFound(
                    f"{path} does not exist; entries go to USER.md, MEMORY.md, "
                    "a users/<id>.md note or a file with an '## Entries' section"
                )
            current = decode_text(data, path) if data is not None else _new_target_text(path)
            free_form = path not in _BOUNDED_FILES and not _user_paths(path)
            if free_form and notes.ENTRIES_HEADING not in current.split("\n"):
                raise InvalidInput(
                    f"{path} has no '{notes.ENTRIES_HEADING}' section; add one by hand "
                    "(or put the fact in MEMORY.md)"
                )
            updated = change(current)
            what = summary.format(_quote(removed[0])) if removed else summary
            return Plan(f"memory: {path}: {what}", (FileChange(path, updated.encode()),))

        result = self._commit(operation, op, actor)
        return WriteResult(result.commit, path, result.changed)

    def topic(
        self, title: str, actor: str, *, content: str | None = None, append: str | None = None
    ) -> WriteResult:
        """Create or update ``memory/topics/<slug>.md`` by title, or append a section.

        ``content`` replaces the note's body under its ``# Title`` heading;
        ``append`` adds a section (a ``## `` heading of its first line, or the
        time, then the text) at the end. Exactly one of them.
        """
        title = records.clean_title(title)
        if (content is None) == (append is None):
            raise InvalidInput("give the topic's content, or text to append, not both")
        path = layout.topic_path(_topic_slug(title))
        moment = self._now()

        def operation(snap: Snapshot) -> Plan:
            data = snap.read(path)
            if content is not None:
                body = content.strip("\n")
                text = body + "\n" if body.startswith("# ") else f"# {title}\n\n{body}\n"
                verb = "update" if data is not None else "create"
            else:
                assert append is not None
                current = decode_text(data, path) if data is not None else f"# {title}\n"
                text = notes.append_section(current, moment, append)
                verb = "append to"
            return Plan(f"memory: {verb} topic {title}", (FileChange(path, text.encode()),))

        result = self._commit(operation, "topic.write", actor)
        return WriteResult(result.commit, path, result.changed)

    def topics(self) -> list[dict[str, str]]:
        """The topic notes, by path, with their titles (from HEAD)."""
        snap = self.store.snapshot()
        found = []
        for name in sorted(snap.names(layout.TOPICS_DIR)):
            if not name.endswith(".md"):
                continue
            path = f"{layout.TOPICS_DIR}/{name}"
            data = snap.read(path) or b""
            first = decode_text(data, path).split("\n", 1)[0]
            found.append({"path": path, "title": first.removeprefix("# ").strip() or name[:-3]})
        return found


def _check_expected(snap: Snapshot, expected: Expected | None) -> None:
    """Refuse when a file moved since the caller's page was made (a stale page)."""
    for path, oid in (expected or {}).items():
        now = snap.oid(path)
        if now != oid:
            raise StaleWrite(
                f"{path} changed since this page was made "
                f"({'it was absent' if oid is None else f'you saw {oid[:12]}'}, "
                f"{'now it is gone' if now is None else f'HEAD has {now[:12]}'}); "
                "reload the page, check the newer version and redo your action"
            )


def _archive_moves(
    kind: layout.RecordKind,
    key: str,
    record: records.Record,
    original: str,
    now: dt.datetime,
    status: str,
    note: str = "",
) -> tuple[FileChange, FileChange]:
    """Delete the active record file and add its archive copy with the new status."""
    outcome = status if kind == "proposal" else ""
    archive = layout.archive_path(kind, key, str(uuid.uuid4()), outcome)
    text = records.archived_text(record, original, key, now, status, note)
    return (
        FileChange(layout.record_path(kind, key), None),
        FileChange(archive, text.encode()),
    )


_BOUNDED_FILES = ("USER.md", "MEMORY.md")


def _topic_slug(title: str) -> str:
    """The records' slug of ``title``; a title with no ASCII letter or digit (all
    Chinese, say) would be ``item`` for every such title, so it gets the record
    key's UUID too and stays its own note."""
    slug = keys.sanitize_slug(keys.normalized_title_key(title))
    return slug if slug and slug != "item" else keys.record_key(title)


def entry_file(path: str) -> str:
    """A file whose entries may be edited: markdown, outside continuity/, not a daily
    note, not SOUL.md or IDENTITY.md (the same rule as a proposal's target)."""
    return check_proposal_target(path)


def _user_paths(path: str) -> tuple[str, ...]:
    """``(path,)`` when ``path`` is a person note ``users/<id>.md``, else ``()``."""
    return (path,) if layout.user_id_of(path) is not None else ()


def _quote(text: str, limit: int = 50) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return f'"{short}"'


def _area(path: str) -> str:
    kind = layout.kind_of(path)
    return {"persona": "persona", "daily": "daily", "topic": "memory"}.get(kind, "files")


def _record_path(kind: layout.RecordKind, key: str) -> str:
    if not records.is_key(key):
        raise NotFound(
            f"{key!r} is not a record key; keys look like 'some-title--<uuid>' "
            f"(list them with 'hearth {'proposals' if kind == 'proposal' else 'loops'}')"
        )
    return layout.record_path(kind, key)


def _existing(
    snap: Snapshot, kind: layout.RecordKind, path: str
) -> tuple[records.Record, str] | None:
    data = snap.read(path)
    if data is None:
        return None
    text = decode_text(data, path)
    return records.parse(kind, text), text


def _require(
    snap: Snapshot, kind: layout.RecordKind, path: str, key: str
) -> tuple[records.Record, str]:
    found = _existing(snap, kind, path)
    if found is None:
        what = "pending proposal" if kind == "proposal" else "open loop"
        raise NotFound(f"no {what} with key {key}")
    return found


def _new_target_text(target: str) -> str:
    stem = target.rsplit("/", 1)[-1][: -len(".md")]
    return f"# {stem.replace('-', ' ').capitalize()}\n\n{notes.ENTRIES_HEADING}\n"
