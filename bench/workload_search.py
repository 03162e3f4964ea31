"""Keyword search in ``bench/workload.py``'s 10,000-file home, a server of each tree in turn.

    .venv/bin/python bench/workload_search.py --work DIR [--compare SRC]...
        [--rounds 3] [--turns 2] [--dump]

The first run generates the workload's home (``homegen.generate_home``, the
seed ``workload.py`` uses for 10,000 files) into ``DIR/base``, unadopted, and
its queries into ``DIR/queries.json``: 20 to warm, then 600, drawn as
``workload.py`` draws them (one to three of the home's words, mostly common
ones). Later runs reuse both. For each tree (this checkout, then each
``--compare`` folder, another checkout's ``src``, put on ``PYTHONPATH``), in
turn, ``--turns`` times: a fresh copy of the home is adopted by that tree's
own ``hearth init`` (so each tree builds its own index, of its own schema),
``hearth serve`` is let settle, and the queries are asked over one keep-alive
connection, ``GET /v1/search?q=...&limit=10``, ``--rounds`` times. Prints
each round's p50, the server's CPU a search (from ``/proc``: it moves less
with the machine's load than the wall clock) and its private memory.
``--dump`` writes each tree's answers of the first round to
``DIR/answers-<tree>.txt`` to compare. Asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import generate_home, use_git_identity, wait_answering, wait_idle
from measure import cpu_seconds, memory_kb

HEARTH = str(Path(sys.executable).parent / "hearth")
FILES = 10_000
WARM = 20


def generate(work: Path) -> None:
    base = work / "base"
    if (work / "queries.json").exists():
        return
    rng = random.Random(FILES)  # workload.py's seed for this size
    shutil.rmtree(base, ignore_errors=True)
    base.mkdir(parents=True)
    vocab = generate_home(base, FILES, rng)
    queries = [vocab.query(rng) for _ in range(WARM + 600)]
    (work / "queries.json").write_text(json.dumps(queries))


def run(work: Path, src: str | None, label: str, rounds: int, dump: bool) -> None:
    env = dict(use_git_identity())
    env.pop("PYTHONPATH", None)
    if src:
        env["PYTHONPATH"] = src
    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(work / "base", home, symlinks=True)
    subprocess.run([HEARTH, "init", str(home), "--json"], env=env, check=True, capture_output=True)
    token = subprocess.run(
        [HEARTH, "--home", str(home), "token", "create", "--name", "kw", "--scope", "read"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = subprocess.Popen(
        [HEARTH, "--home", str(home), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    try:
        wait_answering(port)
        wait_idle(server.pid)
        queries = json.loads((work / "queries.json").read_text())
        conn = http.client.HTTPConnection("127.0.0.1", port)
        headers = {"Authorization": f"Bearer {token}"}

        def ask(text: str) -> bytes:
            conn.request(
                "GET", "/v1/search?" + urlencode({"q": text, "limit": 10}), headers=headers
            )
            answer = conn.getresponse()
            body = answer.read()
            if answer.status != 200:
                raise RuntimeError(f"{answer.status}: {body[:200]!r}")
            return body

        for text in queries[:WARM]:
            ask(text)
        p50s, answers, asked = [], [], 0
        cpu0 = cpu_seconds(server.pid)
        for n in range(rounds):
            times = []
            for text in queries[WARM:]:
                t0 = time.perf_counter()
                body = ask(text)
                times.append(time.perf_counter() - t0)
                asked += 1
                if n == 0:
                    answers.append(body)
            p50s.append(statistics.median(times) * 1000)
        cpu = (cpu_seconds(server.pid) - cpu0) / asked * 1000
        private = memory_kb(server.pid)["private"] / 1024
        print(
            f"{label}: p50 {' / '.join(f'{p:.2f}' for p in p50s)} ms; server CPU {cpu:.2f} ms "
            f"a search; private {private:.0f} MB; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        if dump:
            name = "".join(c if c.isalnum() else "-" for c in label)
            (work / f"answers-{name}.txt").write_bytes(b"\n".join(answers))
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--compare", action="append", default=[], help="another tree's src")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--dump", action="store_true")
    args = parser.parse_args()
    generate(args.work)
    trees: list[tuple[str | None, str]] = [(None, "this checkout")]
    trees += [(src, src) for src in args.compare]
    for _turn in range(args.turns):
        for src, label in trees:
            run(args.work, src, label, args.rounds, args.dump)


if __name__ == "__main__":
    main()
