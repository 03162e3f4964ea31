"""A served home's start to settled, by the server's own CPU: this hearth against another.

    .venv/bin/python bench/start_settled.py HOME [--compare SRC] [--turns 2]

HOME is a home whose index is built (``hearth init`` leaves none: run
``hearth reindex --full`` first, or the start builds it). With ``--compare``,
HOME must hold the index of the other tree's schema, or be a copy given as
``--compare-home``; each turn starts one ``hearth serve`` at a time, this
checkout's and then the other's (``src`` on ``PYTHONPATH``). For each start:
the seconds until ``/healthz`` answers, until status says the index is fresh
at HEAD (bench/workload.py's "start to settled"), the server's CPU time (user
and system, all its threads) until then, and its private memory (RssAnon +
RssShmem) once settled. On a loaded machine the wall clock of one start moves
by a factor of two; the CPU time is the steadier figure. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from homegen import create_token, serve, use_git_identity, wait_answering
from measure import Client, cpu_seconds, memory_kb
from workload import settle


def one_start(home: Path, env: dict[str, str], label: str) -> None:
    token = create_token(home, "write", f"start{os.getpid()}{time.monotonic_ns()}")
    t0 = time.perf_counter()
    server, port = serve(home, env)
    try:
        wait_answering(port)
        answering = time.perf_counter() - t0
        settled = settle(Client(port, token), home, server.pid, t0)
        cpu = cpu_seconds(server.pid)
        private = memory_kb(server.pid)["private"] / 1024
    finally:
        server.terminate()
        server.wait(timeout=60)
    print(
        f"{label}: CPU until settled {cpu:.2f} s; answering {answering:.2f} s, settled "
        f"{settled:.2f} s; private {private:.0f} MB; load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--compare", type=Path, default=None, help="another checkout's src")
    parser.add_argument("--compare-home", type=Path, default=None, help="its copy of HOME")
    parser.add_argument("--turns", type=int, default=2)
    args = parser.parse_args()
    env = use_git_identity()
    for turn in range(1, args.turns + 1):
        one_start(args.home, env, f"this tree, turn {turn}")
        if args.compare is not None:
            other = {**env, "PYTHONPATH": str(args.compare)}
            one_start(args.compare_home or args.home, other, f"{args.compare}, turn {turn}")


if __name__ == "__main__":
    main()
