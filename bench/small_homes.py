"""Search in a small lived-in home (issue 48): the labelled set of ``bench/data/small_homes``.

    .venv/bin/python bench/small_homes.py [--work DIR] [--sizes 10,100,1000] [--seed S] [--show]
        [--misses] [--without FLOOR_PART] [--leave-out front-matter|room]

Three homes built like a person's first weeks through hearth's own operations
(notes, topics, entries, proposals merged and rejected, loops, decisions):
``home10.jsonl`` is written by hand; the 100- and 1,000-file homes add to it a
seeded draw from the hand-written ``material.json`` (the draw never holds a
word of the queries labelled absent: checked, the run stops if it does). Each
of ``queries.jsonl``'s labelled queries is asked as a person searches (the
default search, the relevance floor on) and as the prompt hook recalls (the
context bundle's recall, its first ``RECALL_PASSAGES`` outside the session
files). A hit answers when its lines (or its title: a record's is in its
front matter) hold one of the query's answer fragments; ``never`` fragments
(or path prefixes) must be in no hit.

Printed per home: present words found (a labelled answer among the hits),
absent answered with nothing (no hit at all), questions and paraphrases
found, cross-language found, rejected never shown (search and hook), small
talk silent, and the precision of what the hook injects (injected passages
that answer their query over all injected). Semantic ranking must be on.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import floor_parts
from hearth import wiring
from hearth.app.writes.home import HomeWrites
from hearth.domain import sections
from hearth.index import live, room
from hearth.index.floor import content_words
from hearth.runtimes.agent_context import PRIORITY, RECALL_PASSAGES
from homegen import use_git_identity

DATA = Path(__file__).parent / "data" / "small_homes"
FILLER_START = dt.datetime(2025, 9, 1, tzinfo=dt.UTC)


@dataclass
class Tally:
    asked: dict[str, int] = field(default_factory=dict)
    good: dict[str, int] = field(default_factory=dict)
    injected: int = 0
    injected_right: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, kind: str, ok: bool, line: str) -> None:
        self.asked[kind] = self.asked.get(kind, 0) + 1
        self.good[kind] = self.good.get(kind, 0) + ok
        if not ok:
            self.misses.append(f"{kind}: {line}")


def _moment(at: str) -> dt.datetime:
    return dt.datetime.fromisoformat(at).replace(tzinfo=dt.UTC)


def core_ops() -> list[dict[str, Any]]:
    ops = [json.loads(line) for line in (DATA / "home10.jsonl").read_text().splitlines() if line]
    return sorted(ops, key=lambda op: op["at"])


def filler_ops(files: int, rng: random.Random) -> list[dict[str, Any]]:
    """About ``files`` more files drawn from the hand-written material."""
    m = json.loads((DATA / "material.json").read_text())
    ops: list[dict[str, Any]] = []
    days = max(files * 45 // 100, 1)
    topics = max(files * 35 // 100, 1)
    records = max(files - days - topics, 3)
    for day in range(days):
        moment = FILLER_START + dt.timedelta(days=day * 400 // days)
        for n in range(rng.randint(1, 3)):
            text = " ".join(rng.sample(m["sentences"], rng.randint(1, 2)))
            at = (moment + dt.timedelta(hours=8 + 3 * n)).isoformat()
            ops.append(
                {"op": "note", "at": at, "title": rng.choice(m["note_titles"]), "text": text}
            )
    for n in range(topics):
        base = m["topic_titles"][n % len(m["topic_titles"])]
        title = base if n < len(m["topic_titles"]) else f"{base} {n // len(m['topic_titles']) + 1}"
        parts = [
            f"## {rng.choice(m['topic_sections'])}\n\n{' '.join(rng.sample(m['sentences'], 2))}"
            for _ in range(rng.randint(1, 3))
        ]
        at = (FILLER_START + dt.timedelta(hours=7 * n + 1)).isoformat()
        ops.append({"op": "topic", "at": at, "title": title, "content": "\n\n".join(parts)})
    for n in range(records):
        when = FILLER_START + dt.timedelta(hours=5 * n + 2)
        key = f"f{n}"
        which = n % 4
        if which == 0:
            entry = m["memory_entries"][n // 4 % len(m["memory_entries"])]
            if n // 4 >= len(m["memory_entries"]):
                entry = f"{entry} ({n // 4 // len(m['memory_entries']) + 1})"
            ops.append(
                {
                    "op": "propose",
                    "at": when.isoformat(),
                    "id": key,
                    "title": "Memory",
                    "entries": [entry],
                }
            )
            ops.append(
                {"op": "merge", "at": (when + dt.timedelta(minutes=5)).isoformat(), "id": key}
            )
        elif which == 1:
            entry = rng.choice(m["proposal_entries"])
            ops.append(
                {
                    "op": "propose",
                    "at": when.isoformat(),
                    "id": key,
                    "title": "Guess",
                    "entries": [f"{entry} ({n})"],
                }
            )
            ops.append(
                {
                    "op": "reject",
                    "at": (when + dt.timedelta(minutes=5)).isoformat(),
                    "id": key,
                    "reason": "not so",
                }
            )
        elif which == 2:
            ops.append(
                {
                    "op": "loop",
                    "at": when.isoformat(),
                    "id": key,
                    "title": f"{rng.choice(m['loop_titles'])} ({n})",
                    "next": "",
                }
            )
            if rng.random() < 0.5:
                ops.append(
                    {
                        "op": "resolve",
                        "at": (when + dt.timedelta(days=2)).isoformat(),
                        "id": key,
                        "note": "done",
                    }
                )
        else:
            title, text, why = rng.choice(m["decision_texts"])
            ops.append(
                {
                    "op": "decide",
                    "at": when.isoformat(),
                    "id": key,
                    "title": f"{title} {n}",
                    "decision": text,
                    "why": why,
                }
            )
    return ops


def apply(home: HomeWrites, op: dict[str, Any], keys: dict[str, Any], actor: str = "bench") -> None:
    kind = op["op"]
    if kind == "note":
        home.note(op["text"], op["title"], actor)
    elif kind == "topic":
        home.topic(op["title"], actor, content=op["content"])
    elif kind == "memory":
        home.entry_add(op["file"], op["text"], actor)
    elif kind == "propose":
        keys[op["id"]] = home.propose(op["title"], op["entries"], actor).key
    elif kind == "merge":
        home.merge(keys[op["id"]], actor)
    elif kind == "reject":
        home.reject(keys[op["id"]], op["reason"], actor)
    elif kind == "loop":
        keys[op["id"]] = home.add_loop(op["title"], actor, next_step=op["next"]).key
    elif kind == "resolve":
        home.resolve_loop(keys[op["id"]], actor, op["note"])
    elif kind == "decide":
        keys[op["id"]] = home.decide(op["title"], op["decision"], actor, op["why"]).key
    elif kind == "withdraw":
        home.withdraw_decision(keys[op["id"]], op["reason"], actor)
    else:
        raise SystemExit(f"unknown op {kind!r}")


def build(root: Path, size: int, seed: int) -> Callable[[], dt.datetime]:
    ops = core_ops()
    if size > 10:
        ops += filler_ops(size - 20, random.Random(seed))
        ops.sort(key=lambda op: op["at"])
    now = [_moment(ops[-1]["at"]) + dt.timedelta(days=1)]

    def clock() -> dt.datetime:
        return now[0]

    if (root / ".bench-done").exists():
        return clock
    wiring.initialize(root, clock)
    home = wiring.open_writes(root, clock)
    keys: dict[str, str] = {}
    for op in ops:
        now[0] = _moment(op["at"])
        apply(home, op, keys)
    now[0] = _moment(ops[-1]["at"]) + dt.timedelta(days=1)
    (root / ".bench-done").write_text("")
    return clock


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def check_absent(root: Path, queries: list[dict[str, Any]]) -> None:
    """Stop when every word of a query labelled absent is somewhere in the home."""
    held: set[str] = set()
    for path in root.rglob("*.md"):
        if ".git" not in path.parts:
            held |= _words(path.read_text())
    for q in queries:
        words = _words(" ".join(content_words(q["q"].split())))
        if q["type"] == "absent" and words and words <= held:
            raise SystemExit(f"{root.name}: absent query {q['q']!r} has every word in the home")


def section_text(root: Path, path: str, start: int, end: int) -> str:
    lines = (root / path).read_text().split("\n")
    return "\n".join(lines[start - 1 : end])


def answers(text: str, path: str, fragments: list[str]) -> bool:
    return any(f in text or path.startswith(f) for f in fragments)


def run_home(
    root: Path, clock: Callable[[], dt.datetime], queries: list[dict[str, Any]], show: bool
) -> Tally:
    app = wiring.open_app(root, clock)
    app.reconciler.catch_up()
    app.reconciler.index.fill_vectors()
    assert app.reconciler.index.semantic is not None, "semantic ranking must be on"
    tally = Tally()
    for q in queries:
        found = app.search(q["q"]).hits
        shown = [
            (h.path, f"{h.title}\n{section_text(root, h.path, h.start_line, h.end_line)}")
            for h in found
        ]
        bundle = app.context("main", q["q"])
        injected = [p for p in bundle.recall if p.path not in PRIORITY][:RECALL_PASSAGES]
        kind = q["type"]
        right = [answers(p.text, p.path, q["answers"]) for p in injected]
        tally.injected += len(injected)
        tally.injected_right += sum(right)
        hit_answer = any(answers(t, p, q["answers"]) for p, t in shown)
        line = f"{q['q']!r} -> {[p for p, _ in shown][:4]} ({len(shown)} hits)"
        if kind in ("present", "question", "paraphrase", "cross"):
            tally.add(kind, hit_answer, line)
        elif kind in ("absent", "smalltalk"):
            tally.add(kind, not shown and not injected, line)
        if q["never"]:
            bad = [p for p, t in shown if answers(t, p, q["never"])]
            bad += [p.path for p in injected if answers(p.text, p.path, q["never"])]
            tally.add("rejected never shown", not bad, line)
        if show:
            print(f"  {kind:<10} {line}")
    app.reconciler.close()
    return tally


NAMES = {
    "present": "present words found",
    "absent": "absent answered with nothing",
    "question": "questions found",
    "paraphrase": "paraphrases found",
    "cross": "cross-language found",
    "rejected never shown": "rejected never shown",
    "smalltalk": "small talk silent",
}


def report(name: str, tally: Tally) -> None:
    print(f"{name}:")
    for kind, label in NAMES.items():
        asked = tally.asked.get(kind, 0)
        if asked:
            print(f"  {label:<32} {tally.good[kind] / asked:6.3f}  ({tally.good[kind]}/{asked})")
    if tally.injected:
        share = tally.injected_right / tally.injected
        print(f"  {'hook precision':<32} {share:6.3f}  ({tally.injected_right}/{tally.injected})")


def _no_room(*_args: object, **_kwargs: object) -> int:
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built homes here")
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--seed", type=int, default=48)
    parser.add_argument("--show", action="store_true", help="print every query's hits")
    parser.add_argument("--misses", action="store_true", help="print the queries that failed")
    parser.add_argument(
        "--without",
        choices=sorted(floor_parts.variants()),
        help="search with the floor without this part (floor_parts.py's variants)",
    )
    parser.add_argument(
        "--leave-out",
        choices=("front-matter", "room"),
        help="without this part of the ranking's input: records' front-matter "
        "sections (homes built afresh: not with a --work built with them), or room "
        "for text on a page of bare title lines (index/room.py)",
    )
    args = parser.parse_args()
    if args.leave_out == "front-matter":
        sections.READ_FIELDS = ()
    elif args.leave_out == "room":
        room.crowded = _no_room
    if args.without:
        live.FLOOR = floor_parts.variants()[args.without]  # type: ignore[attr-defined, assignment]  # what every search is judged by
    use_git_identity(semantic=True)
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines()]
    with tempfile.TemporaryDirectory(prefix="hearth-small-") as tmp:
        work = args.work or Path(tmp)
        total = Tally()
        for size in (int(s) for s in args.sizes.split(",")):
            root = work / f"home{size}"
            root.parent.mkdir(parents=True, exist_ok=True)
            clock = build(root, size, args.seed)
            check_absent(root, queries)
            files = sum(1 for p in root.rglob("*.md") if ".git" not in p.parts)
            tally = run_home(root, clock, queries, args.show)
            report(f"home{size} ({files} markdown files)", tally)
            if args.misses:
                for line in tally.misses:
                    print(f"    miss {line}")
            for kind in tally.asked:
                total.asked[kind] = total.asked.get(kind, 0) + tally.asked[kind]
                total.good[kind] = total.good.get(kind, 0) + tally.good[kind]
            total.injected += tally.injected
            total.injected_right += tally.injected_right
        report("all homes", total)


if __name__ == "__main__":
    main()
