"""What every write shares (``Writer``, the class each write class extends): one
commit through the git store, its planned files checked by the validation rules
and the size bounds first, and whoever indexes writes told of the paths once it
stands.

Every write method (in ``home``, ``records``, ``batch`` and ``memory``)
builds a *planner*, a function of HEAD's snapshot to a plan, so that when
the branch moves under it the store can simply ask again on the new tip: a
daily append lands on the newest note, a merge reads the newest MEMORY.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Protocol

from hearth.app.parts import HomeParts
from hearth.app.results import Expected
from hearth.domain import layout, notes
from hearth.domain.paths import normalize
from hearth.domain.settings import Settings
from hearth.domain.text import decode_text
from hearth.domain.validation import check_blob, check_new_path
from hearth.errors import Forbidden, InvalidInput, StaleWrite, TooLarge, ValidationFailed
from hearth.store.git import Planned
from hearth.store.plans import CommitResult, Plan, Snapshot, Trailers


class AfterWrite(Protocol):
    """Told the paths of each commit a write made, and the commit (to index them
    before the write returns); its failures never undo the commit.

    ``planned`` is told, while the store commits, what the commit will change
    (to start indexing it meanwhile); then exactly one of ``written`` (the
    commit stands) or ``abandoned`` (no commit: it failed, or changed nothing)."""

    def planned(self, files: Planned) -> None: ...

    def written(self, paths: tuple[str, ...], commit: str | None = None) -> None: ...

    def abandoned(self) -> None: ...


class Writer:
    """What a home's writes are made of: its files, its store, its settings,
    its clock, and who is told of each commit."""

    def __init__(self, parts: HomeParts, after_write: AfterWrite | None = None) -> None:
        #: The home's parts as the composition root built them (what reads take).
        self.parts = parts
        self.root = parts.root
        self.files = parts.files
        self.store = parts.store
        self.settings = parts.settings
        self.clock = parts.clock
        self._after_write = after_write

    def _commit(
        self,
        planner: Callable[[Snapshot], Plan],
        op: str,
        actor: str,
        record: str | None = None,
        *,
        records: tuple[str, ...] = (),
        agent: bool = False,
        undoes: str = "",
    ) -> CommitResult:
        def validated(snap: Snapshot) -> Plan:
            plan = planner(snap)
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
                if snap.entry(change.path) is None:
                    failures += check_new_path(change.path, snap.children)
            if failures:
                raise ValidationFailed(failures)
            return plan

        trailers = Trailers(
            op=op,
            actor=actor,
            record=record,
            more_records=records,
            by="agent" if agent else "",
            undoes=undoes,
        )
        after = self._after_write
        if after is None:
            return self.store.commit(validated, trailers)
        try:
            result = self.store.commit(validated, trailers, planned=after.planned)
        except BaseException:
            after.abandoned()
            raise
        if result.changed and result.paths:
            after.written(tuple(result.paths), result.commit)
        else:
            after.abandoned()
        return result

    def _refuse_lookalike(self, path: str) -> None:
        """Refuse ``path`` when HEAD lacks it and its name reads as one beside it
        (``lookalike-name``): a write that would create it later is refused now."""
        snap = self.store.snapshot()
        if snap.entry(path) is None and (failures := check_new_path(path, snap.children)):
            raise ValidationFailed(failures)

    def _now(self) -> dt.datetime:
        return self.clock().astimezone(dt.UTC)


def check_agent_persona(settings: Settings, path: str, agent: bool) -> None:
    """Refuse an agent's direct change to a persona or memory file, or to markdown
    a runtime loads as its instructions (``layout.is_runtime_file``), when the
    home keeps those to proposals for agents (``[agents] persona = "proposals"``)."""
    kept = layout.is_persons_file(path) or layout.is_runtime_file(path)
    if agent and settings.agent_persona == "proposals" and kept:
        raise Forbidden(
            f"this home keeps {path} to proposals for agents "
            '([agents] persona = "proposals" in hearth.toml): propose the change '
            "for the person to merge"
        )


def check_proposal_target(target: str) -> str:
    path = normalize(target)
    if not layout.takes_entries(path):
        raise InvalidInput(
            f"{target!r} cannot receive memory entries; use MEMORY.md, USER.md, "
            "memory/topics/<topic>.md or another markdown file outside continuity/"
        )
    return path


def check_expected(snap: Snapshot, expected: Expected | None) -> None:
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


def new_target_text(target: str) -> str:
    stem = target.rsplit("/", 1)[-1][: -len(".md")]
    return f"# {stem.replace('-', ' ').capitalize()}\n\n{notes.ENTRIES_HEADING}\n"


def target_text(snap: Snapshot, target: str) -> str:
    """What a merge appends entries to: the target as ``snap`` has it, or the new
    file it starts when there is none."""
    current = snap.read(target)
    return decode_text(current, target) if current is not None else new_target_text(target)
