"""A session's secret place in the address: ``/ui/s/<place>/persona`` is served
as ``/ui/persona``, with the place kept beside the request for the session check.

The routes stay written once, under ``/ui``; the place only scopes the session
cookie (its path) and is checked against the session (``auth.Gate``), so a
page, a form and a redirect of a session always carry it.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from hearth.ui.auth import PLACES

#: The key in the ASGI scope that holds the request's place, when it has one.
PLACE_KEY = "hearth.ui.place"
_PLACED = re.compile(re.escape(PLACES) + r"([A-Za-z0-9_-]{16,64})(/.*)?\Z", re.S)


def place_of(scope: Any) -> str | None:
    """The place a request was addressed to, or None (a plain ``/ui/`` address)."""
    found = scope.get(PLACE_KEY)
    return found if isinstance(found, str) else None


class Places:
    """Serves ``/ui/s/<place>/...`` as ``/ui/...`` and keeps the place in the scope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        # Every request passes here (the API's too): a prefix test first.
        if scope["type"] == "http" and isinstance(path, str) and path.startswith(PLACES):
            found = _PLACED.match(path)
            if found:
                inner = "/ui" + (found[2] or "/")
                parts = bytes(scope.get("raw_path") or b"").split(b"/", 4)
                raw = b"/ui/" + (parts[4] if len(parts) == 5 else b"")
                scope = {**scope, "path": inner, "raw_path": raw, PLACE_KEY: found[1]}
        await self.app(scope, receive, send)
