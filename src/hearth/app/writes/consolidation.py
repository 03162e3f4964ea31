"""Consolidation proposals written and applied (``domain/consolidation.py``
says what they are; ``app/consolidate.py`` decides when hearth makes one).

Making one is one commit that adds its record (hearth's own, source
``consolidation``); approving one goes through the ordinary merge
(``RecordWrites.merge``), which asks ``consolidation_plan`` here for the
changes: the hot file, the destination note and the archived record, in one
commit."""

from __future__ import annotations

from hearth.app.results import MergePreview, WriteResult
from hearth.app.writes.record_files import who
from hearth.app.writes.writer import Writer, target_text
from hearth.domain import consolidation, layout, records
from hearth.domain.consolidation import Consolidation
from hearth.domain.text import counted, decode_text
from hearth.errors import StaleWrite
from hearth.store.plans import FileChange, Plan, Snapshot

#: Who makes consolidation proposals (the record's ``source``; commits say ``hearth``).
SOURCE = "consolidation"
ACTOR = "hearth"


class ConsolidationWrites(Writer):
    def propose_consolidation(self, found: Consolidation) -> WriteResult | None:
        """Add ``found``'s proposal, one commit; None when a proposal of that
        title is already pending (it is never extended: a person reviews what
        was proposed)."""
        proposal = consolidation.as_proposal(found, "")
        key = proposal.key
        path = layout.record_path("proposal", key)

        def planner(snap: Snapshot) -> Plan:
            if snap.entry(path) is not None:
                return Plan("proposals: nothing to consolidate", ())
            stamp = records.timestamp(self._now())
            fresh = who(SOURCE, "", agent=False).stamp(consolidation.as_proposal(found, stamp))
            return Plan(
                f"proposals: propose {found.title}",
                (FileChange(path, records.render(fresh, key).encode()),),
                body=fresh.rationale,
            )

        result = self._commit(planner, "proposal.create", ACTOR, key)
        if not result.changed:
            return None
        return WriteResult(result.commit, path, result.changed, key, updated=False)


def consolidation_plan(
    snap: Snapshot,
    proposal: records.Proposal,
    archived: tuple[FileChange, ...],
) -> Plan | None:
    """The changes that approve ``proposal`` when it is a consolidation (the
    hot file, a move's destination note, the archived record); None for any
    other proposal."""
    found = consolidation.of_proposal(proposal)
    if found is None:
        return None
    source = snap.read(found.target)
    text = decode_text(source, found.target) if source is not None else ""
    note = None
    if found.action == consolidation.MOVE:
        data = snap.read(found.destination)
        note = decode_text(data, found.destination) if data is not None else None
    new_source, new_note = consolidation.apply(found, text, note)
    changes = [FileChange(found.target, new_source.encode())]
    n = counted(len(found.entries), "entry", "entries")
    if new_note is not None:
        changes.append(FileChange(found.destination, new_note.encode()))
        body = f"Moved {n} from {found.target} to {found.destination}; left: {found.leaves}"
    else:
        body = f"Folded {n} of {found.target} into one: {found.leaves}"
    return Plan(f"proposals: merge {proposal.title}", (*changes, *archived), body=body)


def apply_to_texts(found: Consolidation, snap: Snapshot, texts: dict[str, str]) -> None:
    """Apply ``found`` to ``texts`` (path -> text, read from ``snap`` when absent):
    a batch merge approves consolidations among other proposals in its one commit."""
    for path in filter(None, (found.target, found.destination)):
        if path not in texts:
            texts[path] = target_text(snap, path)
    note = texts.get(found.destination) if found.destination else None
    texts[found.target], moved = consolidation.apply(found, texts[found.target], note)
    if moved is not None:
        texts[found.destination] = moved


def consolidation_preview(
    snap: Snapshot, key: str, path: str, proposal: records.Proposal
) -> MergePreview | None:
    """The hot file before and after approving ``proposal`` when it is a
    consolidation (after = before when it is stale); None for any other."""
    found = consolidation.of_proposal(proposal)
    if found is None:
        return None
    data = snap.read(found.target)
    before = decode_text(data, found.target) if data is not None else ""
    note = None
    if found.destination:
        held = snap.read(found.destination)
        note = decode_text(held, found.destination) if held is not None else None
    try:
        after, _moved = consolidation.apply(found, before, note)
    except StaleWrite:
        after = before
    return MergePreview(
        key, path, snap.oid(path), found.target, snap.oid(found.target), before, after, (), ()
    )
