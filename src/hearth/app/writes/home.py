"""The writes of a home, each one commit through the git store: daily
notes, files, restore and rollups here; records (``records``, ``batch``) and memory
entries and topics (``memory``) beside them. The use cases
(``app.usecases.Hearth``) call these under the owner lock."""

from __future__ import annotations

from hearth.app.results import Expected, WriteResult
from hearth.app.writes.batch import BatchWrites
from hearth.app.writes.consolidation import ConsolidationWrites
from hearth.app.writes.key_fix import KeyFixWrites
from hearth.app.writes.memory import MemoryWrites, entry_file
from hearth.app.writes.records import RecordWrites
from hearth.app.writes.supersede import replaceable
from hearth.app.writes.undo import UndoWrites
from hearth.app.writes.writer import AfterWrite, check_agent_persona, check_expected
from hearth.domain import entries, facts, layout, notes, rollup
from hearth.domain.clock import Clock
from hearth.domain.paths import normalize
from hearth.domain.text import decode_text
from hearth.errors import NotFound, StaleWrite, TooLarge
from hearth.store.plans import FileChange, Plan, Snapshot

__all__ = ["AfterWrite", "Clock", "HomeWrites"]


class HomeWrites(
    RecordWrites, KeyFixWrites, MemoryWrites, BatchWrites, UndoWrites, ConsolidationWrites
):
    """Every write of a home (and the reads they share)."""

    def entry_add(
        self,
        path: str,
        entry: str,
        actor: str,
        section: str | None = None,
        *,
        agent: bool = False,
    ) -> WriteResult:
        """Add an entry (under ``## <section>`` when named); ``agent``: a
        write-scoped caller. Where the home keeps persona and memory files to
        proposals for agents (``[agents] persona``), an agent's entry becomes a
        proposal for the person (the answer names it); so does, in any home, an
        agent's entry that restates a fact the file holds with a new value
        (``domain/facts.py``), which the merge then puts in that fact's place."""
        target = entry_file(path)
        if agent and self.settings.agent_persona == "proposals" and layout.is_persons_file(target):
            text = entries.clean_entry(entry)
            return self.propose(f"Add to {target}: {text[:60]}", [text], actor, target, agent=True)
        if agent and layout.is_persons_file(target):
            # An agent's new value for a fact the file holds replaces it once the
            # person merges it: the agent proposes, the person approves.
            text = entries.clean_entry(entry)
            data = self.store.snapshot().read(target)
            held = replaceable(decode_text(data, target)) if data is not None else []
            found = facts.restated_in(text, held)
            if found is not None:
                title = f"Replace in {target}: {found.old[:60]}"
                return self.propose(title, [text], actor, target, agent=True)
        return super().entry_add(path, entry, actor, section, agent=agent)

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

        def planner(snap: Snapshot) -> Plan:
            return Plan(f"daily: {summary}", (FileChange(path, append(snap.read(path)), append),))

        result = self._commit(planner, "daily.append", actor)
        return WriteResult(result.commit, path, result.changed)

    def put(
        self,
        path: str,
        content: bytes,
        actor: str,
        expected_oid: str | None = None,
        message: str | None = None,
        *,
        agent: bool = False,
    ) -> WriteResult:
        """Write a whole file; ``agent``: a write-scoped caller (its commit is marked
        ``Hearth-By: agent``; a persona or memory file may be kept to proposals)."""
        path = normalize(path)
        decode_text(content, path)
        check_agent_persona(self.settings, path, agent)

        def planner(snap: Snapshot) -> Plan:
            if expected_oid is not None and snap.oid(path) != expected_oid:
                raise StaleWrite(
                    f"{path} changed since you read it (HEAD has {snap.oid(path)}, "
                    f"you expected {expected_oid}); read it again and redo your edit"
                )
            # hearth names what it did; the caller's words are theirs, in the body,
            # so no message reads as another operation ("persona: restore ...").
            body = f"Message from {actor}: {' '.join(message.split())}" if message else ""
            return Plan(f"{_area(path)}: update {path}", (FileChange(path, content),), body)

        result = self._commit(planner, "file.put", actor, agent=agent)
        return WriteResult(result.commit, path, result.changed)

    def restore(
        self,
        path: str,
        rev: str,
        actor: str,
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        """Bring ``path`` back as of ``rev``; ``agent``: a write-scoped caller
        (the review page's), whose commit is marked ``Hearth-By: agent``."""
        path = normalize(path)
        old = self.store.snapshot(rev)
        data = old.read(path)
        if data is None:
            raise NotFound(f"{path} does not exist at {rev}")
        short = (old.head or "")[:12]

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            return Plan(
                f"{_area(path)}: restore {path} from {short}",
                (FileChange(path, data),),
                body=f"Restored from commit {old.head}.",
            )

        result = self._commit(planner, "file.restore", actor, agent=agent)
        return WriteResult(result.commit, path, result.changed)

    def rollup(self, week: str | None, actor: str) -> WriteResult:
        """Commit the digest of ISO week ``week`` (default: last week) from its daily notes.

        The digest is a function of the committed notes, so a second run of the
        same week commits nothing.
        """
        label = week or rollup.previous_week(self._now().date())
        days = rollup.week_days(label)
        path = layout.rollup_path(label)

        def planner(snap: Snapshot) -> Plan:
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

        result = self._commit(planner, "rollup.write", actor)
        return WriteResult(result.commit, path, result.changed)


def _area(path: str) -> str:
    kind = layout.kind_of(path)
    return {"persona": "persona", "daily": "daily", "topic": "memory"}.get(kind, "files")
