"""LoCoMo-format conversations as hearth homes: the turns and questions of one
conversation, the home its turns build through hearth's own daily append, where
each turn landed, and the tally of what a ranking found (any-hit@k, recall@k);
the questions a conversation is asked as its own and as others', the prompts
no memory answers, and the wait for a served home to settle.

The benchmarks that ask LoCoMo's questions (``recall.py``, ``recall_silence.py``,
``floor_parts.py``, ``hook_answers.py``, ``openclaw_memory.py``) share these;
``recall.py``'s docstring says how a home is built and what a hit covers.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hearth import wiring
from hearth.app.writes.home import HomeWrites

KS = (5, 10)
CATEGORIES = (1, 2, 3, 4)
TURN_STEP = dt.timedelta(seconds=20)
_ENTRY = re.compile(r"^## \d\d:\d\d UTC — ")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    moment: dt.datetime


@dataclass
class Located:
    path: str
    start: int  # 1-based heading line
    end: int  # 1-based last line of the entry


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Tally:
    name: str
    asked: int = 0
    any_hit: dict[int, int] = field(default_factory=lambda: dict.fromkeys(KS, 0))
    recall: dict[int, float] = field(default_factory=lambda: dict.fromkeys(KS, 0.0))
    seconds: list[float] = field(default_factory=list)
    by_category: dict[str, list[int]] = field(default_factory=dict)

    def add(
        self,
        found: Sequence[set[str]],
        evidence: set[str],
        seconds: float,
        labels: Sequence[object],
    ) -> None:
        """``found[i]``: the evidence turns hit ``i`` covers."""
        self.asked += 1
        self.seconds.append(seconds)
        rows = [self.by_category.setdefault(str(label), [0, 0]) for label in labels]
        for row in rows:
            row[1] += 1
        for k in KS:
            covered: set[str] = set().union(*found[:k]) if found[:k] else set()
            covered &= evidence
            if covered:
                self.any_hit[k] += 1
                if k == KS[0]:
                    for row in rows:
                        row[0] += 1
            self.recall[k] += len(covered) / len(evidence)

    def line(self) -> str:
        n = max(self.asked, 1)
        cells = [f"{self.any_hit[k] / n:.3f}" for k in KS]
        cells += [f"{self.recall[k] / n:.3f}" for k in KS]
        ms = sorted(s * 1000 for s in self.seconds) or [0.0]
        p50 = statistics.median(ms)
        p99 = ms[min(len(ms) - 1, round(0.99 * (len(ms) - 1)))]
        cats = " ".join(
            f"{c}={hit / max(total, 1):.2f}" for c, (hit, total) in sorted(self.by_category.items())
        )
        return (
            f"{self.name:<22} " + "  ".join(f"{c:>7}" for c in cells) + f"  {p50:6.2f} {p99:6.2f}"
            f"   {cats}"
        )


def parse_when(text: str) -> dt.datetime:
    """``1:56 pm on 8 May, 2023`` as an aware UTC datetime."""
    return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=dt.UTC)


def load(path: Path) -> tuple[list[Turn], list[Question]]:
    data = json.loads(path.read_text())
    conv = data.get("conversation", data)
    turns: list[Turn] = []
    numbers = sorted(
        int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k]
    )
    for n in numbers:
        start = parse_when(conv[f"session_{n}_date_time"])
        session = conv[f"session_{n}"]
        # Keep a session's turns on its own day, as a person's evening chat would be.
        last = start + TURN_STEP * len(session)
        if last.date() != start.date():
            start -= last - start.replace(hour=23, minute=59, second=0)
        for i, turn in enumerate(session):
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f"\n\n[shared a photo: {turn['blip_caption']}]"
            turns.append(Turn(turn["dia_id"], turn["speaker"], text, start + TURN_STEP * i))
    questions = []
    for qa in data["qa"]:
        if qa.get("category") not in CATEGORIES:
            continue
        evidence = [e.strip() for item in qa["evidence"] for e in re.split(r"[;,]", item)]
        questions.append(Question(qa["question"], qa["category"], [e for e in evidence if e]))
    return turns, questions


def build_home(root: Path, turns: list[Turn]) -> HomeWrites:
    """The conversation written through hearth's own daily append, one commit per turn."""
    clock_now = [turns[0].moment]

    def clock() -> dt.datetime:
        return clock_now[0]

    if (root / ".hearth-bench-done").exists():
        clock_now[0] = turns[-1].moment  # as a home just written: "last week" is the same week
        return wiring.open_writes(root, clock)
    wiring.initialize(root, clock)
    home = wiring.open_writes(root, clock)
    for turn in turns:
        clock_now[0] = turn.moment
        home.note(turn.text, turn.speaker, actor="bench")
    (root / ".hearth-bench-done").write_text("")
    return wiring.open_writes(root, clock)


def locate(root: Path, turns: list[Turn]) -> dict[str, Located]:
    """Each turn's note and line range, read back from the written notes."""
    by_day: dict[str, list[Turn]] = {}
    for turn in turns:
        by_day.setdefault(f"memory/{turn.moment.date().isoformat()}.md", []).append(turn)
    found: dict[str, Located] = {}
    for path, day_turns in by_day.items():
        lines = (root / path).read_text().split("\n")
        starts = [i + 1 for i, line in enumerate(lines) if _ENTRY.match(line)]
        if len(starts) != len(day_turns):
            raise SystemExit(f"{path}: {len(starts)} entries for {len(day_turns)} turns")
        ends = [s - 1 for s in starts[1:]] + [len(lines)]
        for turn, start, end in zip(day_turns, starts, ends, strict=True):
            found[turn.dia_id] = Located(path, start, end)
    return found


def covered(
    hits: Sequence[tuple[str, int, int]], where: dict[str, Located], evidence: set[str]
) -> list[set[str]]:
    out = []
    for path, start, end in hits:
        out.append(
            {
                e
                for e in evidence
                if where[e].path == path and start <= where[e].end and where[e].start <= end
            }
        )
    return out


#: Prompts no memory answers: greetings, coding tasks, arithmetic, translation,
#: gibberish. Fixed; written before the first run.
NO_MEMORY = (
    "hello",
    "hi there, how are you?",
    "thanks, that's all for now",
    "good morning!",
    "explain quicksort",
    "fix the failing test in src/app.py",
    "write a python function that reverses a linked list",
    "why does my rust code say 'borrowed value does not live long enough'?",
    "refactor this function to use a dict comprehension",
    "add type hints to utils.py and run mypy",
    "what is the difference between a process and a thread?",
    "write a SQL query that counts orders per customer",
    "how do I undo the last git commit but keep the changes?",
    "convert this JSON to YAML",
    "set up a GitHub Actions workflow that runs pytest",
    "what does HTTP status 418 mean?",
    "implement binary search in Go",
    "rename the variable tmp to buffer everywhere in parser.c",
    "what is 17 times 23?",
    "compute the square root of 2 to five decimals",
    "solve 3x + 7 = 22",
    "what is 2 to the power of 10?",
    "translate 'where is the train station' into German",
    "how do you say 'thank you very much' in Japanese?",
    "translate this sentence to French: the cat sleeps on the table",
    "asdkjh qwpoeiru",
    "xylophonic",
    "zzkq vlorp mnemtrix",
    "lorem ipsum dolor sit amet",
    "qwerty uiop asdf",
    "summarize the CAP theorem in two sentences",
    "write a regex that matches an IPv4 address",
    "continue",
    "yes, go ahead",
)


def chosen(
    conversations: dict[str, tuple[list[Turn], list[Question]]],
    stem: str,
    where: dict[str, Located],
    rng: random.Random,
    sample: int,
) -> tuple[list[Question], list[Question]]:
    """The own questions of conversation ``stem`` (all, or ``sample`` of them)
    and as many foreign ones, drawn from the other conversations."""
    own = [q for q in conversations[stem][1] if any(e in where for e in q.evidence)]
    if sample:
        own = rng.sample(own, min(sample, len(own)))
    others = [q for other, (_, qs) in conversations.items() if other != stem for q in qs]
    return own, rng.sample(others, len(own))


def ready(root: Path, timeout: float = 300.0) -> None:
    """Wait until the server's status snapshot is current (else the hook would
    open the home itself) and every passage has its vector."""
    from hearth.client import delegate

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        server = delegate.find(root)
        status = delegate.get(server, "/v1/status") if server else None
        if status and (status.get("snapshot") or {}).get("current"):
            vectors = ((status.get("index") or {}).get("vectors")) or {}
            if vectors.get("complete", True):
                return
        time.sleep(0.5)
    raise SystemExit(f"the server of {root} did not settle in {timeout:.0f} s")
