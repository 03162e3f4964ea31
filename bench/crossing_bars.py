"""The crossing of each query's translation candidate in the small homes (issue 48).

    .venv/bin/python bench/crossing_bars.py [--work DIR] [--sizes 10,100,1000] [--seed S]

For every labelled query of ``bench/data/small_homes`` (``small_homes.py``
builds the homes, the same seeded draw; ``--work`` reuses them), the ranking
the context bundle's recall asks for is made once and its translation
candidate (``crossing.py``: the passage in another language of highest
crossing among the semantic side's nearest) is printed with its crossing,
its margin over the best passage in the question's own language, and whether
it answers the query: the distribution ``Floor.crossing`` and
``Floor.crossing_margin`` were chosen from (answers across languages above
both bars, no absent or small-talk query's candidate); a question of
unaccented words the home holds none of gets the best of every passage
(``u``: ``Floor.crossing_unheld``). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import small_homes
from hearth import wiring
from hearth.index import crossing, ranking
from hearth.index.floor import FLOOR
from hearth.index.question import question
from hearth.index.weights import WEIGHTS
from homegen import use_git_identity


def run(work: Path, sizes: list[int], seed: int) -> None:
    queries = [
        json.loads(line) for line in (small_homes.DATA / "queries.jsonl").read_text().splitlines()
    ]
    rows = []
    for size in sizes:
        root = work / f"home{size}"
        root.parent.mkdir(parents=True, exist_ok=True)
        clock = small_homes.build(root, size, seed)
        app = wiring.open_app(root, clock)
        app.reconciler.catch_up()
        app.reconciler.index.fill_vectors()
        live = app.reconciler.index
        index, semantic = live.current, live.semantic
        assert index is not None and semantic is not None, "semantic ranking must be on"
        for q in queries:
            asked = question(q["q"], limit=10)
            _hits, gathered = ranking.hybrid_ranked(
                index, semantic.store, semantic.embedder, asked, WEIGHTS, False
            )
            found = gathered.crossing
            if found is None:
                continue
            body = gathered.bodies.get(found.key, "")
            right = bool(q["answers"]) and small_homes.answers(body, found.key[0], q["answers"])
            admitted = crossing.admitted(found, FLOOR)
            rows.append(
                (found.score, found.margin, size, q["type"], right, admitted, found.unheld, q["q"])
            )
        app.reconciler.close()
    bar, margin, unheld = FLOOR.crossing, FLOOR.crossing_margin, FLOOR.crossing_unheld
    print(
        f"bars: crossing {bar}, margin {margin}; a question's best of every passage "
        f"(marked u: unheld) {unheld}; a row the floor lets through is marked *"
    )
    print(f"{'crossing':>8} {'margin':>7} {'home':>5} {'type':<10} {'answers':<7} query")
    for score, over, size, kind, right, passed, anywhere, text in sorted(
        rows, key=lambda r: (r[3], -r[1])
    ):
        mark = ("*" if passed else " ") + ("u" if anywhere else " ")
        print(f"{score:8.3f} {over:7.3f} {size:>5} {kind:<10} {right!s:<7} {mark} {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built homes here")
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--seed", type=int, default=48)
    args = parser.parse_args()
    use_git_identity(semantic=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.work is not None:
        run(args.work, sizes, args.seed)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-crossing-") as tmp:
        run(Path(tmp), sizes, args.seed)


if __name__ == "__main__":
    main()
