"""Time MCP round trips next to the same calls over ``/v1`` on a generated home.

    .venv/bin/python bench/mcp_roundtrip.py [--files 10000] [--searches 200]

Seeds a home, serves it with ``hearth serve`` and, with the official MCP
client over streamable HTTP, times the ``search`` tool and ``note`` then
``search`` (read-your-writes) next to ``GET /v1/search`` and ``POST /v1/daily``
then ``GET /v1/search`` over one keep-alive connection. Also times a stdio
session's start-up (``hearth mcp`` spawned, initialized, tools listed) and the
first MCP request on a server (which imports the SDK). Semantic ranking is off,
as in the other timing benches. Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client

from homegen import WORDS, percentile, seed_home, start_server, use_git_identity
from mcp import Client, StdioServerParameters


def _line(name: str, samples: list[float]) -> float:
    ms = [s * 1000 for s in samples]
    p50, p99 = percentile(ms, 0.5), percentile(ms, 0.99)
    print(f"  {name:<44} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms   (n={len(ms)})")
    return p50


def _v1(port: int, token: str, words: list[str]) -> tuple[list[float], list[float]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def get(path: str) -> bytes:
        conn.request("GET", path, headers=headers)
        return conn.getresponse().read()

    searches, writes = [], []
    for word in words:
        t0 = time.perf_counter()
        get(f"/v1/search?q={quote(word)}")
        searches.append(time.perf_counter() - t0)
    for n in range(min(40, len(words))):
        text = f"v1 bench note {n} {words[n]}"
        t0 = time.perf_counter()
        conn.request("POST", "/v1/daily", body=json.dumps({"text": text}), headers=headers)
        conn.getresponse().read()
        found = json.loads(get(f"/v1/search?q={quote(text)}&limit=1"))
        writes.append(time.perf_counter() - t0)
        assert found["hits"], "a written note must be found"
    conn.close()
    return searches, writes


async def _mcp(port: int, token: str, words: list[str]) -> tuple[float, list[float], list[float]]:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient(headers=headers, timeout=120) as http_client:
        t0 = time.perf_counter()
        transport = streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http_client)
        async with Client(transport) as client:
            await client.call_tool("search", {"query": words[0]})
            first = time.perf_counter() - t0
            searches, writes = [], []
            for word in words:
                t0 = time.perf_counter()
                await client.call_tool("search", {"query": word})
                searches.append(time.perf_counter() - t0)
            for n in range(min(40, len(words))):
                text = f"mcp bench note {n} {words[n]}"
                t0 = time.perf_counter()
                await client.call_tool("note", {"text": text})
                found = await client.call_tool("search", {"query": text, "limit": 1})
                writes.append(time.perf_counter() - t0)
                assert found.structured_content and found.structured_content["hits"]
    return first, searches, writes


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
            v1_search, v1_write = _v1(port, token, words)
            first, mcp_search, mcp_write = anyio.run(_mcp, port, token, words)
        finally:
            server.terminate()  # type: ignore[attr-defined]
            server.wait()  # type: ignore[attr-defined]
        print(f"\nMCP over streamable HTTP vs /v1, {args.files}-file home:")
        v1 = _line("GET /v1/search", v1_search)
        mcp = _line("MCP search tool", mcp_search)
        print(f"  ratio MCP / v1 search p50: {mcp / v1:.2f} (goal at most 1.5, p50 under 10 ms)")
        _line("POST /v1/daily then GET /v1/search", v1_write)
        _line("MCP note then search", mcp_write)
        print(f"  first MCP session (SDK imported on demand): {first * 1000:.0f} ms")
        print(
            f"  stdio session start-up (spawn, initialize, list tools): "
            f"{anyio.run(_stdio_start, root) * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
