"""``GET /v1/search`` with plain parameters, answered without FastAPI's solving.

A search is the request a runtime makes at every prompt, and FastAPI's
per-request work for it (solving the route's dependencies and its five query
parameters, matching it among the routes) was a third of a common-word search
on the 10,000-file home (``bench/workload.py``; docs/performance.md, "Figures
behind the code's comments"). This route is put first and takes only a request whose
parameters need no judgement: each of ``q``, ``kind``, ``path``, ``limit`` and
``all`` at most once, ``q`` given, every value already what the declared route
would accept (``limit`` plain digits in range, ``all`` ``true`` or ``false``).
Anything else (a missing or doubled parameter, an unknown one, a value the
declared route would refuse or would have to convert) is not matched here, so
the declared route (``routes.search``) answers it as before, its 422 among
them; the OpenAPI document is the declared route's.

What it runs is the declared route's: the same gate (``gate.admit``), the
same call, and FastAPI's own serializer with the declared route's response
model, so the answer is the same bytes (``tests/api/test_fast_search.py``).
What it takes is the declared route's too: the parameters' names, defaults,
bounds and kinds are read from the route's own declarations (``Declared``),
never restated here, so a changed default or bound reaches both at once.
"""

from __future__ import annotations

import re
import typing
from dataclasses import dataclass
from typing import Any

import annotated_types
from fastapi.routing import APIRoute, serialize_response
from pydantic.fields import FieldInfo
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from hearth.answers import search_result
from hearth.api.gate import admit
from hearth.app.served.service import ServedHearth

PATH = "/v1/search"
#: Plain digits with no sign or leading zero, few enough to be read as they are.
_DIGITS = re.compile(r"[1-9][0-9]{0,8}")
#: A limit the declared route leaves unbounded is taken up to what ``_DIGITS`` reads.
_MOST = 999_999_999
_ALL = {"true": True, "false": False}
_SEARCH = "hearth.search"


def _bound(info: FieldInfo, kind: type[Any], attribute: str) -> int | None:
    """The bound of ``kind`` (``MaxLen``, ``Ge``, ``Le``) a parameter declares, if any."""
    found = [getattr(m, attribute) for m in info.metadata if isinstance(m, kind)]
    return int(found[0]) if found else None


@dataclass(frozen=True)
class Declared:
    """What the declared route takes of ``q``, ``kind``, ``path``, ``limit`` and
    ``all``, read from its parameters (their aliases, defaults and bounds)."""

    names: frozenset[str]
    q_chars: int | None
    kinds: frozenset[str]
    path_chars: int | None
    limit: int
    least: int
    most: int
    everything: bool

    @classmethod
    def of(cls, route: APIRoute) -> Declared:
        fields = {field.alias: field for field in route.dependant.query_params}
        q, kind, path = fields["q"], fields["kind"], fields["path"]
        limit, everything = fields["limit"], fields["all"]
        kinds = {
            value
            for arg in typing.get_args(kind.field_info.annotation)
            for value in typing.get_args(arg)
        }
        return cls(
            names=frozenset(fields),
            q_chars=_bound(q.field_info, annotated_types.MaxLen, "max_length"),
            kinds=frozenset(kinds),
            path_chars=_bound(path.field_info, annotated_types.MaxLen, "max_length"),
            limit=int(limit.field_info.default),
            least=_bound(limit.field_info, annotated_types.Ge, "ge") or 1,
            most=_bound(limit.field_info, annotated_types.Le, "le") or _MOST,
            everything=bool(everything.field_info.default),
        )


class FastSearch(BaseRoute):
    """The route; ``declared`` is the declared route (its response model and
    its parameters)."""

    def __init__(self, declared: APIRoute) -> None:
        self.declared = declared
        self.takes = Declared.of(declared)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] != PATH:
            return Match.NONE, {}
        asked = plain(scope.get("query_string", b""), self.takes)
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


def _within(value: str, chars: int | None) -> bool:
    return chars is None or len(value) <= chars


def plain(query_string: bytes, takes: Declared) -> tuple[Any, ...] | None:
    """``(q, kind, path, limit, all)`` of a query string the declared route
    would take as it is; None for any other."""
    given: dict[str, str] = {}
    for name, value in QueryParams(query_string).multi_items():
        if name not in takes.names or name in given:
            return None
        given[name] = value
    q = given.get("q")
    if q is None or not _within(q, takes.q_chars):
        return None
    kind = given.get("kind")
    if kind is not None and kind not in takes.kinds:
        return None
    path = given.get("path")
    if path is not None and not _within(path, takes.path_chars):
        return None
    limit = takes.limit
    if "limit" in given:
        if not _DIGITS.fullmatch(given["limit"]):
            return None
        limit = int(given["limit"])
        if not takes.least <= limit <= takes.most:
            return None
    everything = _ALL.get(given["all"]) if "all" in given else takes.everything
    if everything is None:
        return None
    return q, kind, path, limit, everything


def install(routes: list[BaseRoute], declared: list[BaseRoute]) -> None:
    """Put the route first in ``routes`` (an app's); ``declared``: the routes
    that hold the declared ``GET /v1/search`` (``routes.router``'s)."""
    route = next(
        r
        for r in declared
        if isinstance(r, APIRoute) and r.path == PATH and "GET" in (r.methods or ())
    )
    routes.insert(0, FastSearch(route))
