"""``GET /v1/search`` with plain parameters is answered by ``api/fast_search.py``:
the same bytes as the declared route gives, which still answers everything else."""

from __future__ import annotations

import http.client
import time
from typing import Annotated, Literal
from urllib.parse import urlencode

import pytest
from fastapi import APIRouter, Query
from fastapi.routing import APIRoute
from starlette.routing import Match

from hearth.api import routes
from hearth.api.fast_search import Declared, FastSearch, plain
from tests.api.conftest import Server


@pytest.mark.parametrize(
    ("query", "taken"),
    [
        ("q=otter", ("otter", None, None, 10, False)),
        ("q=&limit=200", ("", None, None, 200, False)),
        ("q=a+b&kind=topic&path=memory%2F&limit=3&all=true", ("a b", "topic", "memory/", 3, True)),
        ("q=caf%C3%A9&all=false", ("café", None, None, 10, False)),
        ("", None),  # no q: the declared route's 422
        ("limit=3", None),
        ("q=a&q=b", None),  # doubled
        ("q=a&x=1", None),  # unknown (the declared route ignores it)
        ("q=a&kind=nothing", None),
        ("q=a&kind=", None),
        ("q=a&limit=0", None),
        ("q=a&limit=201", None),
        ("q=a&limit=010", None),  # the declared route converts it: left to it
        ("q=a&limit=+3", None),
        ("q=a&limit=", None),
        ("q=a&all=1", None),
        ("q=a&all=True", None),
        ("q=" + "x" * 2001, None),
        ("q=a&path=" + "p" * 1001, None),
    ],
)
def test_only_plain_parameters_are_taken(query: str, taken: tuple[object, ...] | None) -> None:
    assert plain(query.encode(), Declared.of(_declared())) == taken


def _declared() -> APIRoute:
    return next(
        r for r in routes.router.routes if isinstance(r, APIRoute) and r.path == "/v1/search"
    )


def test_what_it_takes_is_read_from_the_declared_route() -> None:
    """The route's defaults and bounds are the declared route's, not restated
    (issue 51: fast_search.py repeated ``limit``'s 10 and its bound)."""
    router = APIRouter()

    @router.get("/v1/search")
    def search(
        q: Annotated[str, Query(max_length=5)],
        kind: Literal["topic"] | None = None,
        path: Annotated[str | None, Query(max_length=3)] = None,
        limit: Annotated[int, Query(ge=2, le=7)] = 4,
        everything: Annotated[bool, Query(alias="all")] = True,
    ) -> None: ...

    route = router.routes[0]
    assert isinstance(route, APIRoute)
    takes = Declared.of(route)
    assert plain(b"q=otter", takes) == ("otter", None, None, 4, True)
    assert plain(b"q=a&limit=7&all=false&kind=topic", takes) == ("a", "topic", None, 7, False)
    for refused in (
        b"q=abcdef",
        b"q=a&limit=8",
        b"q=a&limit=1",
        b"q=a&kind=daily",
        b"q=a&path=abcd",
    ):
        assert plain(refused, takes) is None


def test_it_matches_a_plain_get_of_the_search_path_only() -> None:
    declared = next(r for r in routes.router.routes if getattr(r, "path", "") == "/v1/search")
    route = FastSearch(declared)  # type: ignore[arg-type]

    def match(method: str, path: str, query: bytes) -> Match:
        scope = {"type": "http", "method": method, "path": path, "query_string": query}
        return route.matches(scope)[0]

    assert match("GET", "/v1/search", b"q=a") == Match.FULL
    assert match("HEAD", "/v1/search", b"q=a") == Match.NONE
    assert match("POST", "/v1/search", b"q=a") == Match.NONE
    assert match("GET", "/v1/search/", b"q=a") == Match.NONE
    assert match("GET", "/v1/search", b"q=a&limit=0") == Match.NONE


def _raw(s: Server, path: str, token: str | None) -> tuple[int, bytes, list[tuple[str, str]]]:
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    headers = {"Authorization": f"Bearer {s.tokens.get(token, token)}"} if token else {}
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        body = response.read()
    finally:
        conn.close()
    kept = [(k.lower(), v) for k, v in response.getheaders() if k.lower() != "date"]
    return response.status, body, sorted(kept)


@pytest.mark.parametrize(
    ("params", "token"),
    [
        ({"q": "otter lanterns"}, "read"),
        ({"q": "otter lanterns", "all": "true", "limit": "1"}, "read"),
        ({"q": "lanterns", "kind": "topic", "path": "memory/topics/"}, "write"),
        ({"q": '"brass lanterns"'}, "read"),
        ({"q": "café"}, "read"),
        ({"q": ""}, "read"),
        ({"q": "otter"}, None),  # 401, from the same gate
        ({"q": "otter"}, "no-such-token"),
    ],
)
def test_the_answer_is_the_declared_routes_byte_for_byte(
    shared_server: Server, params: dict[str, str], token: str | None
) -> None:
    s = shared_server
    notes = {
        "memory/topics/fundraiser.md": "# Fundraiser\n\nLanterns for the otter fundraiser.\n",
        "memory/topics/porch.md": "# Porch\n\nBought two brass lanterns for the porch, café.\n",
    }
    for path, content in notes.items():
        assert s.put(f"/v1/files/{path}", {"content": content}).status == 200
    # An unknown parameter leaves the request to the declared route (which ignores it).
    # The answer says whether a pass is pending (``fresh``), which may change between
    # the two requests (the writes' own passes): the pair is asked again until the
    # server is still; a difference of the routes shows in every pair.
    for _ in range(50):
        fast = _raw(s, "/v1/search?" + urlencode(params), token)
        declared = _raw(s, "/v1/search?" + urlencode({**params, "unknown": "1"}), token)
        if fast == declared:
            break
        time.sleep(0.1)
    assert fast == declared
    assert fast[0] == (200 if token in ("read", "write") else 401)
