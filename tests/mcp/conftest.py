"""MCP clients for the tests: the official SDK's, over stdio (a real ``hearth mcp``
process) and over streamable HTTP (a real ``hearth serve``)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from mcp import Client, StdioServerParameters
from tests.api.conftest import BIN, Server


def stdio_client(root: Path, *args: str) -> Client:
    """A client that starts ``hearth --home ROOT mcp ARGS`` and talks over its pipes."""
    params = StdioServerParameters(
        command=str(BIN / "hearth"),
        args=["--home", str(root), "mcp", *args],
        env=os.environ.copy(),
    )
    return Client(params, read_timeout_seconds=60)


@asynccontextmanager
async def http_client(server: Server, token: str, path: str = "/mcp") -> AsyncIterator[Client]:
    """A client of ``server``'s MCP endpoint sending ``token`` (a scope name or a token)."""
    secret = server.tokens.get(token, token)
    headers = {"Authorization": f"Bearer {secret}"}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        transport = streamable_http_client(server.url + path, http_client=http)
        async with Client(transport) as client:
            yield client


async def call(client: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """A tool's structured answer; fails the test on a tool error."""
    result = await client.call_tool(name, arguments or {})
    assert not result.is_error, result.content
    return result.structured_content


async def refused(client: Client, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """A tool error's body: the API's ``{"code", "message", "detail"}``."""
    result: CallToolResult = await client.call_tool(name, arguments or {})
    assert result.is_error, result.structured_content
    text = result.content[0].text  # type: ignore[union-attr]
    assert "Traceback" not in text
    body = json.loads(text)
    assert body == result.structured_content
    return body["error"]


from tests.api.conftest import shared_server  # noqa: E402, F401  (one real server per module)
