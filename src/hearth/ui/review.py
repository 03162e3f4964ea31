"""The Review page (``/ui/``) and its forms: proposals, groups, loops, decisions.

The safe action is the easy one (issue 41):
- a proposal's entries the home already holds (the same or nearly) are left
  out of its merge unless the person asks for them (``leave`` fields);
- a proposal whose every entry is known offers "Reject: already known" first;
- a known entry that adds words to a held entry of the target is folded into
  it (every token of both kept), not left out;
- a group of near-duplicates offers "keep this one, reject the others";
- a merge over its target's bound is not offered: the card says what to move
  where, leaving which pointer, and that is enough to let the merge through;
- in the batch form the first submit button is "Reject selected" (Enter in
  its reason field rejects, never merges), and merging is a second button.
A refused post shows this page again with what was ticked and typed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from hearth.app.reads.review_board import ReviewBoard
from hearth.app.results import BatchResult
from hearth.app.served.service import ServedHearth
from hearth.domain import layout, records
from hearth.errors import HearthError, InvalidInput
from hearth.operations import is_agent
from hearth.ui import review_cards as cards
from hearth.ui.auth import Visitor
from hearth.ui.kit import Done, Kit, MaybeVisitor, PageRoute, Reader, Served, UiKit, first

#: The Review tab and its forms; ``hearth.ui.install`` includes them.
router = APIRouter(prefix="/ui", include_in_schema=False, route_class=PageRoute)

#: One form's call: the visitor and every field of the form in, its message out.
Call = Callable[[Visitor, dict[str, list[str]]], Done]


@router.get("/")
def review(request: Request, visitor: Reader, kit: UiKit, service: Served) -> Response:
    return review_page(service, kit, request, visitor)


def review_page(
    service: ServedHearth,
    kit: Kit,
    request: Request,
    visitor: Visitor,
    status: int = 200,
    refusal: str = "",
    form: dict[str, list[str]] | None = None,
) -> Response:
    """The Review tab (``?show=`` one of ``review_cards.FILTERS``); after a refused post, with
    its status, its message and what was ticked and typed (``form``)."""
    views = service.records("proposal")
    board = service.review_board(views)
    items = _items(service, views, board)
    show = request.query_params.get("show", "all")
    show = show if show in cards.FILTERS else "all"
    blocks = cards.blocks(items, board)
    for i, block in enumerate(blocks):  # after an action on a block: the next one
        block["next"] = blocks[i + 1]["anchor"] if i + 1 < len(blocks) else "proposals-h"
    loops = service.records("loop")
    decisions = sorted(  # newest first, as ACTIVE.md lists them
        service.records("decision"),
        key=lambda v: (getattr(v.record, "updated", ""), v.key),
        reverse=True,
    )
    listing = service.agent_changes()  # up to HEAD now: a later change stays unseen
    changes = listing.changes
    form = form or {}
    return kit.page(
        request,
        visitor,
        "review.html",
        status,
        proposals=items,
        blocks=[b for b in blocks if cards.shown(b, show)],
        summary=cards.summary(items),
        show=show,
        board=board,
        titles={v.key: v.record.title if v.record is not None else v.key for v in views},
        loops=loops,
        decisions=decisions,
        oids=service.head_oids([v.path for v in (*loops, *decisions)] + [c.path for c in changes]),
        changes=changes,
        upto=listing.upto or "",
        more_changes=listing.more,
        refusal=refusal,
        ticked=set(form.get("keys", [])),
        typed={k: v[0] for k, v in form.items() if k.startswith("reason") and v},
    )


def _items(service: ServedHearth, views: Sequence[Any], board: ReviewBoard) -> list[dict[str, Any]]:
    """Each proposal with its merge preview (or why there is none) and its review."""
    items = []
    for view in views:
        found = board.proposals.get(view.key)
        known = found.known if found else ()
        fold = {f.entry: f.into for f in found.folds} if found else {}
        preview, error = None, view.error
        if view.record is not None:
            try:
                preview = service.merge_preview(view.key, known, fold)
            except HearthError as exc:
                error = exc.message
        items.append(cards.item(view, preview, error, found, known))
    return items


async def act(
    request: Request,
    visitor: Visitor | None,
    kit: Kit,
    service: ServedHearth,
    operation: str,
    call: Call,
) -> Response:
    """A form of the Review tab: back to it, or, refused, the tab again with the form."""
    again = functools.partial(review_page, service, kit)
    return await kit.acting(request, visitor, operation, "/ui/", call, again)


def title_of(service: ServedHearth, key: str) -> str:
    path = layout.record_path("proposal", key) if records.is_key(key) else ""
    try:
        return records.parse("proposal", service.get_file(path).content).title
    except HearthError:
        return key


def consolidates(service: ServedHearth, key: str) -> bool:
    """Whether proposal ``key`` is a consolidation hearth proposed (by its record,
    not its title, which anyone may write)."""
    path = layout.record_path("proposal", key) if records.is_key(key) else ""
    try:
        record = records.parse("proposal", service.get_file(path).content)
    except HearthError:
        return False
    return isinstance(record, records.Proposal) and bool(record.consolidate)


def expected(form: dict[str, list[str]], *pairs: tuple[str, str]) -> dict[str, str | None]:
    """The blob ids the page was made from, by path: each pair names a path's
    field and its blob id's field."""
    return {first(form, p): first(form, o) or None for p, o in pairs}


def merged(title: str, target: str, added: int, left: int, commit: str | None) -> Done:
    parts = [
        f"Merged \u201c{title}\u201d into {target}: {_plural(added, 'entry', 'entries')} added"
    ]
    if left:
        parts.append(f"{left} left out as already known")
    return Done("; ".join(parts), commit)


@router.post("/proposals/{key}/merge")
async def merge(
    request: Request, key: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        leave = _leave(form, key)
        new, old = first(form, "replace-new"), first(form, "replace-old")
        replace = {new: old} if new and old else {}
        fold = _folds(form, key)
        title = title_of(service, key)
        moving = consolidates(service, key)
        preview = service.merge_preview(key, [*leave, *replace], fold)
        result = service.merge(
            key,
            visitor.actor,
            expected=expected(form, ("path", "oid"), ("target", "target_oid")),
            leave_out=leave,
            replace=replace,
            fold=fold,
        )
        done = merged(title, preview.target, len(preview.added), len(leave), result.commit)
        if fold:
            done = Done(f"{done.message}; {_folded(len(fold))}", result.commit)
        if moving:
            done = Done(f"Approved \u201c{title}\u201d: no text dropped", result.commit)
        if replace:
            done = Done(f"{done.message}; replaced {len(replace)} in place", result.commit)
        return done

    return await act(request, visitor, kit, service, "merge", call)


@router.post("/proposals/{key}/reject")
async def reject(
    request: Request, key: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        title = title_of(service, key)
        reason = first(form, f"reason-{key}") or first(form, "reason")
        result = service.reject(
            key, reason, visitor.actor, expected=expected(form, ("path", "oid"))
        )
        return Done(f"Rejected \u201c{title}\u201d: {' '.join(reason.split())}", result.commit)

    return await act(request, visitor, kit, service, "reject", call)


@router.post("/proposals/{key}/entries")
async def edit_entries(
    request: Request, key: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        entries = first(form, "entries").splitlines()
        result = service.revise_proposal(
            key,
            entries,
            visitor.actor,
            expected=expected(form, ("path", "oid")),
            agent=is_agent(visitor.info.scope),
        )
        title = title_of(service, key)
        return Done(
            f"Saved the entries of \u201c{title}\u201d"
            + ("" if result.changed else " (unchanged)"),
            result.commit if result.changed else None,
            f"p-{key}",
        )

    return await act(request, visitor, kit, service, "edit", call)


@router.post("/batch/merge")
async def merge_many(
    request: Request, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        keys, seen = _batch(form)
        leave = {k: _leave(form, k) for k in keys}
        titles = [title_of(service, k) for k in keys]
        result = service.merge_many(keys, visitor.actor, expected=seen, leave_out=leave)
        left = sum(len(v) for v in leave.values())
        return _batch_done("Merged", titles, result, left)

    return await act(request, visitor, kit, service, "merge.many", call)


@router.post("/batch/reject")
async def reject_many(
    request: Request, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        keys, seen = _batch(form)
        reason = first(form, "reason")
        titles = [title_of(service, k) for k in keys]
        result = service.reject_many(keys, reason, visitor.actor, expected=seen)
        return _batch_done("Rejected", titles, result, 0)

    return await act(request, visitor, kit, service, "reject.many", call)


@router.post("/groups/keep")
async def keep_one(
    request: Request, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        keys, seen = _batch(form)
        keep = first(form, "keep")
        if keep not in keys:
            raise InvalidInput("choose which proposal of the group to keep")
        others = [k for k in keys if k != keep]
        leave = _leave(form, keep)
        # Only what the kept one says all of is rejected: the others stay, for
        # their own cards (folded, merged or rejected) once the kept one is in.
        said = cards.said_by_kept(service, keep, others)
        kept, rest = title_of(service, keep), [title_of(service, k) for k in said]
        if not said:
            alone = service.merge(keep, visitor.actor, expected=seen, leave_out=leave)
            message = f"Kept \u201c{kept}\u201d; {_plural(len(others), 'other', 'others')} "
            return Done(message + "left pending: they add words it lacks", alone.commit)
        result = service.keep_one(keep, said, visitor.actor, expected=seen, leave_out=leave)
        done: Done = _kept(kept, rest, leave, result)
        if left := len(others) - len(said):
            message = f"{done.message}; {left} left pending: they add words it lacks"
            done = Done(message, done.commit)
        return done

    return await act(request, visitor, kit, service, "merge.many", call)


@router.post("/loops/{key}/resolve")
async def resolve(
    request: Request, key: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        result = service.resolve_loop(
            key,
            visitor.actor,
            first(form, "note"),
            expected=expected(form, ("path", "oid")),
            agent=is_agent(visitor.info.scope),
        )
        return Done("Resolved the open loop", result.commit)

    return await act(request, visitor, kit, service, "loop.resolve", call)


@router.post("/decisions/{key}/withdraw")
async def withdraw(
    request: Request, key: str, visitor: MaybeVisitor, kit: UiKit, service: Served
) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        result = service.withdraw_decision(
            key,
            first(form, "reason"),
            visitor.actor,
            expected=expected(form, ("path", "oid")),
            agent=is_agent(visitor.info.scope),
        )
        return Done("Withdrew the decision", result.commit)

    return await act(request, visitor, kit, service, "decision.withdraw", call)


def _leave(form: dict[str, list[str]], key: str) -> list[str]:
    return [v for v in form.get(f"leave-{key}", []) if v]


def _folds(form: dict[str, list[str]], key: str) -> dict[str, str]:
    """The page's folds of ``key``'s known entries: ``fold-KEY`` fields and
    ``into-KEY`` fields, pairwise (the entry, the held entry it folds into)."""
    entries, into = form.get(f"fold-{key}", []), form.get(f"into-{key}", [])
    if len(entries) != len(into) or not all((*entries, *into)):
        raise InvalidInput("the page's folds are incomplete; reload the page and choose again")
    return dict(zip(entries, into, strict=True))


def _folded(n: int) -> str:
    return f"{_plural(n, 'known entry', 'known entries')} folded into the entries they add to"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _kept(kept: str, others: Sequence[str], leave: Sequence[str], result: BatchResult) -> Done:
    rest = ", ".join(f"\u201c{t}\u201d" for t in others)
    message = (
        f"Kept \u201c{kept}\u201d ({_plural(result.added, 'entry', 'entries')} added"
        + (f", {len(leave)} left out as already known" if leave else "")
        + f") and rejected {rest} as saying the same"
    )
    return Done(message, result.commit)


def _batch_done(verb: str, titles: Sequence[str], result: BatchResult, left: int) -> Done:
    names = ", ".join(f"\u201c{t}\u201d" for t in titles)
    tail = ""
    if verb == "Merged":
        tail = f": {_plural(result.added, 'entry', 'entries')} added"
        if left:
            tail += f", {left} left out as already known"
    return Done(f"{verb} {names} in one commit{tail}", result.commit)


def _batch(form: dict[str, list[str]]) -> tuple[list[str], dict[str, str | None]]:
    """The chosen keys, and the blob ids the page was made from: ``seen`` holds,
    for every proposal on the page, ``KEY OID TARGET_OID TARGET`` (``-``: the
    file was absent). Only the chosen proposals' files and their targets are
    checked: a change to a proposal nobody chose does not make this stale."""
    keys = list(dict.fromkeys(k for k in form.get("keys", []) if k))
    if not keys:
        raise InvalidInput("tick at least one proposal first")
    seen: dict[str, tuple[str, str, str]] = {}
    for value in form.get("seen", []):
        parts = value.split(" ", 3)
        if len(parts) == 4 and parts[3]:
            seen[parts[0]] = (parts[1], parts[2], parts[3])
    expected: dict[str, str | None] = {}
    for key in keys:
        if key not in seen or not records.is_key(key):
            raise InvalidInput(
                f"the page did not say which version of proposal {key} it showed; "
                "reload the page and choose again"
            )
        oid, target_oid, target = seen[key]
        expected[layout.record_path("proposal", key)] = None if oid == "-" else oid
        expected[target] = None if target_oid == "-" else target_oid
    return keys, expected
