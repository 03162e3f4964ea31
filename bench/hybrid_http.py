"""Hybrid search over HTTP on issue 40's workload home: latency and server CPU a search.

    .venv/bin/python bench/hybrid_http.py --work DIR [--files 1000] [--queries 300]
        [--server LABEL=SRC ...] [--semantic-off]

The home is bench/workload.py's hybrid one (``generate_home`` with the same
seed, adopted with ``hearth init``, the same 1-3 word queries), seeded once in
``DIR/seed`` and its every section's vector filled for real by a server (the
first run: minutes of both cores), kept for the next runs. Each run serves a
fresh copy of it per server, all at once: ``--server LABEL=SRC`` runs hearth
with ``SRC`` (another checkout's ``src`` folder) first on ``PYTHONPATH``,
through that checkout's ``.venv/bin/hearth`` when it has one (``this`` is this
checkout); by default this checkout alone. Every server is
warmed (20 other queries), left to settle, then asked the same distinct
queries in turn (query by query, so a change in the machine's load falls on
all alike; the cache of repeated queries never answers): p50/p99 of
``GET /v1/search?q=...&limit=10`` over one keep-alive connection, and the
server's CPU (user+sys of every thread, /proc) a search. ``--semantic-off``
adds a server of this checkout with semantic ranking off.

Prints figures; asserts nothing. The machine is usually shared: compare the
servers of one run with each other.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import (
    create_token,
    generate_home,
    percentile,
    serve,
    use_git_identity,
    wait_answering,
    wait_idle,
    workload_queries,
)
from measure import HEARTH, Client, wait_for_vectors

HERE = Path(__file__).resolve().parent.parent / "src"


def hearth_of(src: Path) -> str:
    """The ``hearth`` command to serve ``src`` with: its checkout's own venv's
    when it has one (its dependencies and entry point), else this one's."""
    own = src.parent / ".venv" / "bin" / "hearth"
    return str(own) if own.exists() else HEARTH


def serve_with(hearth: str, root: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """``hearth serve`` (that command) on a free loopback port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [hearth, "--home", str(root), "serve", "--port", str(port)]
    quiet = subprocess.DEVNULL
    return subprocess.Popen(command, stdout=quiet, stderr=quiet, env=env), port


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def searched_complete(client: Client, deadline: float = 600.0) -> None:
    """Until a search says every section has its vector (what the search
    says, not ``/v1/status``: some earlier versions' status lagged)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        found = client.call("GET", "/v1/search?" + urlencode({"q": "the", "limit": 1}))
        assert isinstance(found, dict)
        if (found.get("vectors") or {}).get("complete"):
            return
        time.sleep(0.5)
    raise SystemExit("the server's vectors were not complete in time")


def seed(work: Path, files: int, queries: int) -> tuple[Path, list[str]]:
    """The seeded home (made and its vectors filled if not yet) and the queries."""
    root = work / "seed"
    done = root / ".git" / "hearth-bench-vectors-filled"
    if not done.exists():
        rng = random.Random(files + 1)  # bench/workload.py's hybrid home
        shutil.rmtree(root, ignore_errors=True)
        generate_home(root, files, rng)
        use_git_identity()  # hearth init with semantic ranking off, as bench/workload.py
        subprocess.run([HEARTH, "init", str(root), "--json"], check=True, capture_output=True)
        server, port = serve(root, use_git_identity(semantic=True))
        try:
            wait_answering(port)
            t0 = time.perf_counter()
            vectors = wait_for_vectors(Client(port, create_token(root, name="fill")))
            print(f"{vectors['embedded']} sections embedded in {time.perf_counter() - t0:.0f} s")
        finally:
            server.terminate()
            server.wait(timeout=60)
        done.write_text("")
    return root, workload_queries(work, files, queries)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--server", action="append", default=[], help="LABEL=SRC (or 'this')")
    parser.add_argument("--semantic-off", action="store_true")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    root, queries = seed(args.work, args.files, args.queries)
    env = use_git_identity(semantic=True)
    servers: list[tuple[str, dict[str, str]]] = []
    for spec in args.server or ["this=this"]:
        label, _, src = spec.partition("=")
        path = HERE if src in ("", "this") else Path(src).resolve()
        servers.append((label, {**env, "PYTHONPATH": str(path), "HEARTH_BIN": hearth_of(path)}))
    if args.semantic_off:
        servers.append(("semantic off", {**env, "PYTHONPATH": str(HERE), "HEARTH_SEMANTIC": "off"}))
    load = os.getloadavg()
    print(f"{len(queries)} distinct queries, {args.files}-file home; load {load[0]:.1f}")
    running = []
    try:
        for i, (label, server_env) in enumerate(servers):
            home = args.work / f"run-{i}"
            shutil.rmtree(home, ignore_errors=True)
            shutil.copytree(root, home, symlinks=True)  # mtimes kept: nothing read again
            token = create_token(home, name=f"run-{time.time_ns()}")
            server, port = serve_with(server_env.pop("HEARTH_BIN", HEARTH), home, server_env)
            running.append((label, server, port, token, home))
        clients = []
        for label, server, port, token, _home in running:
            wait_answering(port)
            client = Client(port, token)
            if label != "semantic off":
                searched_complete(client)
            for n in range(20):
                client.call("GET", "/v1/search?" + urlencode({"q": f"warm {n}", "limit": 10}))
            wait_idle(server.pid)
            clients.append(client)
        times: list[list[float]] = [[] for _ in running]
        cpu = [0.0 for _ in running]
        ranked: list[set[str]] = [set() for _ in running]
        for text in queries:
            for i, ((_label, server, *_), client) in enumerate(zip(running, clients, strict=True)):
                c0 = cpu_seconds(server.pid)
                t0 = time.perf_counter()
                result = client.call("GET", "/v1/search?" + urlencode({"q": text, "limit": 10}))
                times[i].append(time.perf_counter() - t0)
                cpu[i] += cpu_seconds(server.pid) - c0
                assert isinstance(result, dict)
                ranked[i].add(str(result["ranking"]))
        for i, (label, *_rest) in enumerate(running):
            ms = [1000 * t for t in times[i]]
            print(
                f"  {label:<14} ({', '.join(sorted(ranked[i]))}): p50 {statistics.median(ms):6.2f} "
                f"p99 {percentile(ms, 0.99):6.2f} ms; server CPU "
                f"{1000 * cpu[i] / len(queries):5.2f} ms a search"
            )
    finally:
        for _label, server, *_ in running:
            server.terminate()
            server.wait(timeout=60)
        for *_, home in running:
            shutil.rmtree(home, ignore_errors=True)
    load = os.getloadavg()
    print(f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end; {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
