"""The server's connections under a slow or hostile client: a deadline for each
request, a bound on each listener, and descriptors to spare.

uvicorn gives a request no deadline: its keep-alive timer runs only between
requests and is not armed on a new connection, so a client that sends half a
header holds its connection (and a descriptor) for good, and ASGI middleware
never sees such a request. The deadline lives in the protocol instead: a
subclass of uvicorn's HTTP protocol that closes a connection whose request is
not complete (head and body) ``request_seconds`` after the connection opened
or its last answer ended.

Each listener has its own bound: past it a new connection gets a 503 and is
closed at once, before any byte is read, so its descriptor is back at once.
The TCP port can be reached by any user of the machine; its bound keeps it
from taking the descriptors that the home's unix socket (the owner's clients:
the CLI, ``hearth mcp``, agent-hook) needs. At start the process's soft limit
of open files is raised to its hard limit, too.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from typing import Any

from hearth.errors import error_body

#: Seconds a request has to arrive whole; overridden by ``HEARTH_REQUEST_SECONDS``.
REQUEST_SECONDS = 10.0
REQUEST_ENV = "HEARTH_REQUEST_SECONDS"
#: Open connections per listener: any user's TCP port, the owner's unix socket.
MAX_TCP = 256
MAX_UNIX = 256
_BUSY_BODY = json.dumps(error_body("busy", "too many connections; try again later")).encode()
_BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(_BUSY_BODY), _BUSY_BODY)
)


def request_seconds() -> float:
    given = os.environ.get(REQUEST_ENV, "")
    try:
        seconds = float(given) if given else REQUEST_SECONDS
    except ValueError:
        return REQUEST_SECONDS
    return seconds if seconds > 0 else REQUEST_SECONDS


def raise_open_files_limit() -> tuple[int, int]:
    """Raise this process's soft limit of open files to its hard limit; the limit
    in force (soft, hard)."""
    import resource  # noqa: PLC0415

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = 65536 if hard == resource.RLIM_INFINITY else hard
        if wanted > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            except (OSError, ValueError):
                return soft, hard
            soft = wanted
    return soft, hard


def protocol(
    seconds: float | None = None, max_tcp: int = MAX_TCP, max_unix: int = MAX_UNIX
) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol (httptools, else h11, as its ``auto``) with a request
    deadline and a bound per listener; give it to ``uvicorn.Config(http=...)``."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol  # noqa: PLC0415

    deadline = request_seconds() if seconds is None else seconds
    bounds: dict[int, int] = {int(socket.AF_UNIX): max_unix}
    open_now: dict[int, int] = {}
    base: Any = AutoHTTPProtocol

    class Bounded(base):  # type: ignore[misc]
        _family = -1
        _timer: asyncio.TimerHandle | None = None
        _waited: Any = None
        _refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:
            sock = transport.get_extra_info("socket")
            self._family = int(sock.family) if sock is not None else -1
            count = open_now.get(self._family, 0)
            if count >= bounds.get(self._family, max_tcp):
                self._refused = True
                transport.write(_BUSY)
                transport.close()
                return
            open_now[self._family] = count + 1
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            open_now[self._family] -= 1
            self._disarm()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._timer is not None and self._request_complete():
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()

        def _request_complete(self) -> bool:
            cycle = getattr(self, "cycle", None)
            return cycle is not None and cycle is not self._waited and not cycle.more_body

        def _arm(self) -> None:
            self._disarm()
            cycle = getattr(self, "cycle", None)
            if cycle is not None and not cycle.response_complete and not cycle.more_body:
                return  # a pipelined request already arrived whole and is being answered
            self._waited = cycle
            self._timer = self.loop.call_later(deadline, self._expired)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _expired(self) -> None:
            self._timer = None
            if not self._request_complete() and not self.transport.is_closing():
                self.transport.close()

    return Bounded
