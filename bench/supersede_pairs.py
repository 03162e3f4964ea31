"""Facts that know when they were replaced (issue 53): what the rules pair.

    .venv/bin/python bench/supersede_pairs.py ../shared/locomo-dev [--show]

No git and no model: the rules are pure (``domain/facts.py``), and a merge's
text is computed by the same functions a merge commits (``restatements`` and
``merged_text`` of ``app/writes``). Two measures:

1. **A replayed LoCoMo home.** For each conversation, in session order, each
   speaker's observations of the session form one proposal to
   ``users/<speaker>.md``, merged as the scripted person of the months bench
   merges it: each entry that restates a held entry with a new value replaces
   it. Counted: observations, pairs found (each one a replacement the merge
   makes), and pairs left in the notes at the end (two entries that restate
   each other: both came in one session, so neither is newer, and the merge
   does not choose). ``--show`` prints every pair, to be judged by eye.
2. **Changes found.** ``bench/data/fact_changes.jsonl``: pairs written by
   hand (English, German, French, Russian, Japanese), labelled ``changed`` (one
   fact, a new value: should pair, the misses included on purpose: a change
   told in other words, a lower-case value) or ``other_fact`` (two facts of
   one shape: must not pair).
3. **False pairings.** Labelled pairs that are never one fact with a new
   value (``bench/data/near_duplicates.jsonl`` and ``restatements.jsonl``:
   paraphrases, same-topic facts, unrelated facts), both ways round; and every
   ordered pair of entry-like texts of the small-home material
   (``bench/data/small_homes``: memory and proposal entries, sentences,
   decisions, ``home10.jsonl``'s entries), each of which states its own fact.

Figures only: nothing is asserted (tests check behaviour).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from hearth.app.writes.record_files import merged_text
from hearth.app.writes.supersede import restatements
from hearth.app.writes.writer import new_target_text
from hearth.domain import entries, records
from hearth.domain.facts import restated_in, restates

DATA = Path(__file__).resolve().parent / "data"


def _sessions(conversation: dict[str, object]) -> list[int]:
    found = []
    for name in conversation:
        if name.startswith("session_") and name.endswith("_observation"):
            found.append(int(name.split("_")[1]))
    return sorted(found)


def replay(folder: Path, show: bool) -> dict[str, int]:
    """Every conversation of ``folder`` replayed as person notes (see the module's text)."""
    totals = {"observations": 0, "found": 0, "left": 0, "entries": 0}
    for path in sorted(folder.glob("*.json")):
        conversation = json.loads(path.read_text())
        notes: dict[str, str] = {}
        for number in _sessions(conversation):
            observed = conversation[f"session_{number}_observation"]
            assert isinstance(observed, dict)
            for speaker, facts in observed.items():
                texts = [records.clean_entry(str(f[0])) for f in facts if str(f[0]).strip()]
                if not texts:
                    continue
                totals["observations"] += len(texts)
                target = f"users/{speaker.lower()}.md"
                text = notes.get(target) or new_target_text(target)
                proposal = records.Proposal(
                    f"Session {number}", tuple(dict.fromkeys(texts)), "", "", target=target
                )
                found = restatements(text, proposal, (), {})
                for pair in found:
                    totals["found"] += 1
                    if show:
                        print(f"{path.stem} s{number} {target}: {pair.old!r} -> {pair.new!r}")
                notes[target], _added, _note = merged_text(
                    text, proposal, (), {r.new: r.old for r in found}
                )
        for target, text in notes.items():
            held = [e.text for e in entries.list_entries(text)]
            totals["entries"] += len(held)
            for a, b in itertools.combinations(held, 2):
                if restates(b, a, held) is not None:
                    totals["left"] += 1
                    if show:
                        print(f"{path.stem} left in {target}: {a!r} / {b!r}")
    return totals


def _labelled(show: bool) -> tuple[int, int]:
    pairs = paired = 0
    for name in ("near_duplicates.jsonl", "restatements.jsonl"):
        for line in (DATA / name).read_text().splitlines():
            row = json.loads(line)
            for a, b in ((row["a"], row["b"]), (row["b"], row["a"])):
                pairs += 1
                if restates(a, b) is not None:
                    paired += 1
                    if show:
                        print(f"false pair ({name}, {row['label']}): {a!r} / {b!r}")
    return pairs, paired


def _changes(show: bool) -> dict[str, int]:
    found = {"changed": 0, "changed_paired": 0, "other_fact": 0, "other_fact_paired": 0}
    for line in (DATA / "fact_changes.jsonl").read_text().splitlines():
        row = json.loads(line)
        paired = restates(row["new"], row["old"], row.get("held", [row["old"]])) is not None
        found[row["label"]] += 1
        found[f"{row['label']}_paired"] += paired
        if show and paired != (row["label"] == "changed"):
            print(
                f"{'missed' if not paired else 'wrongly paired'}: {row['old']!r} -> {row['new']!r}"
            )
    return found


def _material() -> list[str]:
    folder = DATA / "small_homes"
    material = json.loads((folder / "material.json").read_text())
    texts = [*material["memory_entries"], *material["proposal_entries"], *material["sentences"]]
    texts += [d[1] for d in material["decision_texts"]]
    for line in (folder / "home10.jsonl").read_text().splitlines():
        op = json.loads(line)
        texts += [op["text"]] if op["op"] == "memory" else op.get("entries", [])
        if op["op"] == "decide":
            texts.append(op["decision"])
    return list(dict.fromkeys(" ".join(t.split()) for t in texts))


def cost(folder: Path) -> tuple[int, int, float]:
    """What the review board pays: each of up to 1,000 observations against the
    first 250 held (two rounds, the second with the words kept per text, as a
    served home keeps them); microseconds a pair in the second round."""
    texts: list[str] = []
    for path in sorted(folder.glob("*.json")):
        conversation = json.loads(path.read_text())
        for number in _sessions(conversation):
            observed = conversation[f"session_{number}_observation"]
            assert isinstance(observed, dict)
            texts += [" ".join(str(f[0]).split()) for found in observed.values() for f in found]
    held = [(t, n) for n, t in enumerate(texts[:250], 1)]
    asked = texts[250:1250]
    elapsed = 0.0
    for _round in range(2):
        start = time.perf_counter()
        for text in asked:
            restated_in(text, held)
        elapsed = time.perf_counter() - start
    return len(asked), len(held), elapsed / max(1, len(asked) * len(held)) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path, help="the LoCoMo folder (../shared/locomo-dev)")
    parser.add_argument("--show", action="store_true", help="print every pair")
    args = parser.parse_args()
    totals = replay(args.locomo, args.show)
    print(
        f"LoCoMo replay: {totals['observations']} observations; "
        f"{totals['found']} pairs found and replaced on merge; "
        f"{totals['left']} pairs left among {totals['entries']} entries at the end"
    )
    changes = _changes(args.show)
    print(
        f"fact changes: {changes['changed_paired']} of {changes['changed']} changed facts "
        f"paired; {changes['other_fact_paired']} of {changes['other_fact']} pairs of two "
        "facts paired wrongly"
    )
    asked, held, micros = cost(args.locomo)
    print(f"cost: {asked} entries against {held} held, {micros:.2f} us a pair")
    pairs, paired = _labelled(args.show)
    print(f"labelled pairs (never one fact with a new value): {paired} of {pairs} paired")
    texts = _material()
    wrong = 0
    for a, b in itertools.permutations(texts, 2):
        if restates(a, b) is not None:
            wrong += 1
            if args.show:
                print(f"small-home pair: {a!r} / {b!r}")
    print(f"small-home material: {wrong} of {len(texts) * (len(texts) - 1)} ordered pairs paired")


if __name__ == "__main__":
    main()
