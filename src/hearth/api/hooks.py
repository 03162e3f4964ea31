"""The hooks' routes: the pre-commit hook's check and an agent runtime's hook.

``POST /v1/hooks/pre-commit``: the pre-commit hook's check, answered by the server.

The server already holds the repository open and the rules imported, so the
hook's shim (bash, no Python) sends it git's listing of what is staged
(``git diff-index --cached HEAD`` raw output, :mod:`hearth.hooks.staged`)
and lets the commit go on only on a 200 (the check: :mod:`hearth.app.served.precommit`).

Authorization: the server's hook key (``hook_key`` in ``.git/hearth/server.json``,
new on every start) or any API token with the ``read`` scope.

``POST /v1/hooks/agent/{runtime}/{event}``: what ``hearth agent-hook`` prints,
answered by the server (``runtimes/hook_answer.py``), so that the command a
runtime waits for at every prompt is one small request
(``client/hook.py``). Authorization: the hook key, or a ``read`` token.
"""

from __future__ import annotations

import time
from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from hearth.api.gate import ERRORS, Service, gate
from hearth.errors import ApiError
from hearth.hooks.staged import LISTING_PATTERN
from hearth.runtimes import hook_answer

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


#: An agent runtime's hook, answered whole (``hearth agent-hook``'s lean path).
AGENT_PATH = "/v1/hooks/agent/{runtime}/{event}"
#: Seconds the answer waits for the index to catch up with the files, as the
#: CLI's reads do (``client/delegate.py``); then 503, and the command answers.
FRESH_SECONDS = 3.0


class AgentHookInput(BaseModel):
    #: The runtime's hook JSON, as ``hearth agent-hook`` read it on stdin.
    input: str
    #: The home as the command names it (the session text says where it is);
    #: the server's own path when absent.
    home: str | None = None


class AgentHookAnswer(BaseModel):
    #: The line ``hearth agent-hook`` prints (the runtime's hook JSON and a
    #: newline); null when it adds nothing to the turn.
    output: str | None


@router.post(
    AGENT_PATH,
    response_model=AgentHookAnswer,
    tags=["hooks"],
    dependencies=[gate("context", hook_key=True)],
    openapi_extra={"x-hearth-operation": "context"},
)
async def agent_hook(
    runtime: str, event: Literal["session-start", "prompt"], body: AgentHookInput, service: Service
) -> AgentHookAnswer:
    """What ``hearth agent-hook RUNTIME EVENT`` prints for the runtime's hook
    input: the persona at session start, the recall at a prompt, taken from the
    index once it holds the files as a reconcile pass would leave them (503
    while it does not after a few seconds, or while the server starts)."""
    if runtime not in hook_answer.HOOKED:
        raise ApiError(404, f"no runtime with hooks is called {runtime!r}")
    home = body.home or str(service.writes.root)

    def bundle(session: str, query: str | None) -> dict[str, object]:
        deadline = time.monotonic() + FRESH_SECONDS
        while not service.status().snapshot.current:
            if time.monotonic() > deadline:
                raise ApiError(503, "the index is catching up with the home's files")
            time.sleep(0.01)
        return service.context("main" if session == "main" else "subagent", query).as_dict()

    try:
        line = await run_in_threadpool(hook_answer.answer, runtime, event, body.input, bundle, home)
    except ValueError as exc:
        raise ApiError(422, str(exc)) from exc
    return AgentHookAnswer(output=line)
