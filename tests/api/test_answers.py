"""One wire model per result: HTTP and MCP send the same fields (``hearth.answers``)."""

from __future__ import annotations

from typing import Any

import anyio

from hearth.api import models as http_models
from hearth.mcp import models as mcp_models
from tests.api.conftest import Server
from tests.mcp.conftest import call, http_client

SHARED = (
    "SearchResult",
    "Written",
    "ContextBundle",
    "History",
    "Diff",
    "Status",
    "Decisions",
    "ErrorBody",
)


def test_the_surfaces_name_one_model_for_each_shared_result() -> None:
    for name in SHARED:
        assert getattr(http_models, name) is getattr(mcp_models, name), name
    # The review tool's proposals are the HTTP listing's proposals.
    review = mcp_models.Review.model_fields["proposals"].annotation
    assert review == list[http_models.Proposal]


def test_a_search_answers_the_same_fields_over_http_and_mcp(shared_server: Server) -> None:
    s = shared_server
    assert s.post("/v1/daily", {"text": "wiremodel heron sighting"}, token="write").status == 200
    over_http = s.get("/v1/search?q=wiremodel", token="read").body

    async def run() -> Any:
        async with http_client(s, "read") as client:
            return await call(client, "search", {"query": "wiremodel"})

    over_mcp = anyio.run(run)
    assert set(over_http) == set(over_mcp) >= {"hits", "ranking", "vectors", "fresh"}
    assert [h["path"] for h in over_http["hits"]] == [h["path"] for h in over_mcp["hits"]]
    assert over_http["hits"] and set(over_http["hits"][0]) == set(over_mcp["hits"][0])
