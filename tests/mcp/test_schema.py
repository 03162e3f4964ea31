"""The tools' output schemas are published with nested models written in place."""

from __future__ import annotations

import jsonschema
import pytest
from pydantic import BaseModel, Field

from hearth.mcp.calls import inline_refs
from hearth.mcp.models import SearchResult


class _Node(BaseModel):
    name: str
    children: list[_Node] = []


class _Outer(BaseModel):
    hit: SearchResult = Field(description="a nested model with a sibling keyword")
    hits: list[SearchResult]


def test_inlined_schema_accepts_and_refuses_what_the_original_does() -> None:
    original = _Outer.model_json_schema()
    inlined = inline_refs(original)
    assert "$ref" not in str(inlined) and "$defs" not in inlined
    assert inlined["properties"]["hit"]["description"] == "a nested model with a sibling keyword"
    hit = {
        "path": "a.md",
        "start_line": 1,
        "end_line": 2,
        "title": "A",
        "heading": "",
        "kind": "topic",
        "date": "",
        "score": 1.5,
        "snippet": "x",
    }
    result = {"hits": [hit], "fresh": True}
    good = {"hit": result, "hits": [result, result]}
    bad = {"hit": result, "hits": [{**result, "hits": [{**hit, "start_line": "one"}]}]}
    for schema in (original, inlined):
        jsonschema.validate(good, schema)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_a_recursive_schema_is_refused() -> None:
    with pytest.raises(ValueError, match="recursive output schema: _Node"):
        inline_refs(_Node.model_json_schema())
