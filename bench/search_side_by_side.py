"""Search over HTTP on two hearths served at once, asked in turn query by query.

    .venv/bin/python bench/search_side_by_side.py HOME --compare SRC [--semantic]
        [--searches 300] [--rounds 5]

``bench/search_alone.py`` serves one hearth at a time; on a machine other
work loads, the load moves between one server's turn and the other's, and
the two p50s then differ by more than the change between them. Here both
servers (this checkout's and one running hearth from another checkout's
``src``, on ``PYTHONPATH``) run at once, each on a fresh copy of HOME; once
both are idle (``homegen.wait_idle``: the start-up pass done), each round
asks every query of the round of both, one then the other (which goes first
alternates), on a keep-alive connection each, top 10 with snippets. Whatever
loads the machine falls on both alike, so the ratio of the two p50s is what
the change did. Prints each round's p50s and their ratio, and each server's
CPU time a search (user and system, every thread, from ``/proc``) and their
ratio; the p50 and p99 of all rounds, the ratios' medians, the load average
and each server's memory; asserts nothing.
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
from measure import cpu_seconds, latency, memory_kb


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


class Served:
    def __init__(self, label: str, home: Path, env: dict[str, str]) -> None:
        self.label = label
        self.server, port, token = start_server(
            home, env, scope="read", name="side" + secrets.token_hex(3)
        )
        self.conn = http.client.HTTPConnection("127.0.0.1", port)
        self.headers = {"Authorization": f"Bearer {token}"}
        self.samples: list[float] = []

    def ask(self, text: str) -> float:
        t0 = time.perf_counter()
        self.conn.request("GET", "/v1/search?" + urlencode({"q": text}), headers=self.headers)
        answer = self.conn.getresponse()
        body = answer.read()
        took = time.perf_counter() - t0
        if answer.status != 200:
            raise RuntimeError(f"{self.label}: {answer.status}: {body[:200]!r}")
        return took

    def stop(self) -> None:
        self.server.terminate()
        self.server.wait(timeout=30)


def rounds(
    this: Served, other: Served, queries: list[str], count: int
) -> tuple[list[float], list[float]]:
    """``count`` rounds of ``queries``, each asked of both; each round's ratio
    of p50s, and of CPU time a search."""
    ratios, spent = [], []
    for n in range(count):
        mine, theirs = [], []
        cpu = {s.label: cpu_seconds(s.server.pid) for s in (this, other)}
        for i, text in enumerate(queries):
            first, second = (this, other) if (i + n) % 2 == 0 else (other, this)
            took = {first.label: first.ask(text), second.label: second.ask(text)}
            mine.append(took[this.label])
            theirs.append(took[other.label])
        this.samples += mine
        other.samples += theirs
        a, b = statistics.median(mine) * 1000, statistics.median(theirs) * 1000
        ratios.append(a / b)
        used = {
            s.label: (cpu_seconds(s.server.pid) - cpu[s.label]) / len(queries) * 1000
            for s in (this, other)
        }
        c, d = used[this.label], used[other.label]
        spent.append(c / d)
        print(
            f"  round {n + 1}: p50 {a:.2f} against {b:.2f} ms, {a / b:.3f}; "
            f"CPU {c:.2f} against {d:.2f} ms a search, {c / d:.3f} (load {_load()})"
        )
    return ratios, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--compare", required=True, help="the other hearth's src folder")
    parser.add_argument("--semantic", action="store_true", help="semantic ranking on")
    parser.add_argument("--searches", type=int, default=300, help="queries a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    env = use_git_identity(semantic=args.semantic)
    rng = random.Random(6)
    queries = [" ".join(rng.sample(WORDS, rng.choice((2, 3)))) for _ in range(args.searches + 40)]
    print(f"load average {_load()} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="hearth-side-", dir=args.home.parent) as tmp:
        servers: list[Served] = []
        try:
            for label, server_env in (
                ("this checkout", env),
                (f"hearth from {args.compare}", {**env, "PYTHONPATH": args.compare}),
            ):
                home = Path(tmp) / f"home{len(servers)}"
                shutil.copytree(args.home, home, symlinks=True)  # mtimes kept: nothing re-read
                servers.append(Served(label, home, server_env))
            for served in servers:
                wait_idle(served.server.pid)
                for text in queries[:40]:  # warm the searcher (and the model)
                    served.ask(text)
            ratios, spent = rounds(servers[0], servers[1], queries[40:], args.rounds)
            for served in servers:
                latency(f"{served.label}, every round", served.samples)
                kb = memory_kb(served.server.pid)
                private, total = kb["private"] / 1024, kb["VmRSS"] / 1024
                print(f"    private memory {private:.0f} MB, VmRSS {total:.0f} MB")
            ratio = statistics.median(ratios)
            print(f"  ratio of p50s (this / other), median of rounds: {ratio:.3f}")
            used = statistics.median(spent)
            print(f"  ratio of CPU a search (this / other), median of rounds: {used:.3f}")
        finally:
            for served in servers:
                served.stop()
    print(f"load average {_load()}")


if __name__ == "__main__":
    main()
