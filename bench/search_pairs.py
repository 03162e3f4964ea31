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
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from homegen import WORDS, start_server, use_git_identity, wait_idle
from hybrid_search import distinct_queries
from measure import cpu_seconds, latency, memory_kb


@dataclass
class Side:
    """One server of the pair and its keep-alive connection."""

    label: str
    server: subprocess.Popen[bytes]
    port: int
    token: str
    conn: http.client.HTTPConnection
    samples: list[float] = field(default_factory=list)
    cpu0: float = 0.0

    def ask(self, text: str) -> None:
        """One search; a connection the server closed while idle (the other
        server loading its model took longer than its keep-alive) is opened
        again and the search asked again."""
        for attempt in (1, 2):
            try:
                self.conn.request(
                    "GET",
                    "/v1/search?" + urlencode({"q": text}),
                    headers={"Authorization": f"Bearer {self.token}"},
                )
                answer = self.conn.getresponse()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                if attempt == 2 or self.server.poll() is not None:
                    raise RuntimeError(f"{self.label}: no answer ({self.server.poll()})") from None
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port)
                continue
            body = answer.read()
            if answer.status != 200:
                raise RuntimeError(f"{self.label}: {answer.status}: {body[:200]!r}")
            return


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
    envs = [
        ("this checkout", env),
        (f"hearth from {args.compare}", {**env, "PYTHONPATH": args.compare}),
    ]
    with tempfile.TemporaryDirectory(prefix="hearth-bench-", dir=args.home.parent) as tmp:
        sides: list[Side] = []
        try:
            for n, (label, side_env) in enumerate(envs):
                home = Path(tmp) / f"home{n}"
                shutil.copytree(args.home, home, symlinks=True)  # mtimes kept: nothing re-read
                server, port, token = start_server(
                    home, side_env, scope="read", name="pairs" + secrets.token_hex(3)
                )
                conn = http.client.HTTPConnection("127.0.0.1", port)
                sides.append(Side(label, server, port, token, conn))
            for side in sides:
                wait_idle(side.server.pid)
            for n, text in enumerate(queries):
                if n == 40:  # the first 40 warm the searchers and the model
                    for side in sides:
                        side.cpu0 = cpu_seconds(side.server.pid)
                for side in sides if n % 2 else sides[::-1]:
                    t0 = time.perf_counter()
                    side.ask(text)
                    if n >= 40:
                        side.samples.append(time.perf_counter() - t0)
            for side in sides:
                cpu = (cpu_seconds(side.server.pid) - side.cpu0) / len(side.samples) * 1000
                kb = memory_kb(side.server.pid)
                latency(side.label, side.samples)
                print(
                    f"    server CPU {cpu:.2f} ms a search; VmRSS {kb['VmRSS'] / 1024:.0f} MB "
                    f"(private {kb['private'] / 1024:.0f}, file-backed {kb['RssFile'] / 1024:.0f})"
                )
            diffs = [a - b for a, b in zip(sides[0].samples, sides[1].samples, strict=True)]
            won = sum(d < 0 for d in diffs)
            print(
                f"  pairs: median of (this - other) {1000 * statistics.median(diffs):+.2f} ms; "
                f"this one faster in {won} of {len(diffs)}"
            )
        finally:
            for side in sides:
                side.server.terminate()
                side.server.wait(timeout=30)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
