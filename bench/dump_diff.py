"""How many questions' first hits differ between two ``bench/recall.py --dump`` files.

    .venv/bin/python bench/dump_diff.py BEFORE AFTER [--top 5] [--mode hybrid]

Both files are JSON lines of ``bench/recall.py --dump`` over the same
questions, in the same order. For each ranking mode found in both
(``keyword_hits``, ``hybrid_hits``, or only ``--mode``), prints how many
questions' first ``--top`` hits (path, line and heading) differ, of how many,
and the first few that do. Issue 52's gate for approximate vector search:
at most 2% of questions. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--mode", help="only this ranking (keyword, hybrid)")
    args = parser.parse_args()
    before = [json.loads(line) for line in args.before.read_text().splitlines()]
    after = [json.loads(line) for line in args.after.read_text().splitlines()]
    if [r["question"] for r in before] != [r["question"] for r in after]:
        raise SystemExit("the two dumps do not hold the same questions in the same order")
    modes = [k for k in before[0] if k.endswith("_hits") and k in after[0]]
    if args.mode is not None:
        modes = [m for m in modes if m == f"{args.mode}_hits"]
    for mode in modes:
        differ = [
            (b["question"], b[mode][: args.top], a[mode][: args.top])
            for b, a in zip(before, after, strict=True)
            if b[mode][: args.top] != a[mode][: args.top]
        ]
        share = len(differ) / len(before)
        print(
            f"{mode.removesuffix('_hits')}: top {args.top} differ for {len(differ)} of "
            f"{len(before)} questions ({share:.1%})"
        )
        for question, old, new in differ[:5]:
            print(f"  {question!r}\n    before {old}\n    after  {new}")


if __name__ == "__main__":
    main()
