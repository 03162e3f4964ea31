"""Proposals, open loops and decisions: create or update by title, merge,
reject, edit, resolve, withdraw; each one commit, archived records moved in the
same commit."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

from hearth.app.results import Expected, MergePreview, WriteResult
from hearth.app.writes.consolidation import consolidation_plan, consolidation_preview
from hearth.app.writes.record_files import (
    Who,
    archive_moves,
    changes_decision,
    check_version,
    checked_reason,
    decision_change,
    existing_record,
    record_path_of,
    require_record,
    superseded,
    who,
)
from hearth.app.writes.supersede import merge_entries, preview_entries
from hearth.app.writes.writer import (
    Writer,
    check_expected,
    check_proposal_target,
    new_target_text,
    target_text,
)
from hearth.domain import layout, records
from hearth.domain.text import decode_text
from hearth.errors import Forbidden, InvalidInput
from hearth.store.plans import FileChange, Plan, Snapshot


class RecordWrites(Writer):
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
        """Propose entries for a person to review (an upsert by title). ``agent``:
        the caller is write-scoped (the record says so; see ``records.WHO``);
        ``origin``: hearth's own word for who wrote it when that is not the actor
        (``reflection``, a job hearth ran)."""
        title = records.clean_title(title)
        cleaned = tuple(dict.fromkeys(records.clean_entry(e) for e in entries))
        if not cleaned:
            raise InvalidInput("a proposal needs at least one entry")
        checked_target = check_proposal_target(target) if target else None
        if checked_target is not None:
            self._refuse_lookalike(checked_target)  # the merge would create it

        def build(stamp: str) -> records.Proposal:
            return records.Proposal(
                title=title,
                entries=cleaned,
                created=stamp,
                updated=stamp,
                rationale=" ".join(rationale.split()),
                target=checked_target or layout.DEFAULT_PROPOSAL_TARGET,
            )

        by = who(origin or actor, source, agent)
        return self._save_record("proposal", title, build, actor, by)

    def _save_record(
        self,
        kind: layout.RecordKind,
        title: str,
        build: Callable[[str], records.Record],
        actor: str,
        by: Who,
        persons: Callable[[records.Record], tuple[str, Plan]] | None = None,
    ) -> WriteResult:
        """Create the record for ``title``, or update the one with the same key,
        with hearth's ``by`` fields (``who``). An agent's write over the person's
        record is refused (``Forbidden``), or, given ``persons``, becomes what
        ``persons`` makes of it (a proposal to change it: its key and plan)."""
        spec = layout.RECORD_KINDS[kind]
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
        written = [key]
        updated = [False]

        def planner(snap: Snapshot) -> Plan:
            written[:] = [key]
            found = existing_record(snap, kind, path)
            existing = found[0] if found else None
            fresh = by.stamp(build(records.timestamp(self._now())))
            if (
                existing is not None
                and records.is_agents(fresh)
                and not records.is_agents(existing)
            ):
                if persons is None:
                    raise Forbidden(
                        f"{spec.active_name} {title!r} is the person's; an agent cannot "
                        "change it (propose the change instead)"
                    )
                proposed, plan = persons(fresh)
                written[:] = [proposed, "proposal"]
                return plan
            updated[0] = existing is not None
            record = records.upsert(existing, fresh)
            subject = f"{spec.plural}: {'update' if existing else spec.create_verb} {title}"
            return Plan(subject, (FileChange(path, records.render(record, key).encode()),))

        result = self._commit(planner, f"{kind}.create", actor, key)
        if len(written) == 2:  # the person's record stands; a proposal to change it was made
            return WriteResult(
                result.commit,
                layout.record_path("proposal", written[0]),
                result.changed,
                written[0],
            )
        return WriteResult(result.commit, path, result.changed, key, updated=updated[0])

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
        """Append the proposal's entries to its target and archive it, one commit.

        ``version``: the blob id of the proposal the person was shown (``hearth
        proposals``, the page, the API's list); a proposal changed since is
        refused (``StaleWrite``, "changed since you read it"). ``leave_out``:
        entries of the proposal not to add (the review page leaves out what the
        home already holds in other words); ``replace``: proposed entry -> the
        target's entry it replaces in place (a person's choice to reword a known
        entry); ``fold``: proposed entry -> the target's entry it is folded into
        (review's default for a known entry that adds words,
        ``domain/known_folds.py``). All must name the proposal's own entries. A
        proposal to change
        a decision (``decision_change``) supersedes that decision."""
        path = record_path_of("proposal", key)
        replaced: list[dict[str, object]] = []

        def planner(snap: Snapshot) -> Plan:
            replaced.clear()  # a plan made again on a moved tip says what it did
            check_expected(snap, expected)
            check_version(snap, path, version, lambda: self.files.read(path))
            proposal, original = require_record(snap, "proposal", path, key)
            assert isinstance(proposal, records.Proposal)
            archived = archive_moves("proposal", key, proposal, original, self._now(), "merged")
            consolidating = consolidation_plan(snap, proposal, archived)
            if consolidating is not None:
                return consolidating
            if changes_decision(proposal):
                by = who(actor, "", agent=False)
                _before, _after, change = superseded(snap, proposal, self._now(), by)
                return Plan(
                    f"decisions: supersede {proposal.target} from {proposal.title}",
                    (change, *archived),
                )
            target = check_proposal_target(proposal.target)
            before = target_text(snap, target)
            merged = merge_entries(
                snap,
                target,
                before,
                proposal,
                self._now(),
                leave_out,
                replace or {},
                key,
                fold=fold,
            )
            replaced.extend(
                {**r.as_dict(), "kept_at": kept.path}
                for r, kept in zip(merged.replaced, merged.records, strict=True)
            )
            others = [FileChange(p, t.encode()) for p, t in merged.others.items()]
            changes = [*others, *merged.records, *archived]
            if merged.text != before:
                changes.insert(0, FileChange(target, merged.text.encode()))
            return Plan(
                f"proposals: merge {proposal.title} into {target}",
                tuple(changes),
                body=merged.body(target),
            )

        result = self._commit(planner, "proposal.merge", actor, key)
        return WriteResult(result.commit, path, result.changed, key, replaced=tuple(replaced))

    def reject(
        self, key: str, reason: str, actor: str, *, expected: Expected | None = None
    ) -> WriteResult:
        record_path_of("proposal", key)  # a malformed key is not found, whatever the reason
        reason = checked_reason(reason, "rejecting the proposal")
        return self._archive("proposal", key, ("reject", "rejected"), reason, actor, expected)

    def _archive(
        self,
        kind: layout.RecordKind,
        key: str,
        how: tuple[str, str],
        note: str,
        actor: str,
        expected: Expected | None,
        *,
        reason: bool = True,
        agent: bool = False,
    ) -> WriteResult:
        """Move an active record to its archive with ``how``'s outcome (the verb of
        the commit subject, the status), ``note`` kept in its note field and, when
        it is a ``reason``, in the commit body. One commit."""
        verb, status = how
        path = record_path_of(kind, key)
        spec = layout.RECORD_KINDS[kind]

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            record, original = require_record(snap, kind, path, key)
            if agent and not records.is_agents(record):
                raise Forbidden(
                    f"{spec.active_name} {record.title!r} is the person's: only they can "
                    f"{verb} it (an admin token); an agent may say so in a note or a loop"
                )
            return Plan(
                f"{spec.plural}: {verb} {record.title}",
                archive_moves(kind, key, record, original, self._now(), status, note),
                body=f"Reason: {note}" if reason else "",
            )

        result = self._commit(planner, f"{kind}.{verb}", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

    def preview_merge(
        self, key: str, leave_out: Sequence[str] = (), fold: Mapping[str, str] | None = None
    ) -> MergePreview:
        """The target's text before and after merging ``key`` (without
        ``leave_out``, with ``fold``), as the merge would compute it now (from
        HEAD), with the blob ids it was computed from."""
        path = record_path_of("proposal", key)
        snap = self.store.snapshot()
        proposal, _original = require_record(snap, "proposal", path, key)
        assert isinstance(proposal, records.Proposal)
        consolidating = consolidation_preview(snap, key, path, proposal)
        if consolidating is not None:
            return consolidating
        if changes_decision(proposal):
            before, after, _change = superseded(snap, proposal, self._now(), who("", "", False))
            return MergePreview(
                key,
                path,
                snap.oid(path),
                proposal.target,
                snap.oid(proposal.target),
                before,
                after,
                proposal.entries,
                (),
            )
        target = check_proposal_target(proposal.target)
        current = snap.read(target)
        before = decode_text(current, target) if current is not None else ""
        start = before if current is not None else new_target_text(target)
        after, added, skipped = preview_entries(start, proposal, leave_out, fold)
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
        agent: bool = False,
    ) -> WriteResult:
        """Replace a pending proposal's entries (a person's edit before merging).

        ``propose`` with the same title only ever adds entries; this one sets
        them, so an entry can be reworded or dropped. One commit. ``agent``: a
        write-scoped caller, who may edit only a proposal an agent made (as
        ``propose`` may not add to the person's), since the proposal keeps its
        ``by`` and would show the agent's entries as the person's.
        """
        path = record_path_of("proposal", key)
        cleaned = tuple(dict.fromkeys(records.clean_entry(e) for e in new_entries if e.strip()))
        if not cleaned:
            raise InvalidInput("a proposal needs at least one entry (reject it to drop it)")

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            proposal, _original = require_record(snap, "proposal", path, key)
            assert isinstance(proposal, records.Proposal)
            if agent and not records.is_agents(proposal):
                raise Forbidden(
                    f"the proposal {proposal.title!r} is the person's: only they can edit "
                    "it (an admin token); an agent may propose its own"
                )
            revised = dataclasses.replace(
                proposal, entries=cleaned, updated=records.timestamp(self._now())
            )
            return Plan(
                f"proposals: edit {proposal.title}",
                (FileChange(path, records.render(revised, key).encode()),),
            )

        result = self._commit(planner, "proposal.edit", actor, key)
        return WriteResult(result.commit, path, result.changed, key)

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
        title = records.clean_title(title)

        def build(stamp: str) -> records.OpenLoop:
            return records.OpenLoop(
                title=title,
                created=stamp,
                updated=stamp,
                summary=summary.strip(),
                next_step=" ".join(next_step.split()),
            )

        return self._save_record("loop", title, build, actor, who(actor, source, agent))

    def resolve_loop(
        self,
        key: str,
        actor: str,
        note: str = "",
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        """Archive an open loop; ``agent``: only a loop an agent opened."""
        resolution = " ".join(note.split())
        return self._archive(
            "loop",
            key,
            ("resolve", "resolved"),
            resolution,
            actor,
            expected,
            reason=False,
            agent=agent,
        )

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
        """Record a decision, or supersede the one with the same title (its text
        and why replaced, ``created`` kept). An agent's decision on the title of
        the person's own becomes a proposal to change it, for the person to merge
        or reject; the decision stays as it is meanwhile."""
        title = records.clean_title(title)
        text = decision.strip()
        if not text:
            raise InvalidInput("a decision needs its text (--decision)")
        if not title:
            raise InvalidInput("a decision needs a title (--title)")

        def build(stamp: str) -> records.Decision:
            return records.Decision(
                title=title,
                created=stamp,
                updated=stamp,
                decision=text,
                why=" ".join(why.split()),
            )

        by = who(actor, source, agent)
        return self._save_record(
            "decision", title, build, actor, by, lambda fresh: self._change_plan(fresh, by)
        )

    def _change_plan(self, fresh: records.Record, by: Who) -> tuple[str, Plan]:
        """The plan that proposes ``fresh`` (an agent's decision) as a change to the
        person's decision of the same title: a proposal whose target is the
        decision's file, merged by ``merge`` as a supersede."""
        assert isinstance(fresh, records.Decision)
        proposal = by.stamp(decision_change(fresh, layout.record_path("decision", fresh.key)))
        key = proposal.key
        path = layout.record_path("proposal", key)
        return key, Plan(
            f"proposals: propose a change to the decision {fresh.title}",
            (FileChange(path, records.render(proposal).encode()),),
        )

    def withdraw_decision(
        self,
        key: str,
        reason: str,
        actor: str,
        *,
        expected: Expected | None = None,
        agent: bool = False,
    ) -> WriteResult:
        """Archive a decision with a reason; ``agent``: only a decision an agent made."""
        record_path_of("decision", key)  # a malformed key is not found, whatever the reason
        reason = checked_reason(reason, "withdrawing the decision")
        return self._archive(
            "decision", key, ("withdraw", "withdrawn"), reason, actor, expected, agent=agent
        )
