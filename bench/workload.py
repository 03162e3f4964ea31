"""Issue 40's workload: a person's home at 10,000 (and 100,000) files, measured from outside.

    .venv/bin/python bench/workload.py [--sizes 10000,100000] [--queries 300]
        [--commits 15] [--writes 20] [--saves 20] [--hybrid-files 1000]
    make bench-workload   (10,000 files, and the hybrid rows on a 1,000-file home)

For each size, a generated home (bench/homegen.py ``generate_home``: the
persona files, a daily note for every fourth file, topic notes for the rest,
text drawn from a 5,000-word vocabulary with English's word frequencies),
adopted with ``hearth init`` and served by ``hearth serve`` with semantic
ranking off. Every figure over HTTP is taken once the server has settled (its
status says the index is fresh at HEAD and it uses under 5% of a core), each
beside its baseline from the same run:

- keyword search p50/p99: ``GET /v1/search?q=...&limit=10`` from a Python
  client on one keep-alive connection, ``--queries`` queries of one to three
  words, each word a random word of the home's text (so mostly common ones:
  "the", "garden"), seeded; against SQLite FTS5's bm25() and snippet() on the
  same files, in-process;
- server memory (VmRSS after the searches; the peak VmHWM at the end) and
  its private memory (RssAnon + RssShmem, issue 52's measure) after the
  searches and the most seen after a step (settled, searches, writes...);
- ``hearth serve`` start to a settled home: from starting the process until
  its status says fresh at HEAD (and then until it is quiet); against
  ``git status`` of the same files;
- a person's commit: ``git commit`` of a one-file edit with hearth's hooks
  (``hearth hooks install``) while the server runs, against plain git
  (``-c core.hooksPath=/dev/null``) committing the same edit in a copy of the
  repository, in turns, ``--commits`` of each, back to back as a person
  commits; then settling: from the end of the last commit until the status
  says fresh at the new HEAD and the last edit is found;
- an API write: ``POST /v1/daily`` until committed and searchable (the next
  search finds it), against ``git add && git commit`` of a one-line edit;
- ``hearth reindex --full`` against an SQLite FTS5 build (bench/search_index.py);
- ``hearth init`` of the folder against ``git init && git add -A && git commit``;
- an editor's save: ``--saves`` new topic files written behind the server's
  back, each timed from the write until a search finds it (p50, p95).

Hybrid search (``--hybrid-files``, 0 to skip): the vectors of a 10,000-file
home take about two hours of both cores here, so the hybrid rows are taken on
a smaller generated home whose every section has its real vector (the
server fills them and the bench waits): its keyword search first, then its
hybrid search, same queries, the same way.

Prints a table; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import (
    Vocabulary,
    create_token,
    generate_home,
    percentile,
    serve,
    topic_text,
    use_git_identity,
    wait_answering,
    wait_idle,
    workload_topic,
)
from measure import (
    FTS5_BUILD,
    FTS5_SEARCH,
    HEARTH,
    NO_HOOKS,
    Client,
    folder_mb,
    median_run,
    memory_kb,
    run,
    wait_for_vectors,
)

Figures = dict[str, float]


def p50_p99(samples: list[float], tail: float = 0.99) -> tuple[float, float]:
    values = [s * 1000 for s in samples]
    return statistics.median(values), percentile(values, tail)


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


def timed_git(root: Path, *args: str) -> float:
    t0 = time.perf_counter()
    git(root, *args)
    return time.perf_counter() - t0


def settle(client: Client, root: Path, pid: int, t0: float, word: str | None = None) -> float:
    """Seconds from ``t0`` until the status says fresh at HEAD (and ``word`` is
    found); then waits for the server to be quiet (not timed)."""
    head = git(root, "rev-parse", "HEAD").strip()
    while True:
        status = client.call("GET", "/v1/status")
        assert isinstance(status, dict)
        index = status["index"]
        if (
            index["fresh"]
            and index["indexed_head"] == head
            and (word is None or found(client, word))
        ):
            break
        time.sleep(0.01)
    seconds = time.perf_counter() - t0
    wait_idle(pid)
    return seconds


def found(client: Client, word: str) -> bool:
    result = client.call("GET", "/v1/search?" + urlencode({"q": word, "limit": 10}))
    return isinstance(result, dict) and bool(result["hits"])


def searches(client: Client, queries: list[str]) -> tuple[list[float], int, set[str]]:
    """Seconds of each query (after 20 of them asked once to warm up), how
    many found something, and the rankings the server said it used."""
    for query in queries[:20]:
        client.call("GET", "/v1/search?" + urlencode({"q": query, "limit": 10}))
    times, hits, rankings = [], 0, set()
    for query in queries:
        t0 = time.perf_counter()
        result = client.call("GET", "/v1/search?" + urlencode({"q": query, "limit": 10}))
        times.append(time.perf_counter() - t0)
        assert isinstance(result, dict)
        hits += bool(result["hits"])
        rankings.add(str(result["ranking"]))
    return times, hits, rankings


def fts5_times(db: Path, queries: list[str]) -> list[float]:
    conn = sqlite3.connect(db)
    for query in queries[:20]:
        conn.execute(FTS5_SEARCH, (query,)).fetchall()
    times = []
    for query in queries:
        t0 = time.perf_counter()
        conn.execute(FTS5_SEARCH, (query,)).fetchall()
        times.append(time.perf_counter() - t0)
    conn.close()
    return times


def put_pair(f: Figures, key: str, samples: list[float], tail: float = 0.99) -> None:
    f[f"{key}_p50"], f[f"{key}_p99"] = p50_p99(samples, tail)


def measure(files: int, args: argparse.Namespace, tmp: Path, env: dict[str, str]) -> Figures:
    f: Figures = {}
    rng = random.Random(files)
    root = tmp / f"home-{files}"
    t0 = time.perf_counter()
    vocab = generate_home(root, files, rng)
    print(f"\n== {files:,} files: {folder_mb(root):.0f} MB of notes generated in "
          f"{time.perf_counter() - t0:.1f} s (not a figure)", flush=True)  # fmt: skip

    t0 = time.perf_counter()
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, *NO_HOOKS, "commit", "-qm", "adopt")
    f["init_git"] = time.perf_counter() - t0
    shutil.rmtree(root / ".git")
    f["init"] = run([HEARTH, "init", str(root), "--json"], env).seconds
    print(f"  hearth init {f['init']:.1f} s (git {f['init_git']:.1f} s)", flush=True)

    f["build"] = median_run(
        [run([HEARTH, "--home", str(root), "reindex", "--full"], env) for _ in range(args.builds)]
    ).seconds
    db = tmp / f"fts-{files}.db"
    fts = []
    for _ in range(args.builds):
        db.unlink(missing_ok=True)
        fts.append(run([sys.executable, "-c", FTS5_BUILD, str(root), str(db)], env))
    f["build_fts"] = median_run(fts).seconds
    print(f"  reindex --full {f['build']:.1f} s (FTS5 {f['build_fts']:.1f} s)", flush=True)

    run([HEARTH, "--home", str(root), "hooks", "install"], env)
    copy = tmp / f"git-{files}"  # plain git's twin: the files and the repository, no index
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("hearth"), symlinks=True)
    git(copy, "status", "--porcelain")  # git refreshes its index once (new inodes)
    f["start_git"] = statistics.median(timed_git(copy, "status", "--porcelain") for _ in range(3))

    token = create_token(root)
    t0 = time.perf_counter()
    server, port = serve(root, env)
    try:
        wait_answering(port)
        client = Client(port, token)
        f["start"] = settle(client, root, server.pid, t0)
        f["start_quiet"] = time.perf_counter() - t0
        settled = private_mb(server.pid)
        print(
            f"  serve to settled {f['start']:.1f} s (quiet: {f['start_quiet']:.1f} s)", flush=True
        )
        queries = [vocab.query(rng) for _ in range(args.queries)]
        times, hits, _ranking = searches(client, queries)
        put_pair(f, "search", times)
        put_pair(f, "search_fts", fts5_times(db, queries))
        print(f"  keyword search: {hits} of {len(queries)} queries found something; e.g. "
              f"{', '.join(repr(q) for q in queries[:5])}", flush=True)  # fmt: skip
        f["rss"] = memory_kb(server.pid)["VmRSS"] / 1024
        f["private"] = private_mb(server.pid)
        f["private_most"] = max(settled, f["private"])
        print(f"  search p50 {f['search_p50']:.2f} ms (FTS5 {f['search_fts_p50']:.2f} ms), "
              f"RSS {f['rss']:.0f} MB, private {f['private']:.0f} MB", flush=True)  # fmt: skip
        writes(client, root, copy, vocab, rng, args, f)
        print(
            f"  API write p50 {f['write_p50']:.1f} ms (git {f['write_git_p50']:.1f} ms)", flush=True
        )
        f["private_most"] = max(f["private_most"], private_mb(server.pid))
        person_commits(client, root, copy, server.pid, vocab, rng, args, f)
        print(f"  hooked commit p50 {f['commit_p50']:.1f} ms (plain {f['commit_git_p50']:.1f} ms), "
              f"settled {f['settle']:.2f} s after the last", flush=True)  # fmt: skip
        f["private_most"] = max(f["private_most"], private_mb(server.pid))
        saves(client, root, vocab, rng, args, f)
        print(f"  editor save p95 {f['save_p99']:.1f} ms", flush=True)
        f["hwm"] = memory_kb(server.pid)["VmHWM"] / 1024
        f["private_most"] = max(f["private_most"], private_mb(server.pid))
    finally:
        server.terminate()
        server.wait(timeout=60)
    # A detached `git gc --auto` of the last commits may still be packing.
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(copy, ignore_errors=True)
    db.unlink(missing_ok=True)
    return f


def private_mb(pid: int) -> float:
    return memory_kb(pid)["private"] / 1024


def edit(root: Path, path: str, line: str) -> None:
    with open(root / path, "a") as handle:
        handle.write(f"\n{line}\n")


def writes(
    client: Client,
    root: Path,
    copy: Path,
    vocab: Vocabulary,
    rng: random.Random,
    args: argparse.Namespace,
    f: Figures,
) -> None:
    ours, theirs = [], []
    for r in range(args.writes + 1):  # the first of each is a warm-up
        word = f"zq{r}x{rng.randrange(10**9)}"
        t0 = time.perf_counter()
        client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
        assert found(client, word), word
        ours.append(time.perf_counter() - t0)
        path = workload_topic(rng.randrange(100), vocab)
        edit(copy, path, f"{vocab.text(rng, 12)} {word}")
        t0 = time.perf_counter()
        git(copy, "add", path)
        git(copy, *NO_HOOKS, "commit", "-qm", f"bench: write {r}")
        theirs.append(time.perf_counter() - t0)
    put_pair(f, "write", ours[1:])
    put_pair(f, "write_git", theirs[1:])


def person_commits(
    client: Client,
    root: Path,
    copy: Path,
    pid: int,
    vocab: Vocabulary,
    rng: random.Random,
    args: argparse.Namespace,
    f: Figures,
) -> None:
    """A one-file edit committed with the hooks in the home and without in the
    copy, in turns, back to back; then the home's settling after the last."""
    hooked: list[float] = []
    plain: list[float] = []
    word = ""
    for r in range(args.commits + 1):  # the first of each is a warm-up
        path = workload_topic(rng.randrange(100, 1000), vocab)
        word = f"pc{r}x{rng.randrange(10**9)}"
        line = f"{vocab.text(rng, 12)} {word}"
        for place, times, extra in ((copy, plain, NO_HOOKS), (root, hooked, ())):
            edit(place, path, line)
            git(place, "add", path)
            times.append(timed_git(place, *extra, "commit", "-qm", f"person: edit {r}"))
        t_last = time.perf_counter()
        if r == 0:
            settle(client, root, pid, t_last, word)
    f["settle"] = settle(client, root, pid, t_last, word)
    put_pair(f, "commit", hooked[1:])
    put_pair(f, "commit_git", plain[1:])


def saves(
    client: Client,
    root: Path,
    vocab: Vocabulary,
    rng: random.Random,
    args: argparse.Namespace,
    f: Figures,
) -> None:
    times = []
    for r in range(args.saves):
        word = f"es{r}x{rng.randrange(10**9)}"
        path = root / f"memory/topics/saved-{r}-{word}.md"
        text = topic_text(r, vocab, rng) + f"\nThe word is {word}.\n"
        t0 = time.perf_counter()
        path.write_text(text)
        while not found(client, word):
            time.sleep(0.005)
            if time.perf_counter() - t0 > 60:
                raise SystemExit(f"{word} not searchable after 60 s")
        times.append(time.perf_counter() - t0)
        time.sleep(0.05)
    put_pair(f, "save", times, tail=0.95)


def hybrid(files: int, args: argparse.Namespace, tmp: Path, env: dict[str, str]) -> Figures:
    """Keyword then hybrid search on a ``files``-file home whose sections all have vectors."""
    f: Figures = {}
    rng = random.Random(files + 1)
    root = tmp / f"hybrid-{files}"
    vocab = generate_home(root, files, rng)
    run([HEARTH, "init", str(root), "--json"], env)
    queries = [vocab.query(rng) for _ in range(args.queries)]
    token = create_token(root)
    semantic = {k: v for k, v in env.items() if k != "HEARTH_SEMANTIC"}
    for key, server_env in (("hybrid_kw", env), ("hybrid", semantic)):
        server, port = serve(root, server_env)
        try:
            wait_answering(port)
            client = Client(port, token)
            t0 = time.perf_counter()
            if key == "hybrid":
                vectors = wait_for_vectors(client)
                print(f"  {files:,}-file home: {vectors['embedded']} sections embedded in "
                      f"{time.perf_counter() - t0:.0f} s", flush=True)  # fmt: skip
            settle(client, root, server.pid, t0)
            times, hits, rankings = searches(client, queries)
            print(f"  {key}: ranking {', '.join(sorted(rankings))}; {hits} of "
                  f"{len(queries)} queries found something", flush=True)  # fmt: skip
            put_pair(f, key, times)
        finally:
            server.terminate()
            server.wait(timeout=60)
    return f


#: (label, key of the figure, key of its baseline or None, unit)
ROWS = [
    ("keyword search p50 / p99 (HTTP)", "search", "search_fts", "ms", "FTS5 in-process"),
    ("hybrid search p50 / p99 (HTTP)", "hybrid", "hybrid_kw", "ms", "keyword, same home"),
    ("server RSS (keyword), peak", "rss", "hwm", "MB", "peak VmHWM at the end"),
    ("server private memory, most after a step", "private", "private_most", "MB", ""),
    ("`hearth serve` start to settled", "start", "start_git", "s", "git status"),
    ("a person's `git commit` with hooks", "commit", "commit_git", "ms", "plain git"),
    ("settling after the last commit", "settle", None, "s", ""),
    ("API write p50 / p99, committed and searchable", "write", "write_git", "ms", "git add+commit"),
    ("`hearth reindex --full`", "build", "build_fts", "s", "FTS5 build"),
    ("`hearth init`", "init", "init_git", "s", "git init+add+commit"),
    ("editor save to searchable p50 / p95", "save", None, "ms", ""),
]


def cell(f: Figures, key: str) -> str:
    if f"{key}_p50" in f:
        return f"{f[key + '_p50']:.2f} / {f[key + '_p99']:.1f}"
    return f"{f[key]:.2f}" if key in f else "-"


def table(sizes: dict[int, Figures]) -> None:
    head = " | ".join(f"{n:,} files" for n in sizes)
    print(f"\n| figure | {head} |\n|---|{'---|' * len(sizes)}")
    for label, key, base, unit, base_label in ROWS:
        cells = []
        for f in sizes.values():
            text = cell(f, key)
            if base is not None and cell(f, base) != "-":
                if key == "rss":
                    text += f" (peak {cell(f, base)})"
                elif key == "private":
                    text += f" (most {cell(f, base)})"
                else:
                    mine = f.get(f"{key}_p50", f.get(key, 0.0))
                    theirs = f.get(f"{base}_p50", f.get(base, 0.0))
                    text += f" vs {cell(f, base)} = {mine / theirs:.2f}x" if theirs else ""
            cells.append(text)
        note = f" (vs {base_label})" if base_label and key not in ("rss", "private") else ""
        print(f"| {label}, {unit}{note} | {' | '.join(cells)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated file counts")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--commits", type=int, default=15)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--saves", type=int, default=20)
    parser.add_argument("--builds", type=int, default=2, help="runs of each build (median)")
    parser.add_argument("--hybrid-files", type=int, default=1000, help="0: no hybrid rows")
    args = parser.parse_args()
    counts = [int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()]
    cache = tempfile.TemporaryDirectory(prefix="hearth-workload-pycache-")
    # Compiled modules cached aside, as a person's Python keeps them (bench/scale.py).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = cache.name
    env = use_git_identity()
    load = os.getloadavg()
    import hearth

    print(f"hearth from {Path(hearth.__file__).parent}; sizes {args.sizes}; "
          f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f} at the start", flush=True)  # fmt: skip
    started = time.perf_counter()
    sizes: dict[int, Figures] = {}
    with tempfile.TemporaryDirectory(prefix="hearth-workload-", ignore_cleanup_errors=True) as tmp:
        for count in counts:
            sizes[count] = measure(count, args, Path(tmp), env)
        if args.hybrid_files and counts:
            sizes[counts[0]].update(hybrid(args.hybrid_files, args, Path(tmp), env))
    table(sizes)
    if args.hybrid_files:
        print(f"(hybrid rows: a {args.hybrid_files:,}-file home, every section's vector real)")
    cache.cleanup()
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end; "
          f"the run took {(time.perf_counter() - started) / 60:.1f} min")  # fmt: skip


if __name__ == "__main__":
    main()
