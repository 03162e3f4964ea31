"""``/mcp`` in ``hearth serve``'s app, built when the first MCP request arrives.

Importing the MCP SDK takes seconds of CPU on a busy machine (its protocol
types are a large set of pydantic models). ``hearth serve`` should neither
start slower for it nor, right after start-up, hand the reconcile worker and
the watcher less CPU while it imports (ACTIVE.md is rewritten within a second
of an edit). So the app mounts this small ASGI app: the first request to
``/mcp`` has it import and build the MCP server (hearth.mcp.http) on a worker
thread, and its session manager then runs for as long as the app serves;
requests wait until it is ready. A server no MCP client talks to never loads
the SDK. This module imports no SDK.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.to_thread
from starlette.types import ASGIApp, Receive, Scope, Send

from hearth.errors import error_body
from hearth.mcp.quota import SessionQuota

PATH = "/mcp"
#: Seconds an MCP request waits for the server to be built before it is answered 503.
READY_TIMEOUT = 60.0

log = logging.getLogger(__name__)


class LazyMount:
    """The ASGI app answering ``/mcp/``; ``build`` makes ``(server, asgi_app)``."""

    def __init__(self, build: Callable[[], tuple[Any, ASGIApp]]) -> None:
        self._build = build
        self._app: ASGIApp | None = None
        self._ready: anyio.Event | None = None
        self._wanted: anyio.Event | None = None
        self._failed: str | None = None
        self.quota = SessionQuota()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serve MCP, once a request wants it, while the body runs (the lifespan)."""
        self._ready, self._wanted = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as group:
            group.start_soon(self._serve)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    async def _serve(self) -> None:
        assert self._ready is not None and self._wanted is not None
        await self._wanted.wait()
        try:
            server, app = await anyio.to_thread.run_sync(self._build, abandon_on_cancel=True)
        except Exception as exc:  # the API keeps serving; /mcp says why it cannot
            log.exception("hearth: MCP could not start")
            self._failed = f"MCP could not start: {type(exc).__name__}: {exc}"
            self._ready.set()
            return
        async with server.session_manager.run():
            self._app = app
            self._ready.set()
            await anyio.sleep_forever()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._ready is not None and self._wanted is not None:
            self._wanted.set()
            with anyio.move_on_after(READY_TIMEOUT):
                await self._ready.wait()
        if self._app is None:
            await _unavailable(send, self._failed or "MCP is starting; try again in a moment")
            return
        refused = self.quota.refusal(scope) if scope["type"] == "http" else None
        if refused is not None:
            await _unavailable(send, refused, status=429, code="too_many_sessions")
            return
        send = self.quota.watching(scope, send) if scope["type"] == "http" else send
        await self._app(scope, receive, _refusals_in_our_shape(scope, send))


def _refusals_in_our_shape(scope: Scope, send: Send) -> Send:
    """``send``, with the SDK's 401 (``{"error": "invalid_token", ...}``, OAuth's
    shape) answered in the error body every other route sends, keeping its
    headers (``WWW-Authenticate`` among them)."""
    refused = False

    async def sending(message: Any) -> None:
        nonlocal refused
        if message["type"] == "http.response.start" and message["status"] == 401:
            refused = True
            sent = any(k.lower() == b"authorization" for k, _v in scope.get("headers", ()))
            body = json.dumps(
                error_body(
                    "unauthorized",
                    "unknown or revoked token"
                    if sent
                    else "no token: send 'Authorization: Bearer <token>' (create one with: "
                    "hearth token create --name NAME --scope write)",
                )
            ).encode()
            kept = [
                (k, v)
                for k, v in message.get("headers", ())
                if k.lower() not in (b"content-length", b"content-type")
            ]
            kept += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
            await send({**message, "headers": kept})
            await send({"type": "http.response.body", "body": body})
            return
        if not refused:  # the SDK's own body of a 401 is dropped
            await send(message)

    return sending


class ExactPath:
    """``/mcp`` itself, answered in place: a mount alone would redirect it (307)
    to ``/mcp/``, which some clients do not follow for a POST. (An object, not a
    function, so Starlette hands it the raw ASGI call.)"""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        root = scope.get("root_path", "")
        await self.app(
            {**scope, "root_path": root + PATH, "path": root + PATH + "/"}, receive, send
        )


async def _unavailable(
    send: Send, message: str, status: int = 503, code: str = "unavailable"
) -> None:
    body = json.dumps(error_body(code, message))
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1")],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})
