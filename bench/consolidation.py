"""Merges refused and left at a bound, with and without following hearth's
consolidation proposals, replaying LoCoMo's observations into person notes.

    HEARTH_SEMANTIC=off .venv/bin/python bench/consolidation.py ../shared/locomo-dev
        [--no-follow] [--limit N] [--only STEM] [--verbose]

Each conversation is a home of its own; in date order (the clock set to each
session's date), every observation of a speaker is proposed by the agent for
``users/<speaker>.md`` and the person merges it. With following (the default)
the person also approves every consolidation hearth proposes whose default
action (as the review page and ``GET /v1/proposals`` give it) is ``merge``,
rejects the ones whose default is ``reject``, and merges again each proposal
refused earlier. ``--no-follow`` is main's person: merges, nothing else.

Prints, per conversation and in total: merges, merges refused at least once,
refused and left pending at the end, consolidations approved (moves, folds),
the largest hot file against its bound, and whether every observation's text
is in the home at the end (``lost``: observations found in no file and in no
pending proposal; a fold keeps every word, so a folded entry counts as found
when it holds all of the observation's words). Timings: the mean and p50 of
one merge with what follows it (noisy on a loaded machine).
Figures only: nothing is asserted (tests check behaviour).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.domain import consolidation, records
from hearth.domain.entries import list_entries
from hearth.domain.validation import bound_of
from hearth.errors import HearthError, ValidationFailed

ACTOR = "person"


@dataclass
class Tally:
    merges: int = 0
    refused: set[str] = field(default_factory=set)
    left: int = 0
    moves: int = 0
    folds: int = 0
    rejected: int = 0
    worst: float = 0.0
    worst_file: str = ""
    lost: int = 0
    seconds: list[float] = field(default_factory=list)
    verbose: bool = False


class Clock:
    def __init__(self) -> None:
        self.now = dt.datetime(2023, 1, 1, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(seconds=1)
        return self.now


def session_date(text: str) -> dt.datetime:
    moment = dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    return moment.replace(tzinfo=dt.UTC)


def follow(app: Hearth, tally: Tally, waiting: list[str]) -> None:
    """The person takes the default action on hearth's consolidations, then
    merges again what was refused."""
    for _round in range(6):
        views = app.records("proposal")
        board = app.review_board(views)
        acted = False
        for view in views:
            record = view.record
            if not isinstance(record, records.Proposal) or not record.consolidate:
                continue
            review = board.proposals.get(view.key)
            action = review.default_action if review else "merge"
            if action == "merge":
                app.merge(view.key, ACTOR)
                if tally.verbose:
                    print(f"  approved: {record.title} ({len(record.entries)})")
                    if record.consolidate == consolidation.FOLD:
                        print(f"    into: {record.leaves}")
                if record.consolidate == consolidation.MOVE:
                    tally.moves += 1
                else:
                    tally.folds += 1
            else:
                app.reject(view.key, "stale", ACTOR)
                tally.rejected += 1
            acted = True
        for key in list(waiting):
            try:
                app.merge(key, ACTOR)
            except ValidationFailed:
                continue
            waiting.remove(key)
            acted = True
        if not acted:
            return


def replay(
    path: Path, work: Path, follow_hearth: bool, limit: int | None, verbose: bool = False
) -> Tally:
    data = json.loads(path.read_text())
    clock = Clock()
    root = work / path.stem
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    tally = Tally(verbose=verbose)
    waiting: list[str] = []
    observed: list[str] = []
    sessions = sorted(
        (int(m[1]), key) for key in data if (m := re.fullmatch(r"session_(\d+)_observation", key))
    )
    for number, key in sessions[:limit]:
        clock.now = session_date(data[f"session_{number}_date_time"])
        for speaker, items in data[key].items():
            target = f"users/{speaker.lower()}.md"
            for text, dia in items:
                observed.append(" ".join(text.split()))
                made = app.propose(f"{speaker} {dia} {len(observed)}", [text], "agent", target)
                assert made.key is not None
                started = time.perf_counter()
                tally.merges += 1
                try:
                    app.merge(made.key, ACTOR)
                except ValidationFailed:
                    tally.refused.add(made.key)
                    waiting.append(made.key)
                if follow_hearth:
                    follow(app, tally, waiting)
                tally.seconds.append(time.perf_counter() - started)
                size(app, root, tally)
    tally.left = len(waiting)
    tally.lost = lost(app, root, observed)
    app.writes.files.close()
    return tally


def size(app: Hearth, root: Path, tally: Tally) -> None:
    for note in (root / "users").glob("*.md"):
        path = f"users/{note.name}"
        bound = bound_of(path, app.writes.settings.bounds) or 1
        share = len(note.read_text()) / bound
        if share > tally.worst:
            tally.worst, tally.worst_file = share, path


def lost(app: Hearth, root: Path, observed: list[str]) -> int:
    held: list[str] = []
    for note in [*root.glob("users/*.md"), *root.glob("memory/topics/*.md")]:
        held += [e.text for e in list_entries(note.read_text())]
    for view in app.records("proposal"):
        if isinstance(view.record, records.Proposal):
            held += list(view.record.entries)
    exact = set(held)
    word_sets = [set(consolidation.words(h)) for h in held]
    missing = 0
    for text in observed:
        if text in exact:
            continue
        wanted = set(consolidation.words(text))
        if not any(wanted <= found for found in word_sets):
            missing += 1
    return missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("locomo", type=Path)
    parser.add_argument("--no-follow", action="store_true")
    parser.add_argument("--limit", type=int, default=None, help="sessions per conversation")
    parser.add_argument("--only", default=None, help="one conversation (its file's stem)")
    parser.add_argument("--verbose", action="store_true", help="print each approved proposal")
    args = parser.parse_args()
    total = Tally()
    print("conv  merges refused left moves folds stale worst(file)            lost  p50ms")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(args.locomo.glob(f"{args.only or '*'}.json")):
            try:
                tally = replay(path, Path(tmp), not args.no_follow, args.limit, args.verbose)
            except HearthError as exc:
                print(f"{path.stem}: {exc.message}")
                continue
            p50 = statistics.median(tally.seconds) * 1000 if tally.seconds else 0.0
            print(
                f"{path.stem:5} {tally.merges:6} {len(tally.refused):7} {tally.left:4} "
                f"{tally.moves:5} {tally.folds:5} {tally.rejected:5} "
                f"{tally.worst:.3f} ({tally.worst_file:18}) {tally.lost:4} {p50:6.1f}"
            )
            total.merges += tally.merges
            total.refused |= tally.refused
            total.left += tally.left
            total.moves += tally.moves
            total.folds += tally.folds
            total.rejected += tally.rejected
            total.lost += tally.lost
            total.seconds += tally.seconds
            if tally.worst > total.worst:
                total.worst, total.worst_file = tally.worst, f"{path.stem}:{tally.worst_file}"
    p50 = statistics.median(total.seconds) * 1000 if total.seconds else 0.0
    mean = statistics.mean(total.seconds) * 1000 if total.seconds else 0.0
    print(
        f"total {total.merges:6} {len(total.refused):7} {total.left:4} {total.moves:5} "
        f"{total.folds:5} {total.rejected:5} {total.worst:.3f} ({total.worst_file}) "
        f"{total.lost:4} p50 {p50:.1f} ms, mean {mean:.1f} ms per merge and what follows"
    )


if __name__ == "__main__":
    main()
