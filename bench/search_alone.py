"""Search over HTTP with one server running at a time: this hearth against another.

    .venv/bin/python bench/search_alone.py HOME [--semantic] [--compare SRC]
        [--searches 300] [--turns 2] [--questions]

HOME is a seeded home (say ``bench/hybrid_search.py --work DIR``'s
``DIR/seed``, whose vectors are complete, or a folder ``bench/homegen.py``
made); each server runs on a fresh copy of it. ``bench/hybrid_search.py``
runs its servers all at once, so that a change in the machine's load falls
on all of them; with three servers on two cores, each one's background work
(a reconcile pass, the vectors' filler waking) lands in the others' tails.
This bench starts one ``hearth serve`` at a time, this checkout's and, with
``--compare``, one running hearth from another checkout's ``src`` (on
``PYTHONPATH``), in turn, ``--turns`` times each: 40 distinct queries to warm
the searcher (and the model), then ``--searches`` distinct ones on one
keep-alive connection, top 10 with snippets (two or three of the home's
words; ``--questions``: as questions, "where is the copper and violin", as
``bench/hybrid_search.py`` asks); p50 and p99, the server's CPU
time a search (user and system, all its threads, from ``/proc``: it moves
less with the machine's load than the wall clock), and its resident memory
(VmRSS, of it anonymous and file-backed) after them. Each server is first
let settle (``wait_idle``), so its start-up work is not counted.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import WORDS, start_server, use_git_identity, wait_idle
from hybrid_search import distinct_queries
from measure import cpu_seconds, latency, memory_kb


def run_one(home: Path, env: dict[str, str], queries: list[str], label: str) -> None:
    server, port, token = start_server(home, env, scope="read", name="alone" + secrets.token_hex(3))
    try:
        wait_idle(server.pid)
        conn = http.client.HTTPConnection("127.0.0.1", port)
        headers = {"Authorization": f"Bearer {token}"}
        samples, rankings = [], set()
        for n, text in enumerate(queries):
            t0 = time.perf_counter()
            conn.request("GET", "/v1/search?" + urlencode({"q": text}), headers=headers)
            answer = conn.getresponse()
            body = answer.read()
            if answer.status != 200:
                raise RuntimeError(f"{answer.status}: {body[:200]!r}")
            if n == 39:
                cpu0 = cpu_seconds(server.pid)
            if n >= 40:  # the first 40 warm the searcher and the model
                samples.append(time.perf_counter() - t0)
                rankings.add(body.split(b'"ranking":"', 1)[-1].split(b'"', 1)[0].decode())
        cpu = (cpu_seconds(server.pid) - cpu0) / len(samples) * 1000
        kb = memory_kb(server.pid)
        latency(f"{label} ({', '.join(sorted(rankings))})", samples)
        print(f"    server CPU {cpu:.2f} ms a search")
        print(
            f"    VmRSS {kb['VmRSS'] / 1024:.0f} MB "
            f"(anonymous {kb['RssAnon'] / 1024:.0f}, file-backed {kb['RssFile'] / 1024:.0f}; "
            f"private, RssAnon + RssShmem, {kb['private'] / 1024:.0f})"
        )
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    parser.add_argument("--compare", help="also serve with hearth's source from this src folder")
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--questions", action="store_true", help="ask questions of the words")
    args = parser.parse_args()
    env = use_git_identity(semantic=args.semantic)
    servers = [("this checkout", env)]
    if args.compare:
        servers.append((f"hearth from {args.compare}", {**env, "PYTHONPATH": args.compare}))
    rng = random.Random(6)
    if args.questions:
        queries = distinct_queries(rng, args.searches + 40)
    else:
        count = args.searches + 40
        queries = [" ".join(rng.sample(WORDS, rng.choice((2, 3)))) for _ in range(count)]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="hearth-bench-", dir=args.home.parent) as tmp:
        for turn in range(args.turns):
            for label, server_env in servers:
                home = Path(tmp) / "home"
                shutil.rmtree(home, ignore_errors=True)
                shutil.copytree(args.home, home, symlinks=True)  # mtimes kept: nothing re-read
                run_one(home, server_env, queries, f"turn {turn + 1}, {label}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
