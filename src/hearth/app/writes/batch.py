"""Many proposals merged, or rejected, in one commit.

A person who reviews dozens of proposals a week handles a group of
near-duplicates, or a selection, as one decision; so it is one commit
(``proposals: merge 3 proposals``, one ``Hearth-Record`` trailer per key),
not one per proposal:

- all or nothing: when one proposal of the batch is gone, changed since the
  page was made (``expected``), or its merge would push its target over its
  bound, nothing is written and the caller is told which; a batch that lands
  half-way would leave the person to work out what is left;
- proposals for the same target are applied in order to one text, so an
  entry two of them propose lands once (the merge's exact-duplicate skip),
  and the target's bound is checked on the text that is committed;
- one ``git revert`` undoes the decision, and the history reads as it
  happened. Each proposal still gets its own archive file, with its outcome.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hearth.app.results import BatchResult, Expected
from hearth.app.writes.consolidation import apply_to_texts
from hearth.app.writes.record_files import (
    archive_moves,
    checked_reason,
    record_path_of,
    require_record,
)
from hearth.app.writes.supersede import merge_entries
from hearth.app.writes.writer import Writer, check_expected, check_proposal_target, target_text
from hearth.domain import consolidation, records
from hearth.domain.text import counted
from hearth.errors import InvalidInput
from hearth.store.plans import FileChange, Plan, Snapshot

#: Most proposals one batch takes.
MAX_BATCH = 200


def _keys(keys: Sequence[str]) -> tuple[str, ...]:
    unique = tuple(dict.fromkeys(k.strip() for k in keys if k.strip()))
    if not unique:
        raise InvalidInput("choose at least one proposal (give its key)")
    if len(unique) > MAX_BATCH:
        raise InvalidInput(
            f"a batch takes at most {counted(MAX_BATCH, 'proposal')} ({len(unique)} given)"
        )
    for key in unique:
        record_path_of("proposal", key)  # NotFound for what is not a key
    return unique


class BatchWrites(Writer):
    def merge_many(
        self,
        keys: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Mapping[str, Sequence[str]] | None = None,
    ) -> BatchResult:
        """``leave_out``: by key, entries of that proposal not to add (see
        ``RecordWrites.merge``)."""
        chosen = _keys(keys)
        leave = leave_out or {}
        tally: dict[str, int] = {}

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            tally.clear()
            texts: dict[str, str] = {}
            archives: list[FileChange] = []
            superseded: list[FileChange] = []
            lines = []
            for key in chosen:
                proposal, original = require_record(
                    snap, "proposal", record_path_of("proposal", key), key
                )
                assert isinstance(proposal, records.Proposal)
                found = consolidation.of_proposal(proposal)
                if found is not None:
                    apply_to_texts(found, snap, texts)
                    archives += archive_moves(
                        "proposal", key, proposal, original, self._now(), "merged"
                    )
                    lines.append(f"- {proposal.title} ({key}): {found.action}")
                    continue
                target = check_proposal_target(proposal.target)
                if target not in texts:
                    texts[target] = target_text(snap, target)
                merged = merge_entries(
                    snap,
                    target,
                    texts[target],
                    proposal,
                    self._now(),
                    leave.get(key, ()),
                    {},
                    key,
                    target_text(snap, target),
                    others=texts,
                )
                texts[target], added = merged.text, merged.added
                texts.update(merged.others)
                superseded += merged.records
                skipped = len(proposal.entries) - len(added)
                tally["added"] = tally.get("added", 0) + len(added)
                tally["skipped"] = tally.get("skipped", 0) + skipped
                archives += archive_moves(
                    "proposal", key, proposal, original, self._now(), "merged"
                )
                lines.append(
                    f"- {proposal.title} ({key}): added "
                    f"{counted(len(added), 'entry', 'entries')} to {target}, "
                    f"skipped {skipped} already there"
                )
            changes = [
                FileChange(target, text.encode())
                for target, text in texts.items()
                if _changed(snap, target, text)
            ]
            return Plan(
                f"proposals: merge {_count(chosen)}",
                (*changes, *superseded, *archives),
                body="\n".join(lines),
            )

        result = self._commit(planner, "proposal.merge", actor, records=chosen)
        return _tallied(result.commit, result.changed, chosen, "merged", tally)

    def keep_one(
        self,
        keep: str,
        others: Sequence[str],
        actor: str,
        *,
        expected: Expected | None = None,
        leave_out: Sequence[str] = (),
    ) -> BatchResult:
        """A group of near-duplicates settled as one decision, one commit: merge
        ``keep`` (without ``leave_out``, its entries the home already holds) and
        reject ``others`` with the reason that they repeat it."""
        rest = tuple(k for k in _keys(others) if k != keep.strip())
        chosen = _keys([keep, *rest])
        if not rest:
            raise InvalidInput("choose the proposals to reject beside the one to keep")
        tally: dict[str, int] = {}

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            path = record_path_of("proposal", chosen[0])
            proposal, original = require_record(snap, "proposal", path, chosen[0])
            assert isinstance(proposal, records.Proposal)
            target = check_proposal_target(proposal.target)
            before = target_text(snap, target)
            merged = merge_entries(
                snap, target, before, proposal, self._now(), leave_out, {}, chosen[0]
            )
            text, added, note = merged.text, merged.added, merged.note
            tally["added"] = len(added)
            tally["skipped"] = len(proposal.entries) - len(added)
            changes = [FileChange(target, text.encode())] if text != before else []
            changes += [FileChange(p, t.encode()) for p, t in merged.others.items()]
            changes += merged.records
            changes += archive_moves(
                "proposal", chosen[0], proposal, original, self._now(), "merged"
            )
            reason = f"says much the same as {proposal.title!r}, which was kept"
            kept = f"added {len(added)} to {target}; {note}"
            lines = [f"- kept {proposal.title} ({chosen[0]}): {kept}"]
            for key in rest:
                other, moves = self._rejected(snap, key, reason)
                changes += moves
                lines.append(f"- rejected {other.title} ({key}): {reason}")
            return Plan(
                f"proposals: keep {proposal.title}, reject {_count(rest)}",
                tuple(changes),
                body="\n".join(lines),
            )

        result = self._commit(planner, "proposal.merge", actor, records=chosen)
        return _tallied(result.commit, result.changed, chosen, "kept", tally)

    def reject_many(
        self,
        keys: Sequence[str],
        reason: str,
        actor: str,
        *,
        expected: Expected | None = None,
    ) -> BatchResult:
        chosen = _keys(keys)
        reason = checked_reason(reason, "rejecting the proposals")

        def planner(snap: Snapshot) -> Plan:
            check_expected(snap, expected)
            changes: list[FileChange] = []
            lines = []
            for key in chosen:
                proposal, moves = self._rejected(snap, key, reason)
                changes += moves
                lines.append(f"- {proposal.title} ({key})")
            return Plan(
                f"proposals: reject {_count(chosen)}",
                tuple(changes),
                body="\n".join([f"Reason: {reason}", "", *lines]),
            )

        result = self._commit(planner, "proposal.reject", actor, records=chosen)
        return BatchResult(result.commit, result.changed, chosen, "rejected")

    def _rejected(
        self, snap: Snapshot, key: str, reason: str
    ) -> tuple[records.Record, tuple[FileChange, FileChange]]:
        """The proposal ``key`` in HEAD, and its move to the archive as rejected."""
        proposal, original = require_record(snap, "proposal", record_path_of("proposal", key), key)
        return proposal, archive_moves(
            "proposal", key, proposal, original, self._now(), "rejected", reason
        )


def _tallied(
    commit: str | None, changed: bool, keys: tuple[str, ...], outcome: str, tally: dict[str, int]
) -> BatchResult:
    """A merge's result with the entries it added and skipped."""
    return BatchResult(
        commit, changed, keys, outcome, tally.get("added", 0), tally.get("skipped", 0)
    )


def _changed(snap: Snapshot, path: str, text: str) -> bool:
    current = snap.read(path)
    return current is None or current != text.encode()


def _count(keys: Sequence[str]) -> str:
    return f"{len(keys)} proposal{'s' if len(keys) != 1 else ''}"
