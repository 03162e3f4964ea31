"""A request-body bound enforced before any handler reads the body.

Checked on the declared ``Content-Length`` and again on the bytes actually
received (a chunked body declares nothing), so no request can make the
server buffer more than ``max_bytes``. A body that grows past the bound while
a handler reads it raises ``BodyTooLarge`` into that handler, which may turn it
into an answer of its own (FastAPI's body parsing answers 400 for any error);
so once the bound is passed, whatever the handler answers is held back and
the 413 is the answer.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any

from hearth.errors import BodyTooLarge, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY_BYTES = 10 * 1024 * 1024


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    await self._refuse(send, 400, "bad_request", "Content-Length is not a number")
                    return
                if declared > self.max_bytes:
                    await self._refuse_too_large(send)
                    return
        received = 0
        started = False
        over = False

        async def counting_receive() -> Message:
            nonlocal received, over
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    over = True
                    raise BodyTooLarge(f"request body over {self.max_bytes // (1024 * 1024)} MiB")
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if over and not started:
                return  # the handler's answer to the cut body: the 413 goes instead
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        with contextlib.suppress(BodyTooLarge):  # answered below
            await self.app(scope, counting_receive, tracking_send)
        if over and not started:
            await self._refuse_too_large(send)

    async def _refuse_too_large(self, send: Send) -> None:
        limit = self.max_bytes // (1024 * 1024)
        await self._refuse(send, 413, "too_large", f"request body over {limit} MiB")

    @staticmethod
    async def _refuse(send: Send, status: int, code: str, message: str) -> None:
        await refuse(send, status, code, message)


async def refuse(
    send: Send,
    status: int,
    code: str,
    message: str,
    detail: Any = None,
    headers: Sequence[tuple[bytes, bytes]] = (),
) -> None:
    """Answer with hearth's JSON error body, before any handler ran."""
    body = json.dumps(error_body(code, message, detail)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
