"""Issue 40's API-write row alone: ``POST /v1/daily`` until committed and
searchable, against a person's ``git add && git commit`` of a one-line edit.

    .venv/bin/python bench/api_write.py --home /tmp/me-write-home [--files 10000]
        [--writes 20] [--rounds 3] [--vs-src OTHER/src] [--idle]

The home (bench/homegen.py ``generate_home``, adopted with ``hearth init``,
hooks installed, as bench/workload.py makes it) and its plain-git twin
(``<home>-git``) are made once and kept, so later runs reuse them; delete both
when done. Each round starts ``hearth serve`` on the home, waits until it is
settled (fresh at HEAD, under 5% of a core), then takes ``--writes`` turns of
one API write (timed until the next search finds its word) and one
``git add && git commit`` (hooks off) of a one-line topic edit in the twin,
as bench/workload.py's writes do; the first turn is a warm-up. Today's daily
note is removed (one commit, hooks off) before each round, so every round
appends to a note of at most ``--writes`` entries, as on workload.py's new
home (a write re-indexes the whole note: its cost grows with the note).

``--vs-src DIR`` (repeatable: vs1, vs2, ...) runs a round of each in turn
with ``PYTHONPATH=DIR`` (another checkout's ``src``: the code before a
change), so all are measured in one sitting, in turns. ``--idle`` waits for
the server to be quiet before each write (no background pass of the last
write running under it).

Besides wall-clock, the server's CPU (user + system, from /proc) over the
turns is reported per write: it includes what a write leaves to run after
it answers (the worker's pass, ACTIVE.md). Prints figures; asserts nothing
about speed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import shutil
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
    workload_topic,
)
from measure import HEARTH, NO_HOOKS, Client


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def make_home(root: Path, files: int, env: dict[str, str]) -> None:
    print(f"making a {files:,}-file home at {root} (kept for later runs)", flush=True)
    generate_home(root, files, random.Random(files))
    subprocess.run([HEARTH, "init", str(root), "--json"], env=env, check=True, capture_output=True)
    subprocess.run([HEARTH, "--home", str(root), "hooks", "install"], env=env, check=True)
    copy = twin(root)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("hearth"), symlinks=True)
    git(copy, "status", "--porcelain")  # git refreshes its index once (new inodes)


def twin(root: Path) -> Path:
    return root.with_name(root.name + "-git")


def settled(client: Client, root: Path, pid: int) -> None:
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()
    while True:
        status = client.call("GET", "/v1/status")
        assert isinstance(status, dict)
        if status["index"]["fresh"] and status["index"]["indexed_head"] == head:
            break
        time.sleep(0.05)
    wait_idle(pid)


def found(client: Client, word: str) -> bool:
    result = client.call("GET", "/v1/search?" + urlencode({"q": word, "limit": 10}))
    return isinstance(result, dict) and bool(result["hits"])


def one_round(
    root: Path, env: dict[str, str], token: str, args: argparse.Namespace, rng: random.Random
) -> tuple[list[float], list[float], float]:
    """(write seconds, git seconds, server CPU seconds per write) of one server's turns."""
    today = f"memory/{dt.datetime.now(dt.UTC).date().isoformat()}.md"
    if (root / today).exists():  # each round appends to a new note, as on a fresh home
        git(root, "rm", "-q", today)
        git(root, *NO_HOOKS, "commit", "-qm", "bench: a new day")
    server, port = serve(root, env)
    try:
        wait_answering(port)
        client = Client(port, token)
        settled(client, root, server.pid)
        ours, theirs = [], []
        copy = twin(root)
        cpu0 = 0.0
        for r in range(args.writes + 1):  # the first is a warm-up
            if args.idle:
                wait_idle(server.pid)
            if r == 1:
                cpu0 = cpu_seconds(server.pid)
            word = f"zq{r}x{rng.randrange(10**9)}"
            t0 = time.perf_counter()
            client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
            assert found(client, word), word
            ours.append(time.perf_counter() - t0)
            path = workload_topic(rng.randrange(100), _VOCAB)  # type: ignore[arg-type]
            with open(copy / path, "a") as handle:
                handle.write(f"\nan edit {word}\n")
            t0 = time.perf_counter()
            git(copy, "add", path)
            git(copy, *NO_HOOKS, "commit", "-qm", f"bench: write {r}")
            theirs.append(time.perf_counter() - t0)
        wait_idle(server.pid)  # what the last write left running counts too
        cpu = (cpu_seconds(server.pid) - cpu0) / args.writes
    finally:
        server.terminate()
        server.wait(timeout=60)
    return ours[1:], theirs[1:], cpu


class _Words:
    """Only what ``workload_topic`` reads of a vocabulary (its words)."""

    def __init__(self) -> None:
        from homegen import Vocabulary

        self.words = Vocabulary().words


_VOCAB = _Words()


def report(label: str, ours: list[float], theirs: list[float], cpu: list[float]) -> None:
    w = [s * 1000 for s in ours]
    g = [s * 1000 for s in theirs]
    p50, gp50 = statistics.median(w), statistics.median(g)
    print(
        f"{label:<8} write p50 {p50:6.1f} ms p90 {percentile(w, 0.9):6.1f} ms "
        f"min {min(w):5.1f} | git p50 {gp50:6.1f} ms min {min(g):5.1f} | "
        f"ratio {p50 / gp50:.2f} | server CPU "
        f"{statistics.median(cpu) * 1000:5.1f} ms/write (n={len(w)})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, required=True, help="made when missing, then reused")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="servers started (each variant)")
    parser.add_argument(
        "--vs-src", type=Path, action="append", default=[], help="another checkout's src (repeat)"
    )
    parser.add_argument("--idle", action="store_true", help="wait for a quiet server each write")
    args = parser.parse_args()
    env = use_git_identity()
    root = args.home.resolve()
    if not root.exists():
        make_home(root, args.files, env)
    token = create_token(root, name=f"bench-{os.getpid()}")
    variants = {"this": env}
    for n, other in enumerate(args.vs_src, start=1):
        variants[f"vs{n}"] = {**env, "PYTHONPATH": str(other.resolve())}
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start", flush=True)
    rng = random.Random(40)
    got: dict[str, tuple[list[float], list[float], list[float]]] = {
        name: ([], [], []) for name in variants
    }
    for n in range(args.rounds):
        for name, variant_env in variants.items():
            ours, theirs, cpu = one_round(root, variant_env, token, args, rng)
            got[name][0].extend(ours)
            got[name][1].extend(theirs)
            got[name][2].append(cpu)
            report(f"{name}#{n + 1}", ours, theirs, [cpu])
    print()
    for name, (ours, theirs, cpus) in got.items():
        report(name, ours, theirs, cpus)
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
