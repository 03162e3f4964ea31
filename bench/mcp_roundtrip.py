"""Time MCP round trips next to the same calls over ``/v1`` on a generated home.

    .venv/bin/python bench/mcp_roundtrip.py [--files 10000] [--searches 200] [--starts 3]

Seeds a home, serves it with ``hearth serve`` and times, round by round, the
same search made every way a client can make it, so that load from other
processes falls on all of them alike (the order rotates each round):

- ``GET /v1/search`` over one keep-alive ``http.client`` connection (the
  baseline) and over ``httpx2`` (the HTTP client the MCP SDK uses);
- the MCP ``search`` tool as raw JSON-RPC over one ``http.client``
  connection: a 2026-07-28 single exchange, and a call in a 2025-06-18
  session (the initialize handshake most runtimes speak today): the server's
  own cost;
- the MCP ``search`` tool through the official SDK client (``mcp.Client``),
  in its default mode (2026-07-28) and in ``mode="legacy"``: what a Python
  agent sees, including the client's own work (it checks every result
  against the tool's output schema).

Then ``note`` then ``search`` (read-your-writes) next to ``POST /v1/daily``
then ``GET /v1/search``, the first MCP request on a server (which imports
the SDK) and a stdio session's start-up (``hearth mcp`` spawned, initialized,
tools listed). Semantic ranking is off, as in the other timing benches.
Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from homegen import WORDS, percentile, seed_home, start_server, use_git_identity
from mcp import Client, StdioServerParameters

MODERN = "2026-07-28"
LEGACY = "2025-06-18"
JSON_RPC = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _line(name: str, samples: list[float]) -> float:
    ms = [s * 1000 for s in samples]
    p50, p99 = percentile(ms, 0.5), percentile(ms, 0.99)
    print(f"  {name:<46} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   (n={len(ms)})")
    return p50


class Raw:
    """JSON-RPC and REST calls over one keep-alive ``http.client`` connection."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.auth = {"Authorization": f"Bearer {token}"}
        self.session: dict[str, str] = {}
        self.ids = 0

    def request(self, method: str, path: str, body: object = None, **headers: str) -> bytes:
        data = None if body is None else json.dumps(body)
        try:
            self.conn.request(method, path, body=data, headers={**self.auth, **headers})
            reply = self.conn.getresponse()
        except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
            self.conn.close()  # the server ended an idle keep-alive connection: once more
            self.conn.request(method, path, body=data, headers={**self.auth, **headers})
            reply = self.conn.getresponse()
        raw = reply.read()
        if reply.status >= 300:
            raise RuntimeError(f"{method} {path}: {reply.status} {raw[:300]!r}")
        if sid := reply.getheader("mcp-session-id"):
            self.session = {"mcp-session-id": sid, "mcp-protocol-version": LEGACY}
        return raw

    def v1_search(self, word: str) -> None:
        json.loads(self.request("GET", f"/v1/search?q={quote(word)}"))

    def rpc(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> Any:
        self.ids += 1
        body = {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        raw = self.request("POST", "/mcp", body, **JSON_RPC, **headers, **self.session)
        answer = json.loads(raw)
        assert "result" in answer, answer
        return answer["result"]

    def mcp_search(self, word: str) -> None:
        params = {"name": "search", "arguments": {"query": word}, "_meta": META}
        headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call"}
        self.session = {}
        assert (
            "hits"
            in self.rpc("tools/call", params, {**headers, "mcp-name": "search"})[
                "structuredContent"
            ]
        )

    def open_session(self) -> None:
        info = {"name": "bench", "version": "1"}
        hello = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": info}
        self.rpc("initialize", hello, {})
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        self.request("POST", "/mcp", note, **JSON_RPC, **self.session)

    def legacy_search(self, word: str) -> None:
        result = self.rpc("tools/call", {"name": "search", "arguments": {"query": word}}, {})
        assert "hits" in result["structuredContent"]


async def _sdk(stack: AsyncExitStack, port: int, token: str, mode: str) -> Client:
    headers = {"Authorization": f"Bearer {token}"}
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=120))
    transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)
    return await stack.enter_async_context(Client(transport, mode=mode))


Samples = dict[str, list[float]]


async def _searches(port: int, token: str, words: list[str]) -> tuple[float, Samples]:
    async with AsyncExitStack() as stack:
        t0 = time.perf_counter()
        modern = await _sdk(stack, port, token, "auto")
        await modern.call_tool("search", {"query": words[0]})
        first = time.perf_counter() - t0
        legacy = await _sdk(stack, port, token, "legacy")
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
        )
        raw = Raw(port, token)
        raw25 = Raw(port, token)
        raw25.open_session()

        async def v1_httpx(word: str) -> None:
            reply = await http.get(f"http://127.0.0.1:{port}/v1/search", params={"q": word})
            reply.raise_for_status()
            reply.json()

        async def sync(call: Callable[[str], None], word: str) -> None:
            call(word)

        async def sdk(client: Client, word: str) -> None:
            result = await client.call_tool("search", {"query": word})
            assert not result.is_error and result.structured_content

        ways: dict[str, Callable[[str], Awaitable[None]]] = {
            "GET /v1/search (http.client)": lambda w: sync(raw.v1_search, w),
            "GET /v1/search (httpx2)": v1_httpx,
            "MCP search, raw JSON-RPC, 2026 exchange": lambda w: sync(raw.mcp_search, w),
            "MCP search, raw JSON-RPC, 2025 session": lambda w: sync(raw25.legacy_search, w),
            "MCP search, SDK client (2026, default)": lambda w: sdk(modern, w),
            "MCP search, SDK client (legacy, 2025)": lambda w: sdk(legacy, w),
        }
        names = list(ways)
        for word in words[:10]:  # warm every path (the SDK lists tools once)
            for name in names:
                await ways[name](word)
        samples: dict[str, list[float]] = {name: [] for name in names}
        for n, word in enumerate(words):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                t0 = time.perf_counter()
                await ways[name](word)
                samples[name].append(time.perf_counter() - t0)
        return first, samples


def _schema_check(raw: Raw, word: str) -> float:
    """Seconds the official client's check of one search answer takes (best of 5 x 50):
    the tool's output schema, compiled once, against the answer's structured content,
    as ``ClientSession.validate_tool_result`` does it."""
    from jsonschema import exceptions
    from jsonschema.validators import validator_for
    from referencing import Registry

    listing = raw.rpc(
        "tools/list", {"_meta": META}, {"mcp-protocol-version": MODERN, "mcp-method": "tools/list"}
    )
    schema = next(t["outputSchema"] for t in listing["tools"] if t["name"] == "search")
    params = {"name": "search", "arguments": {"query": word}, "_meta": META}
    headers = {"mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "search"}
    answer = raw.rpc("tools/call", params, headers)["structuredContent"]
    validator = validator_for(schema)(schema, registry=Registry())
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(50):
            exceptions.best_match(validator.iter_errors(answer))
        best = min(best, (time.perf_counter() - t0) / 50)
    return best


async def _writes(port: int, token: str, words: list[str]) -> tuple[list[float], list[float]]:
    raw = Raw(port, token)
    v1, mcp = [], []
    async with AsyncExitStack() as stack:
        client = await _sdk(stack, port, token, "auto")
        for n in range(min(40, len(words))):
            text = f"v1 bench note {n} {words[n]}"
            t0 = time.perf_counter()
            raw.request("POST", "/v1/daily", {"text": text}, **{"Content-Type": "application/json"})
            found = json.loads(raw.request("GET", f"/v1/search?q={quote(text)}&limit=1"))
            v1.append(time.perf_counter() - t0)
            assert found["hits"], "a written note must be found"
            text = f"mcp bench note {n} {words[n]}"
            t0 = time.perf_counter()
            await client.call_tool("note", {"text": text})
            hits = await client.call_tool("search", {"query": text, "limit": 1})
            mcp.append(time.perf_counter() - t0)
            assert hits.structured_content and hits.structured_content["hits"]
    return v1, mcp


async def _stdio_start(root: Path) -> float:
    params = StdioServerParameters(
        command=str(Path(sys.executable).parent / "hearth"),
        args=["--home", str(root), "mcp", "--scope", "read"],
        env=os.environ.copy(),
    )
    t0 = time.perf_counter()
    async with Client(params, read_timeout_seconds=120) as client:
        await client.list_tools()
        return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--starts", type=int, default=3, help="stdio start-ups to time")
    args = parser.parse_args()
    rng = random.Random(11)
    env = use_git_identity()
    with tempfile.TemporaryDirectory(prefix="hearth-bench-mcp-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        server, port, token = start_server(root, env)
        try:
            words = [rng.choice(WORDS) for _ in range(args.searches)]
            first, samples = anyio.run(_searches, port, token, words)
            check = _schema_check(Raw(port, token), words[0])
            v1_write, mcp_write = anyio.run(_writes, port, token, words)
        finally:
            server.terminate()
            server.wait()
        starts = [anyio.run(_stdio_start, root) for _ in range(args.starts)]
    print(f"\nsearch, {args.files}-file home, interleaved rounds (order rotating):")
    p50 = {name: _line(name, ms) for name, ms in samples.items()}
    base = p50["GET /v1/search (http.client)"]
    print("  ratio of p50 to GET /v1/search (http.client):")
    for name, value in p50.items():
        print(f"    {name:<46} {value / base:5.2f}")
    print("  (goal: the MCP search p50 at most 1.5x /v1/search and under 10 ms)")
    print(
        f"  the SDK client's output-schema check of one search answer alone: "
        f"{check * 1000:.2f} ms (best of 5)"
    )
    print("\nwrite then search (read-your-writes), interleaved:")
    _line("POST /v1/daily then GET /v1/search", v1_write)
    _line("MCP note then search (SDK client)", mcp_write)
    print(f"\nfirst MCP session on a server (SDK imported on demand): {first * 1000:.0f} ms")
    shown = ", ".join(f"{s * 1000:.0f}" for s in starts)
    print(
        f"stdio session start-up (spawn, initialize, list tools): median "
        f"{statistics.median(starts) * 1000:.0f} ms ({shown})"
    )


if __name__ == "__main__":
    main()
