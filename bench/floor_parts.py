"""The relevance floor with and without each of its parts (issue 38).

    .venv/bin/python bench/floor_parts.py LOCOMO_DIR [--work DIR] [--questions N] [--seed S]

The homes and prompts of ``bench/recall_silence.py`` (the same helpers, the
same seeded draw), asked in this process instead of through the hook: each
prompt is ranked once as the context bundle's recall ranks it (hybrid, its
first ``RECALL_HITS``), what the floor knows of each hit is gathered once,
and then every variant of the floor decides on the same hits. A prompt's
recall is its first ``RECALL_PASSAGES`` hits above the floor (what the hook
injects, before its character limit). Printed per variant: own questions'
share with recall and share whose recall holds an evidence turn, foreign
questions' share silent, no-memory prompts' share silent. Asserts nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from hearth import wiring
from hearth.app.usecases import RECALL_HITS
from hearth.index import evidence, ranking
from hearth.index.floor import FLOOR, Bar, Floor, passing
from hearth.index.question import question
from hearth.index.weights import WEIGHTS
from hearth.runtimes.agent_context import RECALL_PASSAGES
from homegen import use_git_identity
from locomo import NO_MEMORY, build_home, chosen, covered, load, locate


def _without(bar: Bar, **parts: Any) -> Bar:
    return dataclasses.replace(bar, **parts)


def variants() -> dict[str, Floor | None]:
    both = FLOOR.named or FLOOR.bar
    return {
        "no floor (before)": None,
        "the floor": FLOOR,
        "without names": dataclasses.replace(FLOOR, names=False),
        "without the named bar": dataclasses.replace(FLOOR, named=None),
        "without words": dataclasses.replace(
            FLOOR, bar=_without(FLOOR.bar, words=None), named=_without(both, words=None)
        ),
        "without meaning": dataclasses.replace(
            FLOOR, bar=_without(FLOOR.bar, meaning=None), named=_without(both, meaning=None)
        ),
        "without both sides": dataclasses.replace(
            FLOOR, bar=_without(FLOOR.bar, agreed=None), named=_without(both, agreed=None)
        ),
        "without neighbours": dataclasses.replace(FLOOR, neighbours=False),
        "without every word": dataclasses.replace(
            FLOOR,
            bar=dataclasses.replace(FLOOR.bar, every_word=False),
            named=dataclasses.replace(both, every_word=False),
            keyword=dataclasses.replace(FLOOR.keyword, every_word=False),
        ),
        "without translations": dataclasses.replace(
            FLOOR, translation=None, crossing=None, crossing_unheld=None
        ),
        "without crossing": dataclasses.replace(FLOOR, crossing=None, crossing_unheld=None),
        "without unheld crossing": dataclasses.replace(FLOOR, crossing_unheld=None),
        "without absent words": dataclasses.replace(FLOOR, absent_words=False),
    }


def run(locomo: Path, work: Path, sample: int, seed: int) -> None:
    rng = random.Random(seed)
    conversations = {p.stem: load(p) for p in sorted(locomo.glob("*.json"))}
    floors = variants()
    # per variant: own, own recalled, own with evidence, foreign, foreign silent,
    # no-memory, no-memory silent
    tally = {name: [0] * 7 for name in floors}
    started = time.perf_counter()
    for stem, (turns, _questions) in conversations.items():
        root = work / stem
        home = build_home(root, turns)
        where = locate(root, turns)
        reconciler = wiring.open_app(root, home.clock).reconciler
        reconciler.catch_up()
        reconciler.index.fill_vectors()
        live = reconciler.index
        index, semantic = live.current, live.semantic
        assert index is not None and semantic is not None, "semantic ranking must be on"
        own, foreign = chosen(conversations, stem, where, rng, sample)
        asked = [
            *((0, q.text, set(q.evidence) & set(where)) for q in own),
            *((3, q.text, set[str]()) for q in foreign),
            *((5, p, set[str]()) for p in NO_MEMORY),
        ]
        today = live.clock().date()
        for column, text, wanted in asked:
            q = question(text, limit=RECALL_HITS, today=today)
            hits, gathered = ranking.hybrid_ranked(  # the hits unfloored, and what the ranking knew
                index, semantic.store, semantic.embedder, q, WEIGHTS, False
            )
            found = evidence.signals(index, q, hits, gathered)
            for name, floor in floors.items():
                if floor is None:
                    kept = hits[:RECALL_PASSAGES]
                else:
                    ok = passing(
                        hits,
                        found.judged,
                        gathered.ordinals,
                        found.unknown,
                        found.named,
                        floor,
                        absent=found.absent,
                    )
                    kept = [h for h, passed in zip(hits, ok, strict=True) if passed]
                    kept = kept[:RECALL_PASSAGES]
                row = tally[name]
                row[column] += 1
                if column == 0:
                    spans = [(h.path, h.start_line, h.end_line) for h in kept]
                    row[1] += bool(kept)
                    row[2] += any(covered(spans, where, wanted))
                else:
                    row[column + 1] += not kept
        reconciler.close()
    what = f"a seeded sample of {sample} a conversation" if sample else "all"
    print(f"own questions: {what} (seed {seed}); {time.perf_counter() - started:.0f} s")
    print(
        f"{'floor':<24} {'own recalled':>12} {'own evidence':>12} {'foreign silent':>14} "
        f"{'no-memory silent':>16}"
    )
    for name, row in tally.items():
        print(
            f"{name:<24} {row[1] / row[0]:>12.3f} {row[2] / row[0]:>12.3f} "
            f"{row[4] / row[3]:>14.3f} {row[6] / row[5]:>16.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built homes here")
    parser.add_argument("--questions", type=int, default=0, help="own questions a conversation")
    parser.add_argument("--seed", type=int, default=38)
    args = parser.parse_args()
    use_git_identity(semantic=True)
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        run(args.locomo, args.work, args.questions, args.seed)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-floor-") as tmp:
        run(args.locomo, Path(tmp), args.questions, args.seed)


if __name__ == "__main__":
    main()
