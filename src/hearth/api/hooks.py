"""``POST /v1/hooks/pre-commit``: the pre-commit hook's check, answered by the server.

The server already holds the repository open and the rules imported, so the
hook's shim (bash, no Python) sends it git's listing of what is staged
(``git diff-index --cached HEAD`` raw output, :mod:`hearth.hooks.staged`)
and lets the commit go on only on a 200 (the check: :mod:`hearth.app.served.precommit`).

Authorization: the server's hook key (``hook_key`` in ``.git/hearth/server.json``,
new on every start) or any API token with the ``read`` scope.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from hearth.api.routes import ERRORS, Service, gate
from hearth.hooks.staged import LISTING_PATTERN

PATH = "/v1/hooks/pre-commit"

#: The routes; ``create_app`` includes them.
router = APIRouter(responses=ERRORS)


class StagedCheck(BaseModel):
    #: Files the commit adds or changes that the rules read (deletions need none).
    checked: int


@router.post(
    PATH,
    response_model=StagedCheck,
    tags=["hooks"],
    dependencies=[gate("check", hook_key=True)],
    openapi_extra={
        "x-hearth-operation": "check",
        "requestBody": {
            "required": False,
            "content": {"text/plain": {"schema": {"type": "string", "pattern": LISTING_PATTERN}}},
            "description": "'git diff-index --cached --no-renames HEAD' raw output",
        },
    },
)
async def pre_commit(request: Request, service: Service) -> StagedCheck:
    """Check what a commit is about to hold against the validation rules:
    200 when it may go on, 422 naming each file, rule and fix when not."""
    listing = await request.body()
    return StagedCheck(checked=await run_in_threadpool(service.check_staged, listing))
