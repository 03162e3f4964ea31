"""One home, one process: what thin clients cost beside the home's server.

    .venv/bin/python bench/one_server.py [--files 10000] [--sessions 5] [--rounds 15] [--work DIR]

A generated home (``--files`` topic files), semantic ranking on (hybrid; the
vectors fill in the background and need not be complete, so the server embeds
under every figure), or off with ``--keyword``. It runs the
``hearth`` beside the Python that runs it: run it with another checkout's
``.venv/bin/python`` to compare with an earlier version on the same machine in
the same hour. Prints:

- ``hearth serve`` alone: resident memory once it has served one MCP session's
  search (the MCP SDK and the query model loaded), that session closed;
- ``--sessions`` stdio sessions (``hearth mcp``, the official MCP client) beside
  it: each session's ``initialize`` time and resident memory, the server's,
  and the total against the server alone;
- a stdio session's ``initialize`` when no server runs (it starts one, unless the
  checkout has no such thing);
- ``agent-hook claude-code prompt`` p50 and p95, process start included, server running;
- ``hearth search`` right after a hand edit, and ``hearth note``, p50, server running;
- the CLI's reads (``status``, ``get``, ``context``, ``search``) and writes
  (``memory add``, ``loop add``, ``decide``, ``propose``), p50, server running.

Figures, not assertions. Every process it starts is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

from homegen import in_work, seed_home, start_server, use_git_identity
from mcp import Client, StdioServerParameters

HEARTH = str(Path(sys.executable).parent / "hearth")


def rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(ln for ln in status.splitlines() if ln.startswith("VmRSS:")).split()[1])


def relay_pids(root: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and str(root).encode() in argv and any(b"hearth" in a for a in argv):
            found.append(int(entry.name))
    return found


def p50(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(len(ordered) * 0.95) - 1)] * 1000


def session(root: Path, env: dict[str, str]) -> Client:
    params = StdioServerParameters(command=HEARTH, args=["--home", str(root), "mcp"], env=env)
    return Client(params, read_timeout_seconds=120)


async def sessions_beside(
    root: Path, env: dict[str, str], count: int
) -> tuple[list[float], list[int]]:
    timings: list[float] = []
    clients = []
    for _ in range(count):
        client = session(root, env)
        started = time.perf_counter()
        await client.__aenter__()
        timings.append(time.perf_counter() - started)
        clients.append(client)
    for client in clients:  # every session does something real
        await client.call_tool("search", {"query": "garden"})
    await asyncio.sleep(1.0)
    rss = [rss_kb(pid) for pid in relay_pids(root)]
    for client in reversed(clients):
        await client.__aexit__(None, None, None)
    return timings, rss


async def one_cold_session(root: Path, env: dict[str, str]) -> float:
    client = session(root, env)
    started = time.perf_counter()
    await client.__aenter__()
    took = time.perf_counter() - started
    await client.__aexit__(None, None, None)
    return took


def timed(argv: list[str], env: dict[str, str], stdin: str | None = None) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, check=False)
    took = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[3:])} failed: {done.stderr}")
    return took


def stop_on_demand(root: Path) -> None:
    try:
        record = json.loads((root / ".git/hearth/server.json").read_text())
        os.kill(int(record["pid"]), signal.SIGTERM)
    except (OSError, ValueError, KeyError):
        return
    time.sleep(1.0)


#: The CLI's reads and writes timed beside the server ({n}: the round).
READS = {
    "status": ["status"],
    "get": ["get", "SOUL.md"],
    "context": ["context", "--session", "subagent", "--query", "garden lantern"],
    "search": ["search", "garden lantern"],
}
WRITES = {
    "memory add": ["memory", "add", "MEMORY.md", "bench entry {n}"],
    "loop add": ["loop", "add", "--title", "bench loop {n}"],
    "decide": ["decide", "--title", "bench decision {n}", "--decision", "yes"],
    "propose": ["propose", "--title", "bench proposal {n}", "--entry", "bench fact {n}"],
}


def cli_rows(root: Path, env: dict[str, str], rounds: int) -> None:
    for name, argv in {**READS, **WRITES}.items():
        samples = [
            timed([HEARTH, "--home", str(root), *(a.format(n=n) for a in argv)], env)
            for n in range(rounds)
        ]
        kind = "read" if name in READS else "write"
        print(f"hearth {name} ({kind}), server running: p50 {p50(samples):.0f} ms")


def run(root: Path, args: argparse.Namespace) -> None:
    # Installed users have compiled modules: a sandbox's PYTHONDONTWRITEBYTECODE
    # would time compiling hearth's source in every command (kept aside, so no
    # source tree is written to).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache")
    env = use_git_identity(semantic=not args.keyword)
    env["HEARTH_SERVER"] = "on"
    rng = random.Random(37)
    print(f"seeding {args.files} files ...", flush=True)
    seed_home(root, args.files, rng)
    server, _port, _token = start_server(root, env)
    pid = server.pid
    # The server alone, as it is once it has served: one MCP session's search
    # (the SDK and the query model loaded), then closed.
    first = asyncio.run(sessions_beside(root, env, 1))[0][0]
    time.sleep(3.0)
    alone = rss_kb(pid)
    print(f"hearth serve alone, after one session's search: {alone / 1024:.0f} MB")
    print(f"  (that first session's initialize: {first * 1000:.0f} ms, the server's MCP built)")
    timings, rss = asyncio.run(sessions_beside(root, env, args.sessions))
    beside = rss_kb(pid)
    total = beside + sum(rss)
    print(
        f"{args.sessions} stdio sessions beside it: initialize p50 {p50(timings):.0f} ms "
        f"(max {max(timings) * 1000:.0f}); each {min(rss) / 1024:.0f}-{max(rss) / 1024:.0f} MB; "
        f"server {beside / 1024:.0f} MB; total {total / 1024:.0f} MB = {total / alone:.2f} x the "
        "server alone"
    )
    hook = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "what about the garden?"})
    hooks = [
        timed([HEARTH, "--home", str(root), "agent-hook", "claude-code", "prompt"], env, hook)
        for _ in range(args.rounds)
    ]
    print(
        f"agent-hook claude-code prompt, server running: p50 {p50(hooks):.0f} ms, "
        f"p95 {p95(hooks):.0f} ms"
    )
    searches, found = [], 0
    for n in range(args.rounds):
        note = root / "memory/topics" / f"edited-{n}.md"
        note.write_text(f"# Edited {n}\n\nA hand edit about quokkas{n}.\n")
        argv = [HEARTH, "--home", str(root), "search", f"quokkas{n}", "--json"]
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
        searches.append(time.perf_counter() - started)
        hits = json.loads(done.stdout)["hits"]
        found += any(h["path"] == f"memory/topics/edited-{n}.md" for h in hits)
    print(
        f"hearth search right after a hand edit: p50 {p50(searches):.0f} ms "
        f"(the edited file found {found} of {args.rounds} times)"
    )
    notes = [
        timed([HEARTH, "--home", str(root), "note", f"bench note {n}"], env)
        for n in range(args.rounds)
    ]
    print(f"hearth note: p50 {p50(notes):.0f} ms")
    cli_rows(root, env, args.rounds)
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)
    cold = asyncio.run(one_cold_session(root, env))
    print(f"stdio initialize with no server running: {cold * 1000:.0f} ms")
    stop_on_demand(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--sessions", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument(
        "--keyword",
        action="store_true",
        help="semantic ranking off: no vectors filling in the background under the figures",
    )
    args = parser.parse_args()
    in_work(args.work, lambda work: run(work / "home", args))


if __name__ == "__main__":
    main()
