"""Who is looking at the review page: API tokens, browser sessions and CSRF values.

A visitor is known by the same tokens as the API, either in the
``Authorization: Bearer`` header or through the login form, which keeps a
server-side session: the cookie holds only a random session id (HttpOnly,
SameSite=Strict), the session holds only the token's SHA-256, and every
request checks that digest against the token store again, so a revoked token
stops working at once. Sessions live in the server's memory: a restart logs
everyone out, which is the safe way round.

A session's pages live under a secret place of its own, ``/ui/s/<place>/``,
and its cookie's path is that place. Browsers do not keep cookies apart by
port: a cookie of ``/ui`` would also go to any other server on
``127.0.0.1`` that the person's browser is led to, another user's among them,
and that user could replay it here. Such a server never learns the place
(the pages send no Referer to another origin), so the browser never sends it
the cookie; and a session is valid only at its own place, so a cookie alone,
however it got out, opens nothing.

Every form carries a CSRF value, an HMAC (with a secret made at start-up) of
the session id, or of the token's digest for header visitors. The Host and
Origin guard in front of every route already refuses cross-site posts from
current browsers; the form value also covers old browsers and same-site
pages. The login form itself is protected by a double-submit nonce (a cookie
and a field that must match), so a page elsewhere cannot log a browser into
someone else's session.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hearth.store.tokens import TokenInfo, TokenStore, token_digest

SESSION_COOKIE = "hearth_session"
LOGIN_COOKIE = "hearth_login"
#: The login form's nonce cookie goes nowhere but the login form.
LOGIN_PATH = "/ui/login"
#: Where the pages of a session live: ``PLACES`` + the session's place.
PLACES = "/ui/s/"
#: The pages of a visitor that is not a browser session (a header token).
PLAIN_BASE = "/ui"
#: The most ``hearth_session`` values of one request looked at: a server on
#: another port of the host can set cookies here too, and one it set must not
#: hide the person's own.
MAX_SESSION_COOKIES = 8
#: A session ends this long after login, whatever happens.
SESSION_SECONDS = 12 * 3600
#: The most sessions kept; the oldest goes first.
MAX_SESSIONS = 256
#: The most sessions of one token: its own oldest goes first, so logging in over
#: and over with one token (an agent's) never ends another token's session.
MAX_SESSIONS_PER_TOKEN = 8


@dataclass(frozen=True)
class Visitor:
    info: TokenInfo
    #: What the CSRF value is bound to: the session id, or the header token's digest.
    binding: str
    session: str | None = None
    #: Where this visitor's pages are: ``/ui/s/<place>`` for a session, else ``/ui``.
    base: str = PLAIN_BASE

    @property
    def actor(self) -> str:
        return f"ui:{self.info.name}"

    def at(self, path: str) -> str:
        """A page's address (``/ui/...``) at this visitor's place."""
        return self.base + path[len(PLAIN_BASE) :] if path.startswith(PLAIN_BASE + "/") else path


@dataclass(frozen=True)
class Login:
    session: str
    place: str
    info: TokenInfo

    @property
    def base(self) -> str:
        return PLACES + self.place


@dataclass(frozen=True)
class _Session:
    digest: str
    started: float
    place: str


class Gate:
    """Sessions, the CSRF secret and the token check for one server process."""

    def __init__(self, tokens: TokenStore, clock: Callable[[], float] = time.monotonic) -> None:
        self.tokens = tokens
        self._secret = secrets.token_bytes(32)
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()
        self._now = clock

    # -- who ---------------------------------------------------------------------

    def visitor(
        self, authorization: str, session_ids: Sequence[str], place: str | None
    ) -> Visitor | None:
        """The header's token if one is sent (a wrong one is not overridden by a
        cookie), else the first of the cookie's sessions that lives at ``place``
        (the request's); None when none is valid."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            digest = token_digest(token.strip())
            info = self.tokens.check_digest(digest)
            return None if info is None else Visitor(info, "h:" + digest)
        if not place:
            return None
        for session_id in session_ids[:MAX_SESSION_COOKIES]:
            found = self._session_visitor(session_id, place)
            if found is not None:
                return found
        return None

    def _session_visitor(self, session_id: str, place: str) -> Visitor | None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and self._now() - session.started > SESSION_SECONDS:
                del self._sessions[session_id]
                session = None
        if session is None or not hmac.compare_digest(session.place, place):
            return None
        info = self.tokens.check_digest(session.digest)
        if info is None:  # revoked since login
            self.end(session_id)
            return None
        return Visitor(info, "s:" + session_id, session_id, PLACES + place)

    def login(self, token: str) -> Login | None:
        """A new session (its id and its secret place) for a valid token, or None."""
        digest = token_digest(token.strip())
        info = self.tokens.check_digest(digest)
        if info is None:
            return None
        session_id = secrets.token_urlsafe(32)
        place = secrets.token_urlsafe(24)
        with self._lock:
            mine = [k for k, s in self._sessions.items() if s.digest == digest]
            for old in mine[: max(0, len(mine) - MAX_SESSIONS_PER_TOKEN + 1)]:
                del self._sessions[old]
            self._sessions[session_id] = _Session(digest, self._now(), place)
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)
        return Login(session_id, place, info)

    def end(self, session_id: str) -> None:
        with self._lock:
            self._sessions.pop(session_id, None)

    # -- CSRF --------------------------------------------------------------------

    def _mac(self, purpose: str, value: str) -> str:
        message = f"{purpose}|{value}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()

    def csrf(self, visitor: Visitor) -> str:
        return self._mac("csrf", visitor.binding)

    def csrf_ok(self, visitor: Visitor, presented: str) -> bool:
        return hmac.compare_digest(self.csrf(visitor), presented)

    def login_nonce(self) -> tuple[str, str]:
        """A login cookie value and the form field that must come back with it."""
        nonce = secrets.token_urlsafe(24)
        return nonce, self._mac("login", nonce)

    def login_ok(self, nonce: str | None, presented: str) -> bool:
        return bool(nonce) and hmac.compare_digest(self._mac("login", nonce or ""), presented)


def session_ids(cookie_header: str) -> list[str]:
    """Every ``hearth_session`` value of a Cookie header, in the browser's order
    (its own cookie, of the longer path, first)."""
    found = []
    for pair in cookie_header.split(";"):
        name, eq, value = pair.strip().partition("=")
        if eq and name.strip() == SESSION_COOKIE and value.strip():
            found.append(value.strip().strip('"'))
    return found
