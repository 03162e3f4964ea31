"""Random arguments against every tool give results or tool errors, never a crash
or a broken session (in-process: the SDK's client against the server object)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth import wiring
from hearth.app.served.service import ServedHearth
from hearth.mcp.server import build_server, fixed_caller
from mcp import Client
from tests.conftest import Workspace

NAMES = [
    "search", "read", "context", "review", "history", "diff", "status", "note", "propose",
    "add_loop", "resolve_loop", "write", "memory", "topic", "merge", "reject",
]  # fmt: skip
KEYS = [
    "query", "kind", "path", "limit", "start_line", "end_line", "session", "q", "user", "from",
    "to", "text", "title", "entries", "target", "rationale", "source", "summary", "next_step",
    "key", "note", "content", "expected_oid", "message", "op", "file", "entry", "new_entry",
    "append", "reason",
]  # fmt: skip
TEXTS = st.one_of(
    st.sampled_from(
        ["SOUL.md", "MEMORY.md", "../x.md", ".git/config", "", "#1", "add", "list", "main", "a/"]
    ),
    st.text(max_size=40),
)
VALUES = st.one_of(
    TEXTS,
    st.integers(min_value=-5, max_value=10**6),
    st.none(),
    st.booleans(),
    st.lists(TEXTS, max_size=3),
)
CALLS = st.tuples(st.sampled_from(NAMES), st.dictionaries(st.sampled_from(KEYS), VALUES))


def _session(service: ServedHearth, calls: list[tuple[str, dict[str, Any]]]) -> None:
    server = build_server(service, fixed_caller("fuzz", "admin"))

    async def run() -> None:
        async with Client(server) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
                assert "Traceback" not in text
                if result.is_error:
                    # the API's error body, or the SDK's account of arguments that do
                    # not fit the schema; never the bare "Error executing tool" of a crash
                    if not text.startswith(f"Error executing tool {name}: "):
                        assert set(json.loads(text)["error"]) == {"code", "message", "detail"}
                else:
                    assert result.structured_content is not None
            assert not (await client.call_tool("status", {})).is_error

    anyio.run(run)


def test_random_arguments_never_break_a_session(workspace: Workspace) -> None:
    service = wiring.open_service(workspace.root)
    service.start()
    try:

        @settings(
            max_examples=10,
            deadline=None,
            suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
        )
        @given(st.lists(CALLS, min_size=1, max_size=5))
        def check(calls: list[tuple[str, dict[str, Any]]]) -> None:
            _session(service, calls)

        check()
    finally:
        service.stop()
    workspace.git("fsck", "--no-progress")
