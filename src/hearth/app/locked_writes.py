"""Every write of a home as a use case: one method each, under the home's lock.

Each method is the write of ``HomeWrites`` (``app/writes/``) of the same name
and signature, called under the home's lock once every text argument has
passed ``text.refuse_not_text`` (a control character refused, the one gate
every surface's writes pass, so no edge has to remember it). Written out one
by one, so that a reader (or a tool) following a write from its route goes
from ``Hearth.note`` straight to ``HomeWrites.note``.

``Hearth`` (``usecases.py``) takes these methods as its own.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from hearth.app.results import BatchResult, Expected, WriteResult
from hearth.app.writes.home import HomeWrites
from hearth.domain.text import refuse_not_text


class LockedWrites:
    """The writes of ``writes``, each under ``owner`` (set by ``Hearth``)."""

    writes: HomeWrites
    owner: threading.RLock

    def note(self, text: str, title: str | None, actor: str) -> WriteResult:
        _refuse_not_text(text=text, title=title, actor=actor)
        with self.owner:
            return self.writes.note(text, title, actor)

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
        _refuse_not_text(content=content, actor=actor, expected_oid=expected_oid, message=message)
        with self.owner:
            return self.writes.put(path, content, actor, expected_oid, message, agent=agent)

    def restore(
        self,
        path: str,
        rev: str,
        actor: str,
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(rev=rev, actor=actor, expected=expected)
        with self.owner:
            return self.writes.restore(path, rev, actor, expected=expected, agent=agent)

    def rollup(self, week: str | None, actor: str) -> WriteResult:
        _refuse_not_text(week=week, actor=actor)
        with self.owner:
            return self.writes.rollup(week, actor)

    def propose(
        self,
        title: str,
        entries: Sequence[str],
        actor: str,
        target: str | None = None,
        rationale: str = "",
        source: str = "",
        *,
        agent: bool = False,
        origin: str | None = None,
    ) -> WriteResult:
        _refuse_not_text(
            title=title,
            entries=entries,
            actor=actor,
            rationale=rationale,
            source=source,
            origin=origin,
        )
        with self.owner:
            return self.writes.propose(
                title, entries, actor, target, rationale, source, agent=agent, origin=origin
            )

    def merge(
        self,
        key: str,
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Sequence[str] = (),
        replace: Mapping[str, str] | None = None,
        version: str | None = None,
        fold: Mapping[str, str] | None = None,
    ) -> WriteResult:
        _refuse_not_text(
            key=key,
            actor=actor,
            expected=expected,
            leave_out=leave_out,
            replace=replace,
            version=version,
            fold=fold,
        )
        with self.owner:
            return self.writes.merge(
                key,
                actor,
                expected=expected,
                leave_out=leave_out,
                replace=replace,
                version=version,
                fold=fold,
            )

    def reject(
        self, key: str, reason: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        _refuse_not_text(key=key, reason=reason, actor=actor, expected=expected)
        with self.owner:
            return self.writes.reject(key, reason, actor, expected=expected)

    def merge_many(
        self,
        keys: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Mapping[str, Sequence[str]] | None = None,
    ) -> BatchResult:
        _refuse_not_text(keys=keys, actor=actor, expected=expected, leave_out=leave_out)
        with self.owner:
            return self.writes.merge_many(keys, actor, expected=expected, leave_out=leave_out)

    def reject_many(
        self, keys: Sequence[str], reason: str, actor: str, *, expected: Expected | None = None
    ) -> BatchResult:
        _refuse_not_text(keys=keys, reason=reason, actor=actor, expected=expected)
        with self.owner:
            return self.writes.reject_many(keys, reason, actor, expected=expected)

    def keep_one(
        self,
        keep: str,
        others: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Sequence[str] = (),
    ) -> BatchResult:
        _refuse_not_text(
            keep=keep, others=others, actor=actor, expected=expected, leave_out=leave_out
        )
        with self.owner:
            return self.writes.keep_one(keep, others, actor, expected=expected, leave_out=leave_out)

    def revise_proposal(
        self,
        key: str,
        new_entries: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(key=key, new_entries=new_entries, actor=actor, expected=expected)
        with self.owner:
            return self.writes.revise_proposal(
                key, new_entries, actor, expected=expected, agent=agent
            )

    def add_loop(
        self,
        title: str,
        actor: str,
        summary: str = "",
        next_step: str = "",
        source: str = "",
        *,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(
            title=title, actor=actor, summary=summary, next_step=next_step, source=source
        )
        with self.owner:
            return self.writes.add_loop(title, actor, summary, next_step, source, agent=agent)

    def resolve_loop(
        self,
        key: str,
        actor: str,
        note: str = "",
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(key=key, actor=actor, note=note, expected=expected)
        with self.owner:
            return self.writes.resolve_loop(key, actor, note, expected=expected, agent=agent)

    def decide(
        self,
        title: str,
        decision: str,
        actor: str,
        why: str = "",
        source: str = "",
        *,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(title=title, decision=decision, actor=actor, why=why, source=source)
        with self.owner:
            return self.writes.decide(title, decision, actor, why, source, agent=agent)

    def withdraw_decision(
        self,
        key: str,
        reason: str,
        actor: str,
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(key=key, reason=reason, actor=actor, expected=expected)
        with self.owner:
            return self.writes.withdraw_decision(key, reason, actor, expected=expected, agent=agent)

    def entry_add(
        self, path: str, entry: str, actor: str, section: str | None = None, *, agent: bool = False
    ) -> WriteResult:
        _refuse_not_text(entry=entry, actor=actor, section=section)
        with self.owner:
            return self.writes.entry_add(path, entry, actor, section, agent=agent)

    def entry_replace(
        self, path: str, old: str, new: str, actor: str, *, agent: bool = False
    ) -> WriteResult:
        _refuse_not_text(old=old, new=new, actor=actor)
        with self.owner:
            return self.writes.entry_replace(path, old, new, actor, agent=agent)

    def entry_remove(self, path: str, old: str, actor: str, *, agent: bool = False) -> WriteResult:
        _refuse_not_text(old=old, actor=actor)
        with self.owner:
            return self.writes.entry_remove(path, old, actor, agent=agent)

    def entry_settle(self, record_id: str, keep: str, actor: str) -> WriteResult:
        _refuse_not_text(record_id=record_id, keep=keep, actor=actor)
        with self.owner:
            return self.writes.entry_settle(record_id, keep, actor)

    def topic(
        self,
        title: str,
        actor: str,
        *,
        content: str | None = None,
        append: str | None = None,
        agent: bool = False,
    ) -> WriteResult:
        _refuse_not_text(title=title, actor=actor, content=content, append=append)
        with self.owner:
            return self.writes.topic(title, actor, content=content, append=append, agent=agent)

    def undo_agent_change(
        self, commit: str, path: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        _refuse_not_text(commit=commit, actor=actor, expected=expected)
        with self.owner:
            return self.writes.undo_agent_change(commit, path, actor, expected=expected)


def _refuse_not_text(**arguments: object) -> None:
    """Refuse a write's argument (text, or text inside a list or mapping) that is
    not text; bytes are a whole file, which the validation rules check. Paths
    are not given here: ``paths.normalize`` judges those (a control character
    in a path is refused there, with its own message)."""
    for name, value in arguments.items():
        _refuse(name, value)


def _refuse(name: str, value: object) -> None:
    if isinstance(value, str):
        refuse_not_text(name, value)
    elif isinstance(value, list | tuple):
        for item in value:
            _refuse(name, item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _refuse(name, key)
            _refuse(name, item)
