"""Authentication before the body: a request that carries a body and no valid
credential is refused from its headers alone, before a byte of it is read.

FastAPI reads and parses a route's JSON body before it solves the route's
dependencies (the token check among them), so without this a stranger's
10 MiB body would be parsed before the 401. Here a request with a body
(``Content-Length`` above zero, or ``Transfer-Encoding``) must carry, in
``Authorization: Bearer``, an API token, a local token or the hook key that
the server knows; the routes still check its scope.

The review page's forms are the exception: a logged-in browser sends its
session cookie, not a token, and the login form is how a visitor gets one.
A form without a valid session or token may carry a small body only
(``FORM_BYTES``, enough for the login form), bounded before it is parsed.
"""

from __future__ import annotations

import secrets
from typing import Any

from hearth.api.limits import ASGIApp, BodyLimit, Receive, Scope, Send, refuse
from hearth.app.served.service import ServedHearth
from hearth.ui.auth import session_ids
from hearth.ui.places import place_of

#: The most a form of the review page carries without a session (the login form).
FORM_BYTES = 16 * 1024
_UI = "/ui"


class AuthBeforeBody:
    def __init__(self, app: ASGIApp, service: ServedHearth) -> None:
        self.app = app
        self.service = service
        self.forms = BodyLimit(app, max_bytes=FORM_BYTES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        if not _has_body(headers) or self._known(headers.get(b"authorization", b"")):
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        if path == _UI or path.startswith(_UI + "/"):
            if self._session(scope, headers.get(b"cookie", b"")):
                await self.app(scope, receive, send)
            else:
                await self.forms(scope, receive, send)
            return
        sent = b"authorization" in headers
        await refuse(
            send,
            401,
            "unauthorized",
            "unknown or revoked token"
            if sent
            else "send 'Authorization: Bearer <token>' (create one: hearth token create)",
            headers=[(b"www-authenticate", b"Bearer"), (b"connection", b"close")],
        )

    def _known(self, authorization: bytes) -> bool:
        scheme, _, token = authorization.decode("latin-1").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return False
        if secrets.compare_digest(token.encode(), self.service.hook_key.encode()):
            return True
        return self.service.caller(token) is not None

    @staticmethod
    def _session(scope: Scope, cookie: bytes) -> bool:
        sessions = session_ids(cookie.decode("latin-1"))
        kit: Any = getattr(getattr(scope.get("app"), "state", None), "ui_kit", None)
        if not sessions or kit is None:
            return False
        return kit.gate.visitor("", sessions, place_of(scope)) is not None


def _has_body(headers: dict[bytes, bytes]) -> bool:
    if b"transfer-encoding" in headers:
        return True
    length = headers.get(b"content-length", b"0").strip()
    return length not in (b"", b"0")
