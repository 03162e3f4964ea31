"""What agents changed in the persona and memory files, on the Review tab: each
change since the person last marked them as seen, with its actor, and one click
to undo it (a commit of the person's; ``app/writes/undo.py``). Both forms are
the person's (an admin token): a write token sees the list and no button, and
its post is refused."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from hearth.ui.auth import Visitor
from hearth.ui.kit import Done, MaybeVisitor, PageRoute, Served, UiKit, first

router = APIRouter(prefix="/ui", include_in_schema=False, route_class=PageRoute)


@router.post("/changes/undo")
async def undo(request: Request, visitor: MaybeVisitor, kit: UiKit, service: Served) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        commit, path = first(form, "commit"), first(form, "path")
        result = service.undo_agent_change(
            commit, path, visitor.actor, expected={path: first(form, "oid") or None}
        )
        if not result.changed:
            return Done(f"{path} already reads as before that change: nothing to undo")
        return Done(f"Undid the agent's change to {path} ({commit[:12]})", result.commit)

    return await kit.acting(request, visitor, "restore.persona", "/ui/", call)


@router.post("/changes/seen")
async def seen(request: Request, visitor: MaybeVisitor, kit: UiKit, service: Served) -> Response:
    def call(visitor: Visitor, form: dict[str, list[str]]) -> Done:
        service.mark_agent_changes_seen(first(form, "upto"))
        return Done("Marked the agents' changes as seen")

    return await kit.acting(request, visitor, "changes.seen", "/ui/", call)
