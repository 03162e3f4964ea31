"""Memory entries (one ``- `` line of an ``## Entries`` section), topic notes
and person notes: each change one commit, computed from the committed file."""

from __future__ import annotations

import re
from collections.abc import Callable

from hearth.app.results import WriteResult
from hearth.app.writes.writer import (
    Writer,
    check_agent_persona,
    check_proposal_target,
    new_target_text,
)
from hearth.domain import entries, entry_merge, keys, layout, notes, records
from hearth.domain.text import decode_text
from hearth.errors import Conflict, EntryMissing, HearthError, InvalidInput, NotFound
from hearth.store import conflict_origin, pulled_conflicts
from hearth.store.plans import FileChange, Plan, Snapshot


class MemoryWrites(Writer):
    def entry_list(self, path: str) -> list[entries.Entry]:
        """The entries of a memory file as it is committed (what the operations edit)."""
        path = entry_file(path)
        data = self.store.snapshot().read(path)
        return entries.list_entries(decode_text(data, path)) if data is not None else []

    def entry_add(
        self,
        path: str,
        entry: str,
        actor: str,
        section: str | None = None,
        *,
        agent: bool = False,
    ) -> WriteResult:
        """Add ``entry`` to ``path``: under ``## Entries``, or (a file of named
        sections, as USER.md) at the end of ``## <section>``; none named, USER.md's
        go under its default section when it has one (``DEFAULT_SECTIONS``).
        ``agent``: a write-scoped caller (its commit is marked)."""
        path = entry_file(path)
        text = entries.clean_entry(entry)

        def change(current: str) -> str:
            named = section
            default = entries.DEFAULT_SECTIONS.get(path)
            if (
                named is None
                and default is not None
                and not entries.has_entries_section(current)
                and default in entries.sections_of(current)
            ):
                named = default
            return entries.add_entry(current, text, named)

        return self._edit_entries(
            path, change, f"add {_quote(text)}", "memory.add", actor, agent=agent
        )

    def entry_replace(
        self, path: str, old: str, new: str, actor: str, *, agent: bool = False
    ) -> WriteResult:
        path = entry_file(path)
        check_agent_persona(self.settings, path, agent)
        text = entries.clean_entry(new)

        def change(current: str) -> str:
            _only_one(current, old, entries.find_entry(current, old), "replace")
            return entries.replace_entry(current, old, text)

        return self._edit_entries(
            path, change, f"replace with {_quote(text)}", "memory.replace", actor, agent=agent
        )

    def entry_remove(self, path: str, old: str, actor: str, *, agent: bool = False) -> WriteResult:
        path = entry_file(path)
        check_agent_persona(self.settings, path, agent)
        removed: list[str] = []

        def change(current: str) -> str:
            found = entries.find_entry(current, old)
            _only_one(current, old, found, "remove")
            removed[:] = [found.text]
            return entries.remove_entry(current, old)

        return self._edit_entries(
            path, change, "remove {}", "memory.remove", actor, removed, agent=agent
        )

    def _edit_entries(
        self,
        path: str,
        change: Callable[[str], str],
        summary: str,
        op: str,
        actor: str,
        removed: list[str] | None = None,
        *,
        agent: bool = False,
    ) -> WriteResult:
        """One entry change as one commit, computed from HEAD's version of the file.

        The store refuses it when the file holds uncommitted edits (a person is
        editing it), and plans again on a moved tip, so concurrent operations
        never lose each other's entries.
        """

        def planner(snap: Snapshot) -> Plan:
            data = snap.read(path)
            if data is None and path not in (*_BOUNDED_FILES, *_user_paths(path)):
                raise NotFound(
                    f"{path} does not exist; entries go to USER.md, MEMORY.md, "
                    "a users/<id>.md note or a file with an '## Entries' section"
                )
            current = decode_text(data, path) if data is not None else new_target_text(path)
            free_form = path not in _BOUNDED_FILES and not _user_paths(path)
            if free_form and notes.ENTRIES_HEADING not in current.split("\n"):
                # The file as it is now, not the request: 409, as for an entry not there.
                raise Conflict(
                    f"{path} has no '{notes.ENTRIES_HEADING}' section; add one by hand "
                    "(or put the fact in MEMORY.md)"
                )
            updated = change(current)
            what = summary.format(_quote(removed[0])) if removed else summary
            return Plan(f"memory: {path}: {what}", (FileChange(path, updated.encode()),))

        result = self._commit(planner, op, actor, agent=agent)
        return WriteResult(result.commit, path, result.changed)

    def entry_conflicts(self) -> list[entry_merge.ConflictRecord]:
        """The entry conflicts hearth's sync left to settle, oldest file name first,
        then those a plain ``git pull`` left (``mergedriver.py``) while the file
        holds both versions. A record hearth's sync did not commit (forged,
        edited, or never committed) is not one: it is never offered for settling
        (``store/conflict_origin.py``)."""
        found = self._synced_conflicts()
        named = {r.id for r in found}
        return found + [r for _n, r in pulled_conflicts.open_notes(self.root) if r.id not in named]

    def _synced_conflicts(self) -> list[entry_merge.ConflictRecord]:
        found = []
        folder = self.root / layout.ENTRY_CONFLICTS_DIR
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            relative = path.relative_to(self.root).as_posix()
            if not conflict_origin.written_by_sync(self.root, relative):
                continue
            data = self.files.read(relative)
            record = entry_merge.parse_record(relative, decode_text(data, relative) if data else "")
            if record is not None:
                found.append(record)
        return found

    def entry_settle(self, record_id: str, keep: str, actor: str) -> WriteResult:
        """Settle an entry conflict: keep the version the record names as kept
        (``file``) or the other one (``other``; an entry the other side removed
        goes). Both versions stand in the file after the merge; settling leaves
        exactly the one chosen, and removes the record, in one commit."""
        if keep not in ("file", "other"):
            raise InvalidInput("keep 'file' (the version in the file) or 'other'")
        matches = [r for r in self.entry_conflicts() if r.id == record_id.strip()]
        if not matches:
            raise NotFound(f"no entry conflict {record_id!r}; 'hearth memory conflicts' lists them")
        record = matches[0]
        record_file = entry_merge.record_path(record.path, record.id)

        def planner(snap: Snapshot) -> Plan:
            changes = []
            if snap.read(record_file) is not None:
                changes.append(FileChange(record_file, None))
            data = snap.read(record.path)
            current = decode_text(data, record.path) if data is not None else ""
            try:
                updated = _settled(current, record, keep)
            except HearthError as exc:
                raise Conflict(
                    f"{record.path} no longer holds the versions of entry conflict {record.id} "
                    f"({exc.message}); edit it by hand, then delete {record_file}"
                ) from exc
            if updated != current:
                changes.append(FileChange(record.path, updated.encode()))
            return Plan(f"memory: {record.path}: settle entry conflict {record.id}", tuple(changes))

        result = self._commit(planner, "memory.settle", actor)
        # A plain git pull's note of it, if any: settled now.
        for note, pulled in pulled_conflicts.open_notes(self.root, every=True):
            if pulled.id == record.id:
                (self.root / note).unlink(missing_ok=True)
        return WriteResult(result.commit, record.path, result.changed)

    def topic(
        self,
        title: str,
        actor: str,
        *,
        content: str | None = None,
        append: str | None = None,
        agent: bool = False,
    ) -> WriteResult:
        """Create or update ``memory/topics/<slug>.md`` by title, or append a section.

        ``content`` replaces the note's body under its ``# Title`` heading;
        ``append`` adds a section (a ``## `` heading of its first line, or the
        time, then the text) at the end. Exactly one of them. ``agent``: a
        write-scoped caller, whose commit is marked ``Hearth-By: agent`` (a
        rewrite of a topic is listed for the person, as a put of it is).
        """
        title = records.clean_title(title)
        if (content is None) == (append is None):
            raise InvalidInput("give the topic's content, or text to append, not both")
        path = layout.topic_path(_topic_slug(title))
        moment = self._now()

        def planner(snap: Snapshot) -> Plan:
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

        result = self._commit(planner, "topic.write", actor, agent=agent)
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


_BOUNDED_FILES = ("USER.md", "MEMORY.md")


def _held(text: str, shown: str) -> str | None:
    """The entry a record's text names (an entry with sub-bullets is shown as
    ``text / sub``), as ``find_entry`` takes it; None when it is not there."""
    for entry in entries.list_entries(text):
        if entry.text in (shown, shown.split(" / ", 1)[0]):
            return entry.text
    return None


def _settled(text: str, record: entry_merge.ConflictRecord, keep: str) -> str:
    """``text`` holding only the chosen version of a conflict's entry."""
    chosen, dropped = (record.kept, record.other) if keep == "file" else (record.other, record.kept)
    gone = _held(text, dropped) if dropped is not None else None
    if chosen is not None and _held(text, chosen) is None:
        if gone is None:
            raise EntryMissing(f"neither «{record.kept}» nor «{record.other}» is there")
        return entries.replace_entry(text, gone, chosen)
    if gone is not None:
        return entries.remove_entry(text, gone)
    return text


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


def _only_one(text: str, ref: str, found: entries.Entry, verb: str) -> None:
    """Refuses removing or replacing by its text an entry that another reads
    alike: the two may differ in what they hold (sub-bullets), and taking the
    first would lose or change the other's words. ``#N`` names one."""
    if re.fullmatch(r"#\d{1,6}", ref.strip()):
        return  # named by its number
    same = [e for e in entries.list_entries(text) if _nfc(e.text) == _nfc(found.text)]
    if len(same) > 1:
        numbers = " and ".join(f"#{e.number}" for e in same)
        raise Conflict(
            f"entries {numbers} read {found.text!r} alike; say which to {verb} "
            "by its number (list the entries to see them)"
        )


def _nfc(text: str) -> str:
    import unicodedata  # noqa: PLC0415  (only when removing by text)

    return unicodedata.normalize("NFC", text)
