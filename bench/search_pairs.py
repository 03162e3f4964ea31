"""Search over HTTP, this hearth against another, both serving at once and asked in pairs.

    .venv/bin/python bench/search_pairs.py HOME --compare SRC [--semantic]
        [--searches 500] [--questions]

HOME is a seeded home (say ``bench/hybrid_search.py --work DIR``'s ``DIR/seed``).
Two ``hearth serve`` run at once, each on a fresh copy of it: this checkout's
and one running hearth from another checkout's ``src`` (``PYTHONPATH``). Each
query (distinct, as ``bench/search_alone.py`` asks them) goes to both, one
after the other, the order swapped at every query, so a change of the
machine's load falls on both halves of a pair alike; the first 40 warm the
searchers and the model. Printed: each server's p50 and p99, the median of
the pairs' differences (this minus the other), how many pairs this one won,
and each server's CPU time a search (all its threads, from ``/proc``) and
memory after. ``bench/search_alone.py`` serves one at a time instead, and
each turn sees another load.

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import secrets
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import WORDS, start_server, use_git_identity, wait_idle
from hybrid_search import distinct_queries
from measure import cpu_seconds, latency, memory_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--compare", required=True, help="hearth's src folder to serve beside")
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    parser.add_argument("--searches", type=int, default=500)
    parser.add_argument("--questions", action="store_true", help="ask questions of the words")
    args = parser.parse_args()
    env = use_git_identity(semantic=args.semantic)
    rng = random.Random(6)
    count = args.searches + 40
    if args.questions:
        queries = distinct_queries(rng, count)
    else:
        queries = [" ".join(rng.sample(WORDS, rng.choice((2, 3)))) for _ in range(count)]
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    sides = [
        ("this checkout", env),
        (f"hearth from {args.compare}", {**env, "PYTHONPATH": args.compare}),
    ]
    with tempfile.TemporaryDirectory(prefix="hearth-bench-", dir=args.home.parent) as tmp:
        servers = []
        try:
            for n, (label, side_env) in enumerate(sides):
                home = Path(tmp) / f"home{n}"
                shutil.copytree(args.home, home, symlinks=True)  # mtimes kept: nothing re-read
                server, port, token = start_server(
                    home, side_env, scope="read", name="pairs" + secrets.token_hex(3)
                )
                servers.append(
                    (label, server, http.client.HTTPConnection("127.0.0.1", port), token)
                )
            for _label, server, _conn, _token in servers:
                wait_idle(server.pid)
            samples: list[list[float]] = [[], []]
            cpu0 = [0.0, 0.0]
            for n, text in enumerate(queries):
                if n == 40:  # the first 40 warm the searchers and the model
                    cpu0 = [cpu_seconds(s.pid) for _l, s, _c, _t in servers]
                for side in (0, 1) if n % 2 else (1, 0):
                    _label, _server, conn, token = servers[side]
                    t0 = time.perf_counter()
                    conn.request(
                        "GET",
                        "/v1/search?" + urlencode({"q": text}),
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    answer = conn.getresponse()
                    body = answer.read()
                    if answer.status != 200:
                        raise RuntimeError(f"{answer.status}: {body[:200]!r}")
                    if n >= 40:
                        samples[side].append(time.perf_counter() - t0)
            for side, (label, server, _conn, _token) in enumerate(servers):
                cpu = (cpu_seconds(server.pid) - cpu0[side]) / len(samples[side]) * 1000
                kb = memory_kb(server.pid)
                latency(label, samples[side])
                print(
                    f"    server CPU {cpu:.2f} ms a search; VmRSS {kb['VmRSS'] / 1024:.0f} MB "
                    f"(private {kb['private'] / 1024:.0f}, file-backed {kb['RssFile'] / 1024:.0f})"
                )
            diffs = [a - b for a, b in zip(samples[0], samples[1], strict=True)]
            won = sum(d < 0 for d in diffs)
            print(
                f"  pairs: median of (this - other) {1000 * statistics.median(diffs):+.2f} ms; "
                f"this one faster in {won} of {len(diffs)}"
            )
        finally:
            for _label, server, _conn, _token in servers:
                server.terminate()
                server.wait(timeout=30)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
