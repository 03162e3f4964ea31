"""Who may call a route: the bearer token (or the server's hook key) checked
against the one policy (``operations.py``), and the served home and the admitted
caller handed to routes as FastAPI dependencies. ``routes.py`` declares each
route through ``routes.operation``, which puts ``gate`` in front of it; the fast
search route (``fast_search.py``) and the hooks' route call the same ``admit``.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import Depends, Request

from hearth.api import models
from hearth.app.served.service import ServedHearth
from hearth.errors import ApiError
from hearth.operations import may, refusal
from hearth.store.tokens import TokenInfo

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": models.ErrorBody, "description": description}
    for status, description in (
        (400, "bad path or request"),
        (401, "no or unknown token"),
        (403, "token scope too small"),
        (404, "no such file, record or revision"),
        (409, "conflict: uncommitted edits, stale oid, busy"),
        (413, "too large"),
        (422, "invalid input or a validation rule failed"),
    )
}


async def _service(request: Request) -> ServedHearth:
    # async: FastAPI would run a plain function on its thread pool, a hop that
    # search (answered on the event loop) should not pay.
    served: ServedHearth = request.app.state.service
    return served


#: The served home, as a FastAPI dependency (``create_app`` puts it in the app's state).
Service = Annotated[ServedHearth, Depends(_service)]


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401, "send 'Authorization: Bearer <token>' (create one: hearth token create)"
        )
    return token.strip()


def allowed(info: TokenInfo, operation: str) -> None:
    """403 unless the token's scope may run ``operation`` (``operations.py``)."""
    if not may(info.scope, operation):
        raise ApiError(403, refusal(info.scope, operation))


def admit(request: Request, service: ServedHearth, operation: str, hook_key: bool) -> None:
    """Let the caller of ``request`` run ``operation``, or raise ``ApiError`` (401, 403)."""
    sent = bearer(request)
    if hook_key and secrets.compare_digest(sent.encode(), service.hook_key.encode()):
        return
    info = service.caller(sent)
    if info is None:
        raise ApiError(401, "unknown or revoked token")
    allowed(info, operation)
    request.state.caller = info


def gate(operation: str, hook_key: bool = False) -> Any:
    """The dependency that lets a caller run ``operation`` (see ``operation``)."""

    # async: a plain function would run on FastAPI's thread pool, a hop on
    # every request for a hash compare and a stat (docs/performance.md).
    async def check(request: Request, service: Service) -> None:
        admit(request, service, operation, hook_key)

    return Depends(check)


async def _caller(request: Request) -> TokenInfo:
    info: TokenInfo = request.state.caller
    return info


#: The token of a route's caller, already let through by the route's gate.
Caller = Annotated[TokenInfo, Depends(_caller)]


def actor(info: TokenInfo) -> str:
    return info.name if info.local else f"api:{info.name}"
