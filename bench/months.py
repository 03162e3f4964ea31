"""A home lived in for months: coverage, sizes, losses and repeats (issue 53).

    .venv/bin/python bench/months.py LOCOMO_DIR [--conversations N]
        [--budget 5000,10000,20000] [--person page,merge-all,naive]
        [--keyword | --semantic] [--json FILE] [--work DIR] [--lost]
    .venv/bin/python bench/months.py --report FILE [--lost]   (the table of an earlier --json)
    .venv/bin/python bench/months.py --split PATH ...   (the same, another split)

Each conversation of the split (``N.json``, LoCoMo's format; the data stays
outside the repository) is lived as a home, session after session in date
order, with hearth's clock set to each session's time (``bench/months_replay.py``):
the turns are the agent's daily notes, each observation is the agent's
proposal of one entry for the speaker's note ``users/<speaker>.md``, hearth's
scheduled jobs run when they fall due, and a person reviews after each
session. Three people (``--person``):

- ``page``: presses the review page's default button on every card, hearth's
  own proposals included (``bench/months_person.py``); what hearth does today;
- ``merge-all``: merges every proposal once, as the issue's replay on 2d32b4d did;
- ``naive``: the baseline: no review, every observation appended to MEMORY.md
  by the agent itself, which the session bundle then cuts as it cuts any file.

Then every question of categories 1 to 4 is asked as a runtime asks it: the
prompt hook's recall (``Hearth.context`` for the question, as the hook route
asks it, and ``agent_context.recall_text``, the hook's own text, with the
budget as its limit: the lines of each hit above the floor that answer the
question, and of the note of a person it names, while the budget has room),
then the session-start bundle (``Hearth.context("main")`` within the home's
``[context]`` bounds). At each budget the recall comes first and the hot
files follow in the bundle's order, with each
speaker's note where the bundle puts a person's note (AGENTS, SOUL, TOOLS,
IDENTITY, USER, ``users/<a>.md``, ``users/<b>.md``, MEMORY, ACTIVE), the whole
cut at the budget: the order of the issue's measurement (``coverage``).
``runtime coverage`` is the same recall followed by the session text a
runtime's session-start hook gets (``agent_context.session_text`` of the
bundle without a person's note, as the hook asks it: each file its share,
head and tail kept) in what the budget leaves; ``notes first covered`` puts
the speakers' notes before the other hot files (to compare with the issue's
measurement, whose order is not recorded). A
question is covered when that text holds its evidence (``bench/months_measure.py``).

Printed per person: coverage and characters handed over at each budget; every
bounded file's largest size against its bound and the steps it was over;
observations kept word for word and lost (left pending at a bound, or
rejected; and how many of those review judged known); exact and near
duplicates and contradicting pairs in the bounded files (USER.md, MEMORY.md,
``users/*.md``); the person's decisions per session; the replay's time.
``--json`` writes all of it. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hearth.domain.consolidation import loses_words
from hearth.domain.known_folds import says_all
from hearth.index.likeness import EntryLikeness
from months_measure import (
    Evidence,
    close_pairs,
    derived_entries,
    folded,
    memory_entries,
    repeats,
)
from months_replay import (
    PERSONS,
    Conversation,
    Lived,
    Replay,
    load_conversation,
    pending_keys,
    settle,
)

BUDGETS = (5_000, 10_000, 20_000)
RUNTIME = "claude-code"


def hot_in_order(bundle: dict[str, Any], room: int) -> str:
    """The bundle's files in its order, each under its path, cut at ``room``."""
    parts = [
        f"\n===== {f['path']} =====\n{f['content']}\n"
        for f in bundle["files"]
        if not f.get("missing") and f.get("content")
    ]
    return "".join(parts)[: max(room, 0)]


def people_bundle(replay: Replay, speakers: list[str]) -> dict[str, Any]:
    """The session-start bundle with each speaker's note where the bundle puts a
    person's note (right after USER.md, ``Hearth.context(user=...)``), in turn."""
    from months_replay import person_note

    files: list[dict[str, Any]] = []
    for speaker in speakers:
        person = person_note(speaker).removeprefix("users/").removesuffix(".md")
        bundle = replay.service.context("main", user=person)
        found = [dict(f.__dict__) for f in bundle.files]
        if not files:
            files = list(found)
        else:
            people = [i for i, f in enumerate(files) if f["path"] == "USER.md" or _note(f)]
            at = max(people) + 1
            files[at:at] = [f for f in found if _note(f)]
    return {"files": files}


def _note(file: dict[str, Any]) -> bool:
    return str(file["path"]).startswith("users/")


def memory_texts(root: Path) -> dict[str, str]:
    """The bounded memory files and the topic notes, as the work tree holds them."""
    paths = [root / "USER.md", root / "MEMORY.md", *sorted((root / "users").glob("*.md"))]
    paths += sorted((root / "memory" / "topics").glob("**/*.md"))
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in paths}


def ask(replay: Replay, conv: Conversation, budgets: list[int]) -> dict[str, Any]:
    from hearth.runtimes import agent_context as ac

    try:
        from hearth.runtimes.hook_answer import MIN_PROMPT
    except ImportError:  # a checkout before issue 52 (2d32b4d) kept it in cli/agents.py
        MIN_PROMPT = 3
    from hearth.runtimes.known import RUNTIMES

    lived = replay.lived
    evidence = Evidence()
    for session in conv.sessions:
        for turn in session.turns:
            evidence.add_turn(turn.dia_id, turn.text)
    facts = list(lived.facts.values())
    for fact in facts:
        for dia_id in fact.dia_ids:
            evidence.add_entry(dia_id, fact.text)
    texts = memory_texts(lived.root)
    held = [e for found in memory_entries(texts).values() for e in found]
    # A proposal left pending stands in for no entry: its observation is simply not kept.
    pending = pending_keys(replay) if lived.person != "naive" else set()
    settled = [(f.text, f.dia_ids) for k, f in lived.facts.items() if k not in pending]
    credited = derived_entries(settled, held, evidence)

    main = replay.service.context("main").as_dict()
    with_notes = people_bundle(replay, sorted({f.speaker for s in conv.sessions for f in s.facts}))
    spec = RUNTIMES[RUNTIME]
    notes_first = {"files": sorted(with_notes["files"], key=lambda f: not _note(f))}
    covered = dict.fromkeys(budgets, 0)
    runtime_covered = dict.fromkeys(budgets, 0)
    first_covered = dict.fromkeys(budgets, 0)
    chars: dict[int, list[int]] = {b: [] for b in budgets}
    asked = 0
    for q in conv.questions:
        asked += 1  # a question without an evidence turn is asked, and never covered
        query = ac.prompt_of(spec, {"prompt": q.text})
        found = replay.service.context("subagent", query).as_dict()
        if len(query) < MIN_PROMPT:
            found = {}
        for budget in budgets:
            recall = ac.recall_text(found, budget)
            room = budget - len(recall)
            hot = hot_in_order(with_notes, room)
            whole = ac.session_text(main, room, str(lived.root))[: max(room, 0)]
            covered[budget] += evidence.holds(recall + hot, q.evidence)
            runtime_covered[budget] += evidence.holds(recall + whole, q.evidence)
            first = hot_in_order(notes_first, room)
            first_covered[budget] += evidence.holds(recall + first, q.evidence)
            chars[budget].append(len(recall) + len(hot))
    return {
        "asked": asked,
        "covered": covered,
        "runtime_covered": runtime_covered,
        "notes_first_covered": first_covered,
        "chars": chars,
        "derived_entries": credited,
    }


def fates(replay: Replay, lost: list[dict[str, Any]] | None = None) -> Counter[str]:
    """What became of each observation: ``kept`` word for word in a memory file or
    topic note (``kept folded``: every token of it in one entry, as a fold
    writes it), or ``lost``: ``left pending`` (refused at a bound and never
    merged) or ``rejected`` (by the person, and its text is nowhere); of the
    lost, ``restated`` are those a kept entry says every content word of, and
    ``judged known`` those nearly the same as an entry kept (review's measure,
    words only): a paraphrase, or a new fact review took for a known one.
    ``lost``: filled with each lost observation, its fate and the kept entries
    nearly the same as it (``--lost`` prints them)."""
    lived = replay.lived
    texts = memory_texts(lived.root)
    held = sorted({folded(e) for found in memory_entries(texts).values() for e in found})
    everything = folded("\n".join(texts.values()))
    pending = pending_keys(replay) if lived.person != "naive" else set()
    out: Counter[str] = Counter()
    gone: list[str] = []
    for key, fact in lived.facts.items():
        text = folded(fact.text)
        if text in everything:
            out["kept"] += 1
            continue
        if any(not loses_words(h, [text]) for h in held):
            out["kept"] += 1  # every token of it in one entry: a fold's (also: ...)
            out["kept folded"] += 1
            continue
        out["lost"] += 1
        out["left pending" if key in pending else "rejected"] += 1
        gone.append(text)
        if lost is not None:
            fate = "left pending" if key in pending else "rejected"
            lost.append({"text": text, "speaker": fact.speaker, "fate": fate, "near": []})
    pairs = close_pairs(gone, held)
    out["judged known"] += len({i for i, _j, _s in pairs})
    # Of the lost, those a kept entry says every content word of (review's restatement).
    terms_of = EntryLikeness().terms
    kept = [terms_of(h) for h in held]
    out["restated"] += sum(1 for t in gone if any(says_all(k, terms_of(t)) for k in kept))
    for i, j, score in sorted(pairs, key=lambda p: -p[2]):
        if lost is not None:
            lost[i]["near"].append([held[j], round(score, 3)])
    return out


def live(conv: Conversation, work: Path, person: str, budgets: list[int]) -> dict[str, Any]:
    started = time.perf_counter()
    root = work / f"{conv.name}-{person}"
    replay = Replay(root, person, conv.sessions[0].turns[0].moment)
    try:
        for session in conv.sessions:
            replay.session(session)
        replayed = time.perf_counter() - started
        settle(replay)
        asked = ask(replay, conv, budgets)
        lost: list[dict[str, Any]] = []
        fate = fates(replay, lost)
        files = {
            path: entries
            for path, entries in memory_entries(memory_texts(root)).items()
            if not path.startswith("memory/")
        }
        found = repeats(files)
    finally:
        replay.close()
    lived: Lived = replay.lived
    return {
        "conversation": conv.name,
        "person": person,
        "sessions": len(conv.sessions),
        "observations": len(lived.facts),
        **asked,
        "fates": dict(fate),
        "lost": lost,
        "sizes": {p: asdict(s) for p, s in lived.sizes.items()},
        "exact_duplicates": found.exact,
        "near_duplicates": found.near,
        "contradicting": [list(p) for p in found.contradicting],
        "decisions": [
            {
                "pressed": dict(d.pressed),
                "refused": dict(d.refused),
                "left": d.left_pending,
                "pages": d.pages_read,
            }
            for d in lived.decisions
        ],
        "merges": dict(lived.merges),
        "jobs": dict(lived.jobs),
        "replay_seconds": round(replayed, 1),
        "seconds": round(time.perf_counter() - started, 1),
    }


def table(rows: list[dict[str, Any]], budgets: list[int]) -> None:
    for person in dict.fromkeys(r["person"] for r in rows):
        mine = [r for r in rows if r["person"] == person]
        asked = sum(r["asked"] for r in mine)
        print(f"\n== {person}: {len(mine)} conversations, {asked} questions")
        for name in ("covered", "runtime_covered", "notes_first_covered"):
            if not all(name in r for r in mine):
                continue
            cells = "  ".join(
                f"{b:>6}: {sum(r[name][b] for r in mine) / max(asked, 1):.3f}" for b in budgets
            )
            print(f"  {name.replace('_', ' '):<16} {cells}")
        cells = "  ".join(
            f"{b:>6}: {statistics.mean(c for r in mine for c in r['chars'][b]):7.0f}"
            for b in budgets
        )
        print(f"  {'chars/question':<16} {cells}")
        over = sum(s["over"] for r in mine for s in r["sizes"].values())
        steps = sum(s["steps"] for r in mine for s in r["sizes"].values())
        print(f"  bounded files: {over} of {steps} file-steps over their bound")
        for r in mine:
            sizes = ", ".join(
                f"{p} {s['largest']}/{s['bound']}" + (f" (over {s['over']})" if s["over"] else "")
                for p, s in r["sizes"].items()
                if s["largest"] > 1000
            )
            print(f"    {r['conversation']}: {sizes}")
        fate: Counter[str] = Counter()
        for r in mine:
            fate.update(r["fates"])
        print(f"  observations: {sum(r['observations'] for r in mine)}; " + _counts(fate))
        print(
            f"  in bounded files: exact duplicates {sum(r['exact_duplicates'] for r in mine)}, "
            f"near-duplicate pairs {sum(r['near_duplicates'] for r in mine)}, "
            f"contradicting pairs {sum(len(r['contradicting']) for r in mine)}"
        )
        sessions = [d for r in mine for d in r["decisions"]]
        if sessions:
            pressed: Counter[str] = Counter()
            refused: Counter[str] = Counter()
            for d in sessions:
                pressed.update(d["pressed"])
                refused.update(d["refused"])
            per = [sum(d["pressed"].values()) for d in sessions]
            print(
                f"  decisions per session: mean {statistics.mean(per):.1f}, max {max(per)}; "
                f"{_counts(pressed)}"
                + (f"; refused {_counts(refused)}" if refused else "")
                + f"; cards left at the end {sum(r['decisions'][-1]['left'] for r in mine)}"
            )
        merges: Counter[str] = Counter()
        for r in mine:
            merges.update(r["merges"])
        if merges:
            print(f"  merges: {_counts(merges)}")
        seconds = sum(r["seconds"] for r in mine)
        print(f"  time: {seconds:.0f} s ({sum(r['replay_seconds'] for r in mine):.0f} s replay)")


def lost_table(rows: list[dict[str, Any]]) -> None:
    """Each observation kept nowhere, and the kept entries nearly the same as it."""
    for r in rows:
        for item in r.get("lost", ()):
            print(f"\n{r['conversation']} {r['person']} ({item['fate']}): {item['text']}")
            for text, score in item["near"]:
                print(f"    {score:.3f} {text}")


def _counts(counter: Counter[str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("locomo", type=Path, nargs="?", help="folder of LoCoMo-format N.json")
    parser.add_argument("--split", type=Path, help="the folder of another split (same format)")
    parser.add_argument("--conversations", type=int, default=0, help="the first N only")
    parser.add_argument("--budget", default=",".join(str(b) for b in BUDGETS))
    parser.add_argument("--person", default=",".join(PERSONS))
    ranking = parser.add_mutually_exclusive_group()
    ranking.add_argument("--keyword", action="store_true", help="keyword ranking (default)")
    ranking.add_argument("--semantic", action="store_true", help="hybrid ranking, every vector")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--work", type=Path, help="build the homes here (kept)")
    parser.add_argument("--report", type=Path, help="print the table of an earlier --json")
    parser.add_argument("--lost", action="store_true", help="also list each observation lost")
    args = parser.parse_args()
    if args.report is not None:
        rows = json.loads(args.report.read_text())
        for r in rows:
            for name in ("covered", "runtime_covered", "notes_first_covered", "chars"):
                if name in r:
                    r[name] = {int(b): v for b, v in r[name].items()}
        table(rows, sorted(rows[0]["covered"]))
        if args.lost:
            lost_table(rows)
        return
    split = args.split or args.locomo
    if split is None:
        parser.error("name the split: LOCOMO_DIR or --split PATH")
    budgets = [int(b) for b in args.budget.split(",")]
    persons = [p for p in args.person.split(",") if p]
    if unknown := [p for p in persons if p not in PERSONS]:
        parser.error(f"--person: {', '.join(unknown)} (choose from {', '.join(PERSONS)})")
    from homegen import use_git_identity

    use_git_identity(semantic=args.semantic)
    if not args.semantic:
        os.environ["HEARTH_SEMANTIC"] = "off"
    os.environ["HEARTH_SERVER"] = "off"
    paths = sorted(split.glob("*.json"))
    if args.conversations:
        paths = paths[: args.conversations]
    if not paths:
        parser.error(f"{split} holds no N.json")
    started = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hearth-months-") as tmp:
        work = args.work or Path(tmp)
        for path in paths:
            conv = load_conversation(path)
            for person in persons:
                rows.append(live(conv, work, person, budgets))
                if args.json is not None:  # as it goes: a long run keeps what it measured
                    args.json.write_text(json.dumps(rows, indent=1, default=str))
                r = rows[-1]
                print(
                    f"{conv.name} {person}: {r['asked']} questions, "
                    f"covered at {budgets[-1]}: {r['covered'][budgets[-1]]}, {r['seconds']} s",
                    file=sys.stderr,
                )
    print(f"split {split}; ranking {'hybrid' if args.semantic else 'keyword'}")
    table(rows, budgets)
    if args.lost:
        lost_table(rows)
    print(f"\nwhole run: {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1, default=str))


if __name__ == "__main__":
    main()
