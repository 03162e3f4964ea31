"""MCP over stdio that answers every request it read before it ends.

The SDK's stdio loop ends when stdin does: a client that writes its requests
and closes its end at once (``printf ... | hearth mcp``) has its last calls cut
off mid-way, though a write among them may already be committed. Here the end
of input is held back until every request read so far has had its answer (a
result or an error) written, or was cancelled by the client (which then wants
no answer); only then does the loop see the end.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

from hearth.mcp.server import HearthServer

Incoming = SessionMessage | Exception


class _Unanswered:
    """The ids of the requests read and not yet answered."""

    def __init__(self) -> None:
        self._ids: set[Any] = set()
        self._changed = anyio.Event()

    def read(self, item: Incoming) -> None:
        if not isinstance(item, SessionMessage):
            return
        message = item.message
        if isinstance(message, JSONRPCRequest):
            self._ids.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == (
            "notifications/cancelled"
        ):
            self._done((message.params or {}).get("requestId"))

    def written(self, item: SessionMessage) -> None:
        if isinstance(item.message, JSONRPCResponse | JSONRPCError):
            self._done(item.message.id)

    def _done(self, request_id: Any) -> None:
        self._ids.discard(request_id)
        self._changed.set()
        self._changed = anyio.Event()

    async def settled(self) -> None:
        while self._ids:
            await self._changed.wait()


class _HeldEnd:
    """The transport's read side, whose end waits for the unanswered requests."""

    def __init__(self, inner: ReadStream[Incoming], unanswered: _Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> Incoming:
        try:
            item = await self._inner.receive()
        except anyio.EndOfStream:
            await self._unanswered.settled()
            raise
        self._unanswered.read(item)
        return item

    def __aiter__(self) -> _HeldEnd:
        return self

    async def __anext__(self) -> Incoming:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _HeldEnd:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class _Answers:
    """The transport's write side, telling which requests have their answer."""

    def __init__(self, inner: WriteStream[SessionMessage], unanswered: _Unanswered) -> None:
        self._inner = inner
        self._unanswered = unanswered

    async def send(self, item: SessionMessage, /) -> None:
        await self._inner.send(item)
        self._unanswered.written(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


async def serve_stdio(server: HearthServer) -> None:
    """``server.run_stdio_async``, answering every request read before the end."""
    unanswered = _Unanswered()
    async with stdio_server() as (read_stream, write_stream):
        await server.run_on(_HeldEnd(read_stream, unanswered), _Answers(write_stream, unanswered))
