"""How many MCP sessions one token may hold open on ``/mcp`` over TCP.

The SDK bounds sessions for the whole server only (a count, then 503 for
everyone), and keeps an unused one until it idles out. One token that opens
sessions and never closes them (a looping or prompt-injected agent) would hold
them all, and with them the server's memory, while the person's own runtime
was refused. So each token (known by a digest of its ``Authorization``
header) holds at most ``PER_TOKEN`` sessions: a session is counted from the
answer that names it until its ``DELETE`` or until it has been idle as long as
the SDK keeps it (``IDLE_SECONDS``, handed to the SDK too); past that, a new
one of that token is answered 429. The thin clients of this machine's user,
which reach the server over its unix socket, are not counted. Imports no SDK.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from starlette.types import Scope, Send

#: Sessions one token holds at once: far above what one runtime keeps open.
PER_TOKEN = 64
#: Seconds an unused session is kept (the SDK's ``session_idle_timeout``).
IDLE_SECONDS = 1800.0

_SESSION_HEADER = b"mcp-session-id"


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


class SessionQuota:
    """The live sessions of each token, by the time each was last used."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._live: dict[str, dict[str, float]] = {}
        self._now = clock

    @staticmethod
    def _token(scope: Scope) -> str | None:
        """The digest of the request's credentials; None over the unix socket
        (its port is None) or without credentials (the SDK answers 401)."""
        server = scope.get("server")
        if not server or server[1] is None:
            return None
        sent = _header(scope, b"authorization")
        return hashlib.sha256(sent.encode("latin-1")).hexdigest() if sent else None

    def refusal(self, scope: Scope) -> str | None:
        """Why this request may not open a session, or None (it goes on)."""
        token = self._token(scope)
        if token is None:
            return None
        now = self._now()
        live = self._live.setdefault(token, {})
        for sid in [s for s, used in live.items() if now - used > IDLE_SECONDS]:
            del live[sid]
        sid = _header(scope, _SESSION_HEADER)
        if sid:
            if scope.get("method") == "DELETE":
                live.pop(sid, None)
            elif sid in live:
                live[sid] = now
            return None
        if scope.get("method") == "POST" and len(live) >= PER_TOKEN:
            return (
                f"this token holds {len(live)} open MCP sessions, the most one token may: "
                "end one (DELETE /mcp with its mcp-session-id) or wait until one idles out"
            )
        return None

    def watching(self, scope: Scope, send: Send) -> Send:
        """``send``, noting the session a new one's answer names."""
        token = self._token(scope)
        if token is None or _header(scope, _SESSION_HEADER):
            return send

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                for key, value in message.get("headers", ()):
                    if bytes(key).lower() == _SESSION_HEADER:
                        sid = bytes(value).decode("latin-1")
                        self._live.setdefault(token, {})[sid] = self._now()
            await send(message)

        return sending
