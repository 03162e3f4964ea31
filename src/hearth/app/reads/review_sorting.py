"""What a merge of one pending proposal does with each of its entries, as the
review board shows it before the person presses a button: the facts it
restates (in its target, or in another hot file: ``writes/supersede.py``),
the entries the home already holds sorted into said already, folded into the
held entry, or new (``domain/known_folds.py``), and so the entries its target
gains, for the bound check."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from hearth.app.writes.supersede import elsewhere
from hearth.domain import records
from hearth.domain.facts import Restatement
from hearth.domain.known_folds import HeldLike, Sorted, folded, sort_known
from hearth.domain.likeness import EntryMatches, Held


def sorted_merge(
    proposal: records.Proposal,
    into: tuple[str, list[Held]],
    files: tuple[Mapping[str, str | None], list[str]],
    entry_matches: Sequence[EntryMatches],
    restated: list[Restatement],
    terms: Callable[[str], frozenset[str]],
) -> tuple[list[Restatement], Sorted, list[str], dict[str, str]]:
    """``into``: the target and its entries; ``files``: the text of each hot
    file read, and their paths; ``restated``: the target's restated facts.
    Answers every restated fact (the target's, then the other hot files'), the
    known entries sorted, the entries the target gains, and the entries
    replaced in place (new text -> held text)."""
    target, held = into
    file_texts, hot = files
    # What restates a fact of USER.md or MEMORY.md (or a person note a
    # proposal targets) when that is not the target: replaced there.
    present = {h.text for h in held}
    skip = present | {r.new for r in restated}
    far = elsewhere(hot, file_texts.get, target, proposal, skip)
    restated = [*restated, *far]
    swapped = {r.new: r.old for r in restated if not r.path}
    faraway = {r.new for r in far}
    like = [
        (m.entry, [HeldLike(h.text, h.path, h.line) for h in m.holding])
        for m in entry_matches
        if m.entry not in swapped and m.entry not in faraway
    ]
    sorting = sort_known(
        [(entry, found) for entry, found in like if found], target, [h.text for h in held], terms
    )
    grown = folded((f.entry, f.into) for f in sorting.folds)
    swapped |= {becomes: was for was, becomes in grown.items() if becomes != was}
    taken = {*sorting.restated, *(f.entry for f in sorting.folds), *faraway}
    new = [e for e in proposal.entries if e not in taken] + [*grown.values()]
    return restated, sorting, new, swapped
