"""Every answer of ``LiveIndex.search`` on built homes, as JSON lines, to compare two versions.

    .venv/bin/python bench/search_dump.py OUT.jsonl --locomo-work DIR [--locomo LOCOMO_DIR]
        [--home HOME --queries FILE]...
    PYTHONPATH=OTHER/src .venv/bin/python bench/search_dump.py BEFORE.jsonl ...   (then cmp)

``make recall-bench``'s ``--dump`` names the evidence each hit covers; this
writes the whole answer: every hit's path, lines, score and snippet, the
ranking, and ``left_out``, for each question asked four ways (keyword and,
where the home has vectors, hybrid; browsing with ``all`` and with the
relevance floor). A change meant to leave ranking alone must leave the file
byte-identical.

``--locomo-work DIR``: the homes ``bench/recall.py --work DIR`` built (run it
first; the index is searched as it is, not rebuilt), asked the questions of
``--locomo`` (categories 1 to 4). ``--home HOME --queries FILE``: any home,
asked each line of FILE. The clock is fixed (2026-11-27 12:00 UTC), so
relative dates resolve alike in both runs. Prints how many answers it wrote.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path
from typing import TextIO

from hearth import wiring
from homegen import use_git_identity


def ask(root: Path, questions: list[str], out: TextIO, clock: dt.datetime) -> int:
    reconciler = wiring.open_app(root, lambda: clock).reconciler
    reconciler.catch_up()  # opens the index (a pass only if the files moved)
    live = reconciler.index
    semantic = live.semantic
    written = 0
    for mode, vectors in (("keyword", None), ("hybrid", semantic)):
        if mode == "hybrid" and semantic is None:
            continue
        live.semantic = vectors
        for text in questions:
            for everything in (True, False):
                found = live.search(text, limit=10, everything=everything)
                record: dict[str, object] = {
                    "home": root.name,
                    "mode": mode,
                    "all": everything,
                    "q": text,
                }
                record["answer"] = found.as_dict()
                out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
                written += 1
    live.semantic = semantic
    reconciler.close()
    return written


def locomo_questions(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    return [q["question"] for q in data["qa"] if q.get("category") in (1, 2, 3, 4)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--locomo", type=Path, default=Path("../shared/locomo-dev"))
    parser.add_argument("--locomo-work", type=Path)
    parser.add_argument("--home", type=Path, action="append", default=[])
    parser.add_argument("--queries", type=Path, action="append", default=[])
    args = parser.parse_args()
    use_git_identity(semantic=True)
    # A fixed clock: "yesterday" and "last week" resolve alike in both runs.
    clock = dt.datetime(2026, 11, 27, 12, 0, tzinfo=dt.UTC)
    written = 0
    with args.out.open("w") as out:
        if args.locomo_work is not None:
            for conv in sorted(args.locomo.glob("*.json")):
                root = args.locomo_work / conv.stem
                written += ask(root, locomo_questions(conv), out, clock)
        for home, queries in zip(args.home, args.queries, strict=True):
            written += ask(home, queries.read_text().splitlines(), out, clock)
    print(f"{written} answers written to {args.out}")


if __name__ == "__main__":
    main()
