"""The scaling curve: what each cost of hearth becomes at 1,000, 10,000 and 100,000 files.

    .venv/bin/python bench/scale.py [--sizes 1000,10000] [--queries 300] [--writes 20]
    make bench         (1,000 and 10,000 files)
    make bench-scale   (1,000, 10,000 and 100,000 files: 5 to 20 minutes on 2 cores)

For each size, on a folder of generated notes (bench/homegen.py: topic files of
about 2 KB, three sections each), in one run, each figure beside a baseline
taken in the same run on the same files:

- init: `hearth init FOLDER` adopting every file (what a person runs on a
  folder of notes: validation rules, blobs, one commit), against
  `git init && git add -A && git commit` of the same folder (run first; its
  `.git` is then removed);
- full build: `hearth reindex --full` (list, read, section, check, Tantivy
  build aside and swap, manifest, ACTIVE.md), against an SQLite FTS5 build of
  the same files, one row per file (bench/search_index.py);
- no-change pass: `hearth reindex` when nothing changed, against `git status`;
- search, keyword (semantic ranking off: HEARTH_SEMANTIC=off; vectors are
  measured apart by bench/search_index.py and bench/hybrid_search.py), top 10
  with snippets: in-process (`Reconciler.catch_up().search`) against FTS5's bm25() and
  snippet(), and over HTTP (`GET /v1/search` on `hearth serve`, once its
  start-up work is done: the time that takes is a figure of its own). The generated
  text draws on 21 words, so every query matches nearly every section: the
  worst case for top-10 scoring;
- one write: `POST /v1/daily` until committed and searchable (the next
  search finds it), against `git add <file> && git commit` of a one-line edit
  (no hooks, no automatic gc; that makes nothing searchable);
- resident memory: the peak (VmHWM) of `hearth serve` after the searches and
  writes, and of the init and build processes (their own peak; the build's
  reader processes are not added in), against the FTS5 build's;
- disk: the index folder (.git/hearth) and the git objects.

Then a table of every figure per size, and how each grows: the ratio per 10x
files between neighbouring sizes (10.0 is linear; below is better than
linear). Every figure is wall time on a shared machine unless it says CPU: the
load average is printed at the start and the end. Prints figures; asserts
nothing about speed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from hearth import wiring
from homegen import (
    GIT_ENV,
    WORDS,
    generate,
    percentile,
    start_server,
    topic_path,
    use_git_identity,
    wait_idle,
)
from measure import (
    FTS5_BUILD,
    HEARTH,
    NO_HOOKS,
    Client,
    folder_mb,
    fts5_search_times,
    median_run,
    memory_kb,
    run,
)


def ms(samples: list[float]) -> tuple[float, float]:
    """p50 and p99 in milliseconds."""
    values = [s * 1000 for s in samples]
    return statistics.median(values), percentile(values, 0.99)


@dataclass
class Size:
    files: int
    figures: dict[str, float] = field(default_factory=dict)

    def put(self, name: str, value: float) -> None:
        self.figures[name] = value


#: The table's rows: (key, label, unit); "  " marks a baseline row.
ROWS = [
    ("init", "hearth init of the folder", "s"),
    ("init_git", "  git init + add -A + commit", "s"),
    ("init_cpu", "hearth init, CPU", "s"),
    ("build", "hearth reindex --full", "s"),
    ("build_fts", "  SQLite FTS5 build, one row per file", "s"),
    ("build_cpu", "hearth reindex --full, CPU", "s"),
    ("nochange", "hearth reindex, nothing changed", "s"),
    ("nochange_git", "  git status", "s"),
    ("serve_ready", "hearth serve start-up (index built)", "s"),
    ("serve_settled", "  then its start-up work done (timed apart)", "s"),
    ("search_p50", "search in-process, p50", "ms"),
    ("search_p99", "search in-process, p99", "ms"),
    ("search_fts_p50", "  FTS5 in-process, p50", "ms"),
    ("search_fts_p99", "  FTS5 in-process, p99", "ms"),
    ("http_p50", "search over HTTP, p50", "ms"),
    ("http_p99", "search over HTTP, p99", "ms"),
    ("write_p50", "API write to searchable, p50", "ms"),
    ("write_p99", "API write to searchable, p99", "ms"),
    ("write_git_p50", "  git add && git commit, p50", "ms"),
    ("write_git_p99", "  git add && git commit, p99", "ms"),
    ("serve_hwm", "hearth serve peak memory (VmHWM)", "MB"),
    ("serve_rss", "hearth serve memory at the end (VmRSS)", "MB"),
    ("init_hwm", "hearth init peak memory", "MB"),
    ("build_hwm", "hearth reindex --full peak memory", "MB"),
    ("build_fts_hwm", "  FTS5 build peak memory", "MB"),
    ("index_mb", "index on disk (.git/hearth)", "MB"),
    ("objects_mb", "git objects (.git/objects)", "MB"),
    ("files_mb", "the notes themselves", "MB"),
]


def measure(files: int, args: argparse.Namespace, tmp: Path, env: dict[str, str]) -> Size:
    size = Size(files)
    rng = random.Random(files)
    root = tmp / f"home-{files}"
    t0 = time.perf_counter()
    generate(root, files, rng)
    size.put("files_mb", folder_mb(root))
    print(f"\n== {files:,} files: generated {size.figures['files_mb']:.0f} MB of notes in "
          f"{time.perf_counter() - t0:.1f} s (not a figure)", flush=True)  # fmt: skip

    # init: git's own adoption of the folder first, then hearth's of the same files.
    t0 = time.perf_counter()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", *NO_HOOKS, "commit", "-qm", "adopt"], cwd=root, check=True, env=env)
    size.put("init_git", time.perf_counter() - t0)
    shutil.rmtree(root / ".git")
    init = run([HEARTH, "init", str(root), "--json"], env)
    size.put("init", init.seconds)
    size.put("init_cpu", init.cpu)
    size.put("init_hwm", init.peak_kb / 1024)
    print(f"  init {init.seconds:.1f} s (git: {size.figures['init_git']:.1f} s)", flush=True)

    builds = [run([HEARTH, "--home", str(root), "reindex", "--full"], env)
              for _ in range(args.builds)]  # fmt: skip
    build = median_run(builds)
    size.put("build", build.seconds)
    size.put("build_cpu", build.cpu)
    size.put("build_hwm", max(b.peak_kb for b in builds) / 1024)
    fts_db = tmp / f"fts-{files}.db"
    fts_runs = []
    for _ in range(args.builds):
        fts_db.unlink(missing_ok=True)
        fts_runs.append(run([sys.executable, "-c", FTS5_BUILD, str(root), str(fts_db)], env))
    fts = median_run(fts_runs)
    size.put("build_fts", fts.seconds)
    size.put("build_fts_hwm", max(f.peak_kb for f in fts_runs) / 1024)
    print(f"  reindex --full {build.seconds:.1f} s (FTS5: {fts.seconds:.1f} s)", flush=True)

    run(["git", "status", "--porcelain"], env, cwd=root)  # git refreshes its index once
    nochange = [run([HEARTH, "--home", str(root), "reindex"], env).seconds for _ in range(3)]
    status = [run(["git", "status", "--porcelain"], env, cwd=root).seconds for _ in range(3)]
    size.put("nochange", statistics.median(nochange))
    size.put("nochange_git", statistics.median(status))

    queries = [" ".join(rng.sample(WORDS, rng.choice((1, 1, 2, 3)))) for _ in range(args.queries)]
    in_process(root, queries, fts_db, size)

    t0 = time.perf_counter()
    server, port, token = start_server(root, env)
    size.put("serve_ready", time.perf_counter() - t0)
    # Searches are timed once the server's start-up work (its first pass, the
    # watcher's set-up on every folder) is done: that work is a figure of its
    # own, and searches during it timed both (at 100,000 files: p99 89 ms).
    size.put("serve_settled", wait_idle(server.pid))
    try:
        client = Client(port, token)
        over_http(client, queries, size)
        writes(client, root, files, args.writes, rng, env, size)
        mem = memory_kb(server.pid)
        size.put("serve_hwm", mem["VmHWM"] / 1024)
        size.put("serve_rss", mem["VmRSS"] / 1024)
    finally:
        server.terminate()
        server.wait(timeout=60)
    size.put("index_mb", folder_mb(root / ".git/hearth"))
    size.put("objects_mb", folder_mb(root / ".git/objects"))
    shutil.rmtree(root)
    fts_db.unlink(missing_ok=True)
    return size


def in_process(root: Path, queries: list[str], fts_db: Path, size: Size) -> None:
    app = wiring.open_app(root)
    rec = app.reconciler
    rec.reconcile()
    for query in queries[:20]:  # warm-up: the searcher, the page cache
        rec.catch_up().search(query, limit=10)
    ours = []
    for query in queries:
        t0 = time.perf_counter()
        hits = rec.catch_up().search(query, limit=10).hits
        ours.append(time.perf_counter() - t0)
        assert hits, query
    rec.close()
    theirs = fts5_search_times(fts_db, queries, warm=20)
    for key, samples in (("search", ours), ("search_fts", theirs)):
        p50, p99 = ms(samples)
        size.put(f"{key}_p50", p50)
        size.put(f"{key}_p99", p99)


def over_http(client: Client, queries: list[str], size: Size) -> None:
    for query in queries[:20]:
        client.search(query)
    samples = []
    for query in queries:
        t0 = time.perf_counter()
        hits = client.search(query)
        samples.append(time.perf_counter() - t0)
        assert hits, query
    p50, p99 = ms(samples)
    size.put("http_p50", p50)
    size.put("http_p99", p99)


def writes(
    client: Client,
    root: Path,
    files: int,
    rounds: int,
    rng: random.Random,
    env: dict[str, str],
    size: Size,
) -> None:
    # The API writes first, then the git commits, so neither measures the
    # other's aftermath (a person's commit moves HEAD; the server follows).
    ours = []
    for r in range(rounds + 1):
        word = f"zq{r}x{rng.randrange(10**9)}"
        t0 = time.perf_counter()
        client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
        found = client.call("GET", "/v1/search?" + urlencode({"q": word, "limit": 10}))
        assert isinstance(found, dict) and found["hits"], word
        if r:  # the first is a warm-up
            ours.append(time.perf_counter() - t0)
    theirs = []
    for r in range(rounds + 1):
        number = (r * 7919 + 13) % files
        path = topic_path(number)
        with open(root / path, "a") as handle:
            handle.write(f"\nedited in round {r}\n")
        t0 = time.perf_counter()
        subprocess.run(["git", "add", path], cwd=root, check=True, env=env)
        subprocess.run(
            ["git", *NO_HOOKS, "commit", "-qm", f"bench: round {r}"], cwd=root, check=True, env=env
        )
        if r:
            theirs.append(time.perf_counter() - t0)
    for key, samples in (("write", ours), ("write_git", theirs)):
        p50, p99 = ms(samples)
        size.put(f"{key}_p50", p50)
        size.put(f"{key}_p99", p99)


def growth(sizes: list[Size], key: str) -> str:
    """The ratio per 10x files between neighbouring sizes ("x10.0" is linear)."""
    steps = []
    for small, large in itertools.pairwise(sizes):
        a, b = small.figures.get(key), large.figures.get(key)
        if not a or b is None:
            steps.append("-")
            continue
        per_10x = (b / a) ** (1 / math.log10(large.files / small.files))
        steps.append(f"x{per_10x:.1f}")
    return "  ".join(steps)


def table(sizes: list[Size]) -> None:
    head = "".join(f"{s.files:>12,}" for s in sizes)
    print(f"\n{'figure (files ->)':<44}{head}   growth per 10x files")
    for key, label, unit in ROWS:
        cells = ""
        for s in sizes:
            value = s.figures.get(key)
            cells += f"{'-':>12}" if value is None else f"{value:>12.{_digits(value)}f}"
        print(f"{label + ', ' + unit:<44}{cells}   {growth(sizes, key)}")
    print("\nratios to the baseline, per size:")
    pairs = [
        ("init", "init_git", "init / git add+commit"),
        ("build", "build_fts", "reindex --full / FTS5 build"),
        ("nochange", "nochange_git", "no-change reindex / git status"),
        ("search_p50", "search_fts_p50", "search p50 / FTS5 p50"),
        ("write_p50", "write_git_p50", "API write p50 / git add+commit p50"),
        ("build_hwm", "build_fts_hwm", "build peak memory / FTS5 build's"),
    ]
    for key, base, label in pairs:
        cells = "".join(
            f"{s.figures[key] / s.figures[base]:>12.2f}" if s.figures.get(base) else f"{'-':>12}"
            for s in sizes
        )
        print(f"  {label:<42}{cells}")
    if len(sizes) >= 2:
        small, large = sizes[-2], sizes[-1]
        extra = large.files - small.files

        def per_file(key: str, scale: float) -> float:
            return (large.figures[key] - small.figures[key]) * scale / extra

        print(
            f"\nper file, from {small.files:,} to {large.files:,} files (the slope):\n"
            f"  full build {per_file('build', 1e6):.0f} us "
            f"(CPU {per_file('build_cpu', 1e6):.0f} us), "
            f"init {per_file('init', 1e6):.0f} us, no-change pass "
            f"{per_file('nochange', 1e6):.1f} us\n"
            f"  server memory {per_file('serve_hwm', 1024):.2f} KB, build process "
            f"{per_file('build_hwm', 1024):.2f} KB, index on disk "
            f"{per_file('index_mb', 1e3):.2f} KB"
        )


def _digits(value: float) -> int:
    return 0 if value >= 100 else (1 if value >= 10 else 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated file counts")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--builds", type=int, default=2, help="runs of each build (median)")
    args = parser.parse_args()
    counts = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    cache = tempfile.TemporaryDirectory(prefix="hearth-scale-pycache-")
    # A person's Python keeps compiled modules; a sandbox that forbids writing
    # them would add compiling hearth to every command timed here. Cached
    # aside, so no source tree is written to (as bench/git_commit.py does).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = cache.name
    env = use_git_identity()
    assert all(k in env for k in GIT_ENV)
    load = os.getloadavg()
    print(
        f"sizes {', '.join(f'{c:,}' for c in counts)}; semantic ranking "
        f"{env.get('HEARTH_SEMANTIC')!r} (keyword only); {os.cpu_count()} cores, "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start"
    )
    started = time.perf_counter()
    sizes = []
    with tempfile.TemporaryDirectory(prefix="hearth-scale-") as tmp:
        # A round on a few files first, not reported: it compiles every module
        # the commands import into the cache, as a person's earlier runs would.
        warm = argparse.Namespace(**{**vars(args), "queries": 20, "writes": 2, "builds": 1})
        with contextlib.redirect_stdout(io.StringIO()):
            measure(50, warm, Path(tmp), env)
        for count in counts:
            sizes.append(measure(count, args, Path(tmp), env))
    table(sizes)
    cache.cleanup()
    load = os.getloadavg()
    print(
        f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end; "
        f"the run took {(time.perf_counter() - started) / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
