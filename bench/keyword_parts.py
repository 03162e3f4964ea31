"""Where a keyword search's CPU time goes, in-process, part by part.

    .venv/bin/python bench/keyword_parts.py HOME [--searches 300] [--rounds 3]
        [--queries FILE]   (a JSON list of queries: 40 to warm, then the rest)
    PYTHONPATH=OTHER/src .venv/bin/python bench/keyword_parts.py HOME ...   (another tree)

HOME is a home (say ``bench/hybrid_search.py --work DIR``'s ``DIR/seed``, the
10,000-file home); a copy of it is opened in this process (its index rebuilt
when its schema is not this tree's) with semantic ranking off, and asked
``bench/search_alone.py``'s queries through ``LiveIndex.search`` (the
server's call, relevance floor on): 40 to warm, then ``--searches`` distinct
ones, ``--rounds`` times. Each part (the keyword ranking on Tantivy and,
inside it, building the query, the filters and reading the hits' stored
fields; the neighbours; reading the bodies from their files; the crowded
page's room; the relevance floor; the snippets) is timed by wrapping its
function, in the process's CPU time (``time.process_time``), not the wall
clock: on a machine other work loads, a search's own CPU time moves far less
than its wall time, so two trees measured one after the other compare. A
part a tree does not have is left out. Prints each part's CPU a search;
asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import random
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from homegen import WORDS, use_git_identity

#: (module under hearth.index, owner in it or "", function, label): the parts.
PARTS = [
    ("live", "", "question", "the question read"),
    ("query", "", "_matched_query", "  query: what must match (parsed)"),
    ("query", "", "matched_query", "  query: what must match (parsed)"),
    ("query", "", "_user_query", "  query: the lifts"),
    ("query", "", "_ranked", "  query: filters and lowered sets"),
    ("query", "", "_documents", "  the hits' stored fields"),
    ("search_index", "SearchIndex", "ranked", "keyword ranking (Tantivy)"),
    ("search_index", "SearchIndex", "neighbours", "neighbours"),
    ("bodies", "Bodies", "load", "bodies read from files"),
    ("room", "", "crowded", "crowded page's room"),
    ("room", "", "made", "crowded page's room made (its candidates read)"),
    ("evidence", "", "passing", "relevance floor (bodies read there too, if not yet)"),
    ("search_index", "SearchIndex", "snippets", "snippets"),
]


def wrap(times: dict[str, float], module: str, owner: str, name: str, label: str) -> None:
    try:
        where: Any = importlib.import_module(f"hearth.index.{module}")
    except ImportError:
        return
    if owner:
        where = getattr(where, owner, None)
    found: Callable[..., Any] | None = getattr(where, name, None)
    if found is None:
        return
    inner = found

    @functools.wraps(inner)
    def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            times[label] = times.get(label, 0.0) + time.process_time() - t0

    setattr(where, name, timed)
    if module == "evidence":  # ranking.py calls it through its module
        ranking: Any = importlib.import_module("hearth.index.ranking")
        if getattr(ranking.evidence, name, None) is not timed:
            setattr(ranking.evidence, name, timed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--searches", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--queries",
        type=Path,
        help="a JSON list of queries to ask instead (40 to warm, then the rest)",
    )
    args = parser.parse_args()
    use_git_identity()
    from hearth import wiring

    rng = random.Random(6)
    queries = [" ".join(rng.sample(WORDS, rng.choice((2, 3)))) for _ in range(args.searches + 40)]
    if args.queries:
        queries = json.loads(args.queries.read_text())
        args.searches = len(queries) - 40
    with tempfile.TemporaryDirectory(prefix="hearth-kw-", dir=args.home.parent) as tmp:
        home = Path(tmp) / "home"
        shutil.copytree(args.home, home, symlinks=True)
        reconciler = wiring.open_app(home).reconciler
        reconciler.reconcile()
        live = reconciler.index
        times: dict[str, float] = {}
        for module, owner, name, label in PARTS:
            wrap(times, module, owner, name, label)
        for text in queries[:40]:
            live.search(text)
        times.clear()
        c0 = time.process_time()
        for _ in range(args.rounds):
            for text in queries[40:]:
                live.search(text)
        count = args.rounds * args.searches
        whole = (time.process_time() - c0) / count * 1000
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"CPU a keyword search, ms ({count} searches, load average {load}):")
    print(f"  {'whole search':<54} {whole:6.3f}")
    for label in dict.fromkeys(label for _module, _owner, _name, label in PARTS):
        if label in times:
            print(f"  {label:<54} {times[label] / count * 1000:6.3f}")


if __name__ == "__main__":
    main()
