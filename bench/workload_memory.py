"""Issue 40's memory row alone: `hearth serve`'s resident memory on bench/workload.py's home.

    .venv/bin/python bench/workload_memory.py [--files 100000] [--work DIR]
        [--compare OTHER/src ...] [--turns 1] [--queries 300]
        [--writes 20] [--commits 15] [--saves 20] [--trace FRAMES]

The home is bench/workload.py's (bench/homegen.py ``generate_home``, the
same seed, so the same notes and the same 300 queries), generated once into
``DIR/seed-N`` and adopted by this checkout's hearth as workload.py adopts
it (``hearth init``, ``hearth reindex --full``, ``hearth hooks install``),
kept as ``DIR/built-N`` for later runs with ``--work``. Each source tree
(this checkout's, then each ``--compare`` src folder on ``PYTHONPATH``: its
index and manifest formats must be this checkout's) serves a fresh copy of
it, one server at a time, ``--turns`` times each, with
semantic ranking off, through workload.py's sequence: settled (status fresh
at HEAD, then under 5% of a core), the searches (20 to warm, then
``--queries``, one keep-alive connection: workload.py's RSS figure is taken
here), ``--writes`` + 1 ``POST /v1/daily`` each followed by the search that
finds it, ``--commits`` + 1 one-file commits of a person's edits with
hearth's hooks (then settled again), ``--saves`` new files written behind
the server's back, each waited for until a search finds it.

At each moment it prints VmRSS, its anonymous and file-backed parts
(RssAnon, RssFile), its private memory (RssAnon + RssShmem, issue 52's
measure), the peak so far (VmHWM) and the resident pages by kind of
mapping (bench/serve_rss.py's ``by_mapping``: the index's files by
extension). With ``--trace FRAMES`` the server runs with tracemalloc
(``FRAMES`` frames a block) and writes a snapshot at each moment and at
each new high of its Python blocks (``DIR/trace.snap.high``, the highest)
(``DIR/trace-<n>.snap``, the n-th moment; ``tracemalloc.Snapshot.load``), and the top
owners by line are printed: tracing costs time and its own memory, so take
the figures without it. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path
from urllib.parse import urlencode

from homegen import (
    Vocabulary,
    create_token,
    generate_home,
    in_work,
    percentile,
    serve,
    topic_text,
    use_git_identity,
    wait_answering,
    wait_idle,
    workload_topic,
)
from measure import HEARTH, Client, memory_kb
from serve_rss import KINDS, by_mapping

#: A sitecustomize for ``--trace``: SIGUSR1 writes a tracemalloc snapshot to
#: the file named in HEARTH_BENCH_TRACE_TO (the bench renames it).
HOOK = textwrap.dedent(
    """
    import os, signal, tracemalloc
    _frames = int(os.environ.get("HEARTH_BENCH_TRACE_FRAMES", "0"))
    if _frames:
        tracemalloc.start(_frames)

        def _dump(signum, frame):
            target = os.environ["HEARTH_BENCH_TRACE_TO"]
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            with open(target + ".peak", "w") as out:
                out.write(str(peak))
            tracemalloc.take_snapshot().dump(target + ".part")
            os.replace(target + ".part", target)

        signal.signal(signal.SIGUSR1, _dump)

        def _watch_peaks():
            # A snapshot whenever Python's blocks reach a new high 8 MB above the
            # last (from 100 MB on): what the transient peaks are made of.
            import threading, time
            best = 100 << 20
            while True:
                time.sleep(0.05)
                current = tracemalloc.get_traced_memory()[0]
                if current > best + (8 << 20):
                    best = current
                    target = os.environ["HEARTH_BENCH_TRACE_TO"] + ".high"
                    tracemalloc.take_snapshot().dump(target + ".part")
                    os.replace(target + ".part", target)

        import threading
        threading.Thread(target=_watch_peaks, daemon=True).start()
    """
)


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def found(client: Client, word: str) -> bool:
    result = client.call("GET", "/v1/search?" + urlencode({"q": word, "limit": 10}))
    return isinstance(result, dict) and bool(result["hits"])


def settle(client: Client, root: Path, pid: int, word: str | None = None) -> None:
    """Until the status says fresh at HEAD (and ``word`` is found), then quiet."""
    head = git(root, "rev-parse", "HEAD").strip()
    while True:
        index = client.call("GET", "/v1/status")["index"]
        fresh = index["fresh"] and index["indexed_head"] == head
        if fresh and (word is None or found(client, word)):
            break
        time.sleep(0.02)
    wait_idle(pid)


class Moments:
    def __init__(self, pid: int, trace: Path | None) -> None:
        self.pid = pid
        self.trace = trace
        self.rows: list[tuple[str, dict[str, int], dict[str, int]]] = []

    def __call__(self, name: str) -> None:
        self.rows.append((name, memory_kb(self.pid), by_mapping(self.pid)))
        if self.trace is not None:
            self.trace.unlink(missing_ok=True)
            os.kill(self.pid, signal.SIGUSR1)
            while not self.trace.exists():
                time.sleep(0.1)
            kept = self.trace.with_name(f"trace-{len(self.rows)}.snap")
            self.trace.replace(kept)
            peak = int(self.trace.with_name(self.trace.name + ".peak").read_text())
            print(f"\n  the most Python blocks since the moment before: {peak / 2**20:.1f} MB")
            top_owners(name, kept)

    def show(self, label: str) -> None:
        print(f"\n{label}: resident MB")
        kinds = [k for k in KINDS if any(m.get(k, 0) >= 512 for _, _, m in self.rows)]
        print(
            f"  {'':<30} {'VmRSS':>6} {'anon':>6} {'file':>6} {'privat':>6} {'VmHWM':>6} "
            + " ".join(f"{k:>9}" for k in kinds)
        )
        for name, status, maps in self.rows:
            keys = ("VmRSS", "RssAnon", "RssFile", "private", "VmHWM")
            mb = [status.get(k, 0) / 1024 for k in keys]
            print(
                f"  {name:<30} " + " ".join(f"{v:6.1f}" for v in mb) + " "
                + " ".join(f"{maps.get(k, 0) / 1024:9.1f}" for k in kinds)
            )  # fmt: skip


def top_owners(name: str, path: Path, count: int = 25) -> None:
    snapshot = tracemalloc.Snapshot.load(str(path))
    stats = snapshot.statistics("lineno")
    total = sum(s.size for s in stats)
    print(f"\n  tracemalloc at {name!r}: {total / 2**20:.1f} MB of Python blocks; by line:")
    for stat in stats[:count]:
        frame = stat.traceback[0]
        where = frame.filename.split("/site-packages/")[-1].split("/src/")[-1]
        print(f"    {stat.size / 2**20:7.2f} MB {stat.count:>9,} blocks  {where}:{frame.lineno}")
    sys.stdout.flush()


def serve_once(
    home: Path, env: dict[str, str], args: argparse.Namespace, queries: list[str],
    work: Path, label: str,
) -> None:  # fmt: skip
    vocab = Vocabulary()
    rng = random.Random(args.files + 7)
    token = create_token(home)
    trace = None
    if args.trace:
        hook = work / "trace-hook"
        hook.mkdir(exist_ok=True)
        (hook / "sitecustomize.py").write_text(HOOK)
        trace = work / "trace.snap"
        env = {
            **env,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), env.get("PYTHONPATH")])),
            "HEARTH_BENCH_TRACE_FRAMES": str(args.trace),
        }
    env = {**env, "HEARTH_BENCH_TRACE_TO": str(work / "trace.snap")}
    server, port = serve(home, env)
    moment = Moments(server.pid, trace)
    try:
        wait_answering(port)
        moment("ready")
        client = Client(port, token)
        if args.trace:
            client.conn.timeout = 900  # a status under tracemalloc may take minutes
        settle(client, home, server.pid)
        moment("settled")
        times, most = [], (0, 0)
        for n, query in enumerate(queries[:20] + queries):
            t0 = time.perf_counter()
            client.call("GET", "/v1/search?" + urlencode({"q": query, "limit": 10}))
            if n >= 20:
                times.append(1000 * (time.perf_counter() - t0))
            most = max(most, (memory_kb(server.pid)["VmRSS"], n + 1))
        moment("after the searches")
        for r in range(args.writes + 1):
            word = f"zq{r}x{rng.randrange(10**9)}"
            client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
            assert found(client, word), word
        moment(f"after {args.writes + 1} writes")
        last: str | None = None  # the word of the last commit, if any
        for r in range(args.commits + 1):
            path = workload_topic(rng.randrange(100, 1000), vocab)
            word = f"pc{r}x{rng.randrange(10**9)}"
            with open(home / path, "a") as handle:
                handle.write(f"\n{vocab.text(rng, 12)} {word}\n")
            git(home, "add", path)
            git(home, "commit", "-qm", f"person: edit {r}")
            last = word
        moment(f"after {args.commits + 1} commits")
        settle(client, home, server.pid, last)
        moment("settled after the commits")
        for r in range(args.saves):
            word = f"es{r}x{rng.randrange(10**9)}"
            text = topic_text(r, vocab, rng) + f"\nThe word is {word}.\n"
            (home / f"memory/topics/saved-{r}-{word}.md").write_text(text)
            while not found(client, word):
                time.sleep(0.005)
        moment(f"after {args.saves} saves")
        settle(client, home, server.pid)
        moment("settled at the end")
    finally:
        server.terminate()
        server.wait(timeout=60)
    load = os.getloadavg()
    moment.show(f"{label} (load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f})")
    print(f"  the most VmRSS after a search: {most[0] / 1024:.1f} MB, after search {most[1]}")
    print(f"  search p50 / p99 (HTTP, not the figure of this bench): "
          f"{percentile(times, 0.5):.2f} / {percentile(times, 0.99):.2f} ms")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the homes here")
    parser.add_argument(
        "--compare", action="append", default=[], help="also serve hearth from this src folder"
    )
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--commits", type=int, default=15)
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--trace", type=int, default=0, help="tracemalloc frames (0: off)")
    args = parser.parse_args()
    in_work(args.work, lambda work: run(args, work))


def run(args: argparse.Namespace, work: Path) -> None:
    env = use_git_identity()
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
    seed = work / f"seed-{args.files}"
    queries_file = work / f"seed-{args.files}.queries.json"
    if not queries_file.exists():
        shutil.rmtree(seed, ignore_errors=True)
        t0 = time.perf_counter()
        rng = random.Random(args.files)  # bench/workload.py's seed, so its notes and queries
        vocab = generate_home(seed, args.files, rng)
        queries = [vocab.query(rng) for _ in range(300)]
        queries_file.write_text(json.dumps(queries))
        print(f"generated {args.files:,} files in {time.perf_counter() - t0:.0f} s", flush=True)
    queries = json.loads(queries_file.read_text())[: args.queries]
    built = work / f"built-{args.files}"
    if not (built / ".git" / "hearth-bench-built").exists():
        shutil.rmtree(built, ignore_errors=True)
        shutil.copytree(seed, built, symlinks=True)
        t0 = time.perf_counter()
        for command in (["init", str(built)], ["--home", str(built), "reindex", "--full"],
                        ["--home", str(built), "hooks", "install"]):  # fmt: skip
            subprocess.run([HEARTH, *command], check=True, env=env, stdout=subprocess.DEVNULL)
        (built / ".git" / "hearth-bench-built").write_text("")
        print(f"adopted in {time.perf_counter() - t0:.0f} s", flush=True)
    trees = [("this checkout", env)]
    for src in args.compare:
        trees.append((f"hearth from {src}", {**env, "PYTHONPATH": src}))
    for turn in range(args.turns):
        for label, tree_env in trees:
            home = work / f"home-{os.getpid()}"
            while home.exists():  # a detached `git gc --auto` of the commits may still write
                shutil.rmtree(home, ignore_errors=True)
                time.sleep(0.5)
            shutil.copytree(built, home, symlinks=True)
            git(home, "status", "--porcelain")  # git refreshes its index once (new inodes)
            serve_once(home, tree_env, args, queries, work, f"turn {turn + 1}, {label}")
    shutil.rmtree(work / f"home-{os.getpid()}", ignore_errors=True)


if __name__ == "__main__":
    main()
