"""What every page and form of ``/ui/`` shares: who is asking, rendering a page,
a refusal, and a form post (CSRF, scope, one call, then a redirect).

A post's outcome is told by the server, never by the address: the message
(built from what the operation returned) is kept a few minutes under a random
id for the visitor who posted (``Flashes``); the redirect carries only that
id, and a page shows a message only to the visitor it was made for. A forged
``?flash=`` shows nothing.

The routes of ``pages.py`` and ``review.py`` are module-level functions, like
the API's: the served home (``Served``), the page's ``Kit`` (``UiKit``, built
once per app by ``install`` and kept in ``app.state``) and the visitor
(``Reader`` for a page, ``MaybeVisitor`` for a form) are FastAPI
dependencies. Their routes are ``PageRoute``s: a page asked for without a
token goes to the login form, and an error while reading is the refused page,
never the API's JSON.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import secrets
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import parse_qs, urlencode

from fastapi import Depends, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from hearth.app.served.service import ServedHearth
from hearth.errors import Conflict, HearthError, LoginFirst, ValidationFailed
from hearth.operations import may, refusal
from hearth.ui.auth import PLAIN_BASE, Gate, Visitor, session_ids
from hearth.ui.places import place_of
from hearth.ui.render import HEADERS, Views, when, zone_of

#: Form bodies are small; the BodyLimit middleware bounds them anyway.
FORM_TYPE = "application/x-www-form-urlencoded"
#: How long a post's message waits for its page.
FLASH_SECONDS = 300
#: An anchor a form may ask to come back to (a card's or a section's id).
ANCHOR = re.compile(r"[A-Za-z0-9_-]{1,200}")

StatusOf = Callable[[HearthError], int]


@dataclass(frozen=True)
class Done:
    """What a post did, in the page's words: shown once on the page it returns to."""

    message: str
    commit: str | None = None
    #: The id on the page to come back to (``#p-<key>``...), when there is one.
    anchor: str = ""


class Flashes:
    """Messages of posts, by a random id, each for the visitor who posted."""

    def __init__(self) -> None:
        self._found: dict[str, tuple[str, float, Done]] = {}
        self._lock = threading.Lock()

    def put(self, owner: str, done: Done) -> str:
        now = time.monotonic()
        key = secrets.token_urlsafe(12)
        with self._lock:
            for old in [k for k, (_o, t, _d) in self._found.items() if now - t > FLASH_SECONDS]:
                del self._found[old]
            self._found[key] = (owner, now, done)
        return key

    def take(self, owner: str, key: str) -> Done | None:
        with self._lock:
            found = self._found.get(key)
            if found is None or found[0] != owner:
                return None
            del self._found[key]
        return found[2]


#: A refused post's answer on its own page (the review page again, with what was typed).
Refusal = Callable[[Request, Visitor, int, str, dict[str, list[str]]], Response]


class UserZone:
    """USER.md's time zone, read again only when USER.md's blob changes."""

    def __init__(self, service: ServedHearth) -> None:
        self._service = service
        self._zones: dict[str | None, dt.tzinfo] = {}

    def __call__(self) -> dt.tzinfo:
        oid = self._service.head_oids(["USER.md"])["USER.md"]
        if oid not in self._zones:
            try:
                found = zone_of(self._service.get_file("USER.md").content) if oid else dt.UTC
            except HearthError:
                found = dt.UTC
            self._zones.clear()
            self._zones[oid] = found
        return self._zones[oid]


class Kit:
    """The page's state for one app: sessions and CSRF (``gate``), the API's error
    table (``status_of``, one table), the templates, the posts' messages, and
    the person's time zone, asked for each page (USER.md's, else UTC)."""

    def __init__(
        self,
        gate: Gate,
        status_of: StatusOf,
        zone: Callable[[], dt.tzinfo] = lambda: dt.UTC,
    ) -> None:
        self.gate = gate
        self.status_of = status_of
        self.views = Views()
        self.flashes = Flashes()
        self.zone = zone

    @classmethod
    def for_home(cls, service: ServedHearth, status_of: StatusOf) -> Kit:
        return cls(Gate(service.tokens), status_of, UserZone(service))

    def who(self, request: Request) -> Visitor | None:
        return self.gate.visitor(
            request.headers.get("authorization", ""),
            session_ids(request.headers.get("cookie", "")),
            place_of(request.scope),
        )

    def page(
        self,
        request: Request,
        visitor: Visitor,
        template: str,
        http_status: int = 200,
        **ctx: Any,
    ) -> Response:
        flash = request.query_params.get("flash", "")
        done = self.flashes.take(visitor.binding, flash) if flash else None
        return self.views.page(
            template,
            http_status,
            visitor=visitor,
            # The page shows only the actions the one policy lets this token take.
            may=lambda operation: may(visitor.info.scope, operation),
            csrf=self.gate.csrf(visitor),
            base=visitor.base,
            here=request.url.path,
            done=done,
            when=functools.partial(when, zone=self.zone()),
            **ctx,
        )

    def refused(
        self,
        visitor: Visitor | None,
        status: int,
        message: str,
        back: str = "/ui/",
        code: str = "",
    ) -> Response:
        return self.views.page(
            "refused.html",
            status,
            visitor=visitor,
            csrf=self.gate.csrf(visitor) if visitor else "",
            base=visitor.base if visitor else PLAIN_BASE,
            message=message,
            back=visitor.at(back) if visitor else back,
            conflict=code == "conflict",
        )

    def to_login(self, request: Request) -> Response:
        if request.headers.get("authorization"):
            return self.refused(None, 401, "unknown or revoked token", "/ui/login")
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        asked = {"next": target}
        if place_of(request.scope) is not None:
            # A session's place that admits no one: the page's script forgets it
            # rather than going back there (no loop, whatever the timing).
            asked["gone"] = "1"
        return RedirectResponse(f"/ui/login?{urlencode(asked)}", 303, HEADERS)

    async def acting(
        self,
        request: Request,
        visitor: Visitor | None,
        operation: str,
        back: str,
        call: Callable[[Visitor, dict[str, list[str]]], Done],
        again: Refusal | None = None,
    ) -> Response:
        """A form post: who, CSRF, scope, then one call; then back to ``back``
        (at the anchor the form named) with the call's message. A refusal is a
        page; with ``again``, the form's own page, keeping what was typed."""
        if visitor is None:
            return self.refused(None, 401, "log in first: this needs a token", "/ui/login")
        form = await form_lists(request)
        if form is None:
            return self.refused(visitor, 415, f"send the form as {FORM_TYPE}", back)
        if not self.gate.csrf_ok(visitor, first(form, "csrf")):
            return self.refused(
                visitor, 403, "this form did not come from this page (CSRF check failed)", back
            )
        if not may(visitor.info.scope, operation):
            return self.refused(visitor, 403, refusal(visitor.info.scope, operation), back)
        try:
            done = await run_in_threadpool(call, visitor, form)
        except HearthError as exc:
            if isinstance(exc, Conflict) or again is None:
                code = "conflict" if isinstance(exc, Conflict) else exc.code
                return self.refused(visitor, self.status_of(exc), plain(exc), back, code)
            return again(request, visitor, self.status_of(exc), plain(exc), form)
        key = self.flashes.put(visitor.binding, done)
        anchor = first(form, "anchor") or done.anchor
        tail = f"#{anchor}" if ANCHOR.fullmatch(anchor) else ""
        back = visitor.at(back)
        return RedirectResponse(f"{back}?{urlencode({'flash': key})}{tail}", 303, HEADERS)


# -- the routes' dependencies -------------------------------------------------------
# async: FastAPI would run a plain function on its thread pool, a hop that a
# lookup in the app's state (and the token check, as the API's gate) need not pay.


async def _kit(request: Request) -> Kit:
    kit: Kit = request.app.state.ui_kit
    return kit


async def _served(request: Request) -> ServedHearth:
    served: ServedHearth = request.app.state.service
    return served


#: The page's Kit (``install`` keeps it in the app's state).
UiKit = Annotated[Kit, Depends(_kit)]
#: The served home (``create_app`` keeps it in the app's state, as for the API).
Served = Annotated[ServedHearth, Depends(_served)]


async def _maybe_visitor(request: Request, kit: UiKit) -> Visitor | None:
    return kit.who(request)


#: Who posts a form, or None (the form's post says so with a refusal page).
MaybeVisitor = Annotated[Visitor | None, Depends(_maybe_visitor)]


async def _reader(request: Request, visitor: MaybeVisitor) -> Visitor:
    if visitor is None:
        raise LoginFirst
    request.state.visitor = visitor
    return visitor


#: Who reads a page; without a valid token the route answers with the login form.
Reader = Annotated[Visitor, Depends(_reader)]


class PageRoute(APIRoute):
    """A route of the page: a reader without a valid token is sent to log in (a
    header token that is not valid is refused), and an error while a reader's
    page is made is the refused page with the error table's status."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def page_or_refusal(request: Request) -> Response:
            try:
                return await handler(request)
            except LoginFirst:
                kit: Kit = request.app.state.ui_kit
                return kit.to_login(request)
            except HearthError as exc:
                visitor: Visitor | None = getattr(request.state, "visitor", None)
                if visitor is None:  # not a page's reader: the app's error table
                    raise
                kit = request.app.state.ui_kit
                return kit.refused(visitor, kit.status_of(exc), exc.message)

        return page_or_refusal


def plain(exc: HearthError) -> str:
    """An error in the page's words (the bound's figures said as before and after)."""
    if isinstance(exc, ValidationFailed):
        said = []
        for f in exc.failures:
            found = re.match(r"(\S+) has (\d+) characters, over its bound of (\d+)", f.message)
            if f.rule == "size-bound" and found:
                path, chars, bound = found.group(1), int(found.group(2)), int(found.group(3))
                room = (
                    f.fix[0].upper() + f.fix[1:]
                    if f.fix.startswith("hearth proposed")
                    else "Make room first (the proposal's card says which entries to move "
                    "to a topic note), or merge fewer at once"
                )
                said.append(
                    f"this would make {path} {chars:,} characters, over its bound of "
                    f"{bound:,}: nothing was changed. {room}"
                )
            else:
                said.append(f"{f.path}: {f.message} ({f.fix})")
        return "; ".join(said)
    return exc.message


def first(form: dict[str, list[str]], name: str) -> str:
    values = form.get(name)
    return values[0] if values else ""


async def form_lists(request: Request) -> dict[str, list[str]] | None:
    """A form's fields with every value (checkboxes send one ``keys`` per box);
    None when the body is not a form."""
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != FORM_TYPE:
        return None
    body = (await request.body()).decode("utf-8", "replace")
    return parse_qs(body, keep_blank_values=True)


class GzipPages:
    """Starlette's ``GZipMiddleware`` for the review page's answers only (``/ui/``):
    the JSON API and MCP's streamed answers at ``/mcp`` pass untouched."""

    def __init__(self, app: Any) -> None:
        from starlette.middleware.gzip import GZipMiddleware  # noqa: PLC0415

        self.app = app
        self.gzip = GZipMiddleware(app, minimum_size=1000)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("path", "").startswith("/ui/"):
            await self.gzip(scope, receive, send)
        else:
            await self.app(scope, receive, send)
