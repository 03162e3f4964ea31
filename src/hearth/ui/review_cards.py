"""The Review tab's cards: what each proposal's card shows and which action it
offers first, groups of near-duplicates together, and the summary line's
filters (``ui/review.py`` serves the page and its forms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hearth.app.reads.review_board import ReviewBoard
from hearth.domain import layout, records
from hearth.domain.known_folds import says_all
from hearth.errors import HearthError

if TYPE_CHECKING:
    from hearth.app.served.service import ServedHearth

#: Filters of the summary line: which cards ``?show=`` keeps.
FILTERS = ("all", "known", "grouped", "over", "new")


#: The page's card action for the board's ``default_action`` (and whether the
#: card is one of hearth's consolidations).
_PAGE_ACTION = {
    ("merge", False): "merge",
    ("reject", False): "known",
    ("none", False): "over",
    ("merge", True): "consolidate",
    ("reject", True): "stale",
}


def item(
    view: Any, preview: Any, error: str | None, found: Any, known: Sequence[str]
) -> dict[str, Any]:
    entries = list(view.record.entries) if view.record is not None else []
    over = found.over_bound if found else None
    folding = found.consolidation if found else None
    if view.record is None or preview is None:
        action = "none"
    elif found is None:
        action = "merge"
    else:  # the board's default action, which the API answers too, as the page shows it
        action = _PAGE_ACTION[found.default_action, folding is not None]
    return {
        "view": view,
        "preview": preview,
        "error": error,
        "review": found,
        "matches": {m.entry: m.matches for m in found.matches} if found else {},
        "replaces": {r.new: r for r in found.replaces} if found else {},
        "folds": {f.entry: f for f in found.folds} if found else {},
        "restated": found.restated() if found else [],
        "known": tuple(known),
        "new": [e for e in entries if e not in known],
        "over": over,
        "consolidation": folding,
        "action": action,
    }


def blocks(items: list[dict[str, Any]], board: ReviewBoard) -> list[dict[str, Any]]:
    """The proposals in page order, each group of near-duplicates together at
    the place of its first member; a group's suggested keeper is the member
    with the most new entries (the first, on a tie)."""
    by_key = {p["view"].key: p for p in items}
    group_of = {k: g for g in board.groups for k in g}
    blocks: list[dict[str, Any]] = []
    shown: set[str] = set()
    for item in items:
        key = item["view"].key
        if key in shown:
            continue
        group = group_of.get(key)
        members = [by_key[k] for k in group if k in by_key] if group else [item]
        shown.update(m["view"].key for m in members)
        keeper = max(members, key=lambda m: (m["preview"] is not None, len(m["new"])))
        anchor = f"g-{group[0]}" if group else f"p-{key}"
        blocks.append(
            {"group": group, "members": members, "keeper": keeper["view"].key, "anchor": anchor}
        )
    return blocks


def shown(block: dict[str, Any], show: str) -> bool:
    members = block["members"]
    if show == "known":
        return any(m["known"] for m in members)
    if show == "grouped":
        return block["group"] is not None
    if show == "over":
        return any(m["over"] for m in members)
    if show == "new":
        return block["group"] is None and all(not m["known"] and not m["over"] for m in members)
    return True


def summary(items: list[dict[str, Any]]) -> dict[str, int]:
    return {
        "all": len(items),
        "known": sum(1 for i in items if i["known"]),
        "grouped": sum(1 for i in items if i["review"] and i["review"].group),
        "over": sum(1 for i in items if i["over"]),
        "new": sum(
            1
            for i in items
            if not i["known"] and not i["over"] and not (i["review"] and i["review"].group)
        ),
    }


def said_by_kept(service: ServedHearth, keep: str, others: Sequence[str]) -> list[str]:
    """The ``others`` of a group every entry of which an entry of ``keep`` says
    (every content word, ``known_folds.says_all``): only those does keeping
    ``keep`` reject; the rest add words and stay pending."""
    terms = service.matcher.likeness_of.terms
    kept = [terms(e) for e in _entries(service, keep)]
    said = []
    for key in others:
        found = _entries(service, key)
        if found and all(any(says_all(k, terms(e)) for k in kept) for e in found):
            said.append(key)
    return said


def _entries(service: ServedHearth, key: str) -> tuple[str, ...]:
    path = layout.record_path("proposal", key) if records.is_key(key) else ""
    try:
        record = records.parse("proposal", service.get_file(path).content)
    except HearthError:
        return ()
    return record.entries if isinstance(record, records.Proposal) else ()
