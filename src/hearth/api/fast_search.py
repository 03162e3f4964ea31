"""``GET /v1/search`` with plain parameters, answered without FastAPI's solving.

A search is the request a runtime makes at every prompt, and FastAPI's
per-request work for it (solving the route's dependencies and its five query
parameters, matching it among the routes) was 0.6 ms of CPU on top of the
search itself, about a third of a common-word search on the 10,000-file home
(``bench/workload.py``). This route is put first and takes only a request whose
parameters need no judgement: each of ``q``, ``kind``, ``path``, ``limit`` and
``all`` at most once, ``q`` given, every value already what the declared route
would accept (``limit`` plain digits in range, ``all`` ``true`` or ``false``).
Anything else (a missing or doubled parameter, an unknown one, a value the
declared route would refuse or would have to convert) is not matched here, so
the declared route (``routes.search``) answers it as before, its 422 among
them; the OpenAPI document is the declared route's.

What it runs is the declared route's: the same gate (``routes.admit``), the
same call, and FastAPI's own serializer with the declared route's response
model, so the answer is the same bytes (``tests/api/test_fast_search.py``).
"""

from __future__ import annotations

import re
from typing import Any

from fastapi.routing import APIRoute, serialize_response
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from hearth.answers import search_result
from hearth.api.routes import admit
from hearth.app.served.service import ServedHearth
from hearth.domain.layout import KINDS
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS

PATH = "/v1/search"
_NAMES = frozenset({"q", "kind", "path", "limit", "all"})
_LIMIT = re.compile(r"[1-9][0-9]{0,3}")
_ALL = {"true": True, "false": False}
_SEARCH = "hearth.search"


class FastSearch(BaseRoute):
    """The route; ``declared`` is the declared route (its response model)."""

    def __init__(self, declared: APIRoute) -> None:
        self.declared = declared

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] != PATH:
            return Match.NONE, {}
        asked = plain(scope.get("query_string", b""))
        return (Match.NONE, {}) if asked is None else (Match.FULL, {_SEARCH: asked})

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        service: ServedHearth = request.app.state.service
        admit(request, service, "search", hook_key=True)
        q, kind, path, limit, everything = scope[_SEARCH]
        found = service.search(q, kind, path, limit, everything=everything)
        content = await serialize_response(
            field=self.declared.response_field,
            response_content=search_result(found, *service.index_freshness()),
            dump_json=True,
        )
        await Response(content, media_type="application/json")(scope, receive, send)


def plain(query_string: bytes) -> tuple[Any, ...] | None:
    """``(q, kind, path, limit, all)`` of a query string the declared route
    would take as it is; None for any other."""
    given: dict[str, str] = {}
    for name, value in QueryParams(query_string).multi_items():
        if name not in _NAMES or name in given:
            return None
        given[name] = value
    q = given.get("q")
    if q is None or len(q) > MAX_QUERY_CHARS:
        return None
    kind = given.get("kind")
    if kind is not None and kind not in KINDS:
        return None
    path = given.get("path")
    if path is not None and len(path) > MAX_PREFIX_CHARS:
        return None
    limit = given.get("limit", "10")
    if not _LIMIT.fullmatch(limit) or int(limit) > MAX_LIMIT:
        return None
    everything = _ALL.get(given.get("all", "false"))
    if everything is None:
        return None
    return q, kind, path, int(limit), everything


def install(routes: list[BaseRoute], declared: list[BaseRoute]) -> None:
    """Put the route first in ``routes`` (an app's); ``declared``: the routes
    that hold the declared ``GET /v1/search`` (``routes.router``'s)."""
    route = next(
        r
        for r in declared
        if isinstance(r, APIRoute) and r.path == PATH and "GET" in (r.methods or ())
    )
    routes.insert(0, FastSearch(route))
