"""One conversation of a LoCoMo-format split lived as a home, session by session.

The served home is built with a clock the replay sets (``domain/clock.py``'s
seam) and asked through hearth's own application (``bench/in_process.py``):

- before each session, the scheduled jobs that fell due since the last one run
  at their times (``in_process.jobs_due``);
- each turn is a daily note, as ``bench/recall.py`` writes them (hearth's daily
  append, ``HomeWrites.note``, title the speaker, the clock at the turn's time;
  ``POST /v1/daily`` would index each one before answering, five times slower);
- each observation of the session is the agent's proposal of one entry for
  the speaker's note ``users/<speaker>.md`` (``POST /v1/proposals``, write token);
- then the person reviews: ``page`` presses the review page's default button
  on every card (``bench/months_person.py``), ``merge-all`` merges each new
  proposal once (``POST /v1/proposals/{key}/merge``, the issue's replay on
  2d32b4d), and ``naive`` has no person: the agent appends each observation to
  MEMORY.md itself (a runtime's own file write, no review, no bound).

After every step (the jobs before a session, the session's proposals, each
decision of the person) the size of every file with a bound is recorded
against that bound.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hearth import wiring
from hearth.domain import layout
from hearth.domain.validation import bound_of
from in_process import InProcess, jobs_due, scheduled_jobs
from locomo import Question, Turn, load
from months_person import Decisions, ScriptedPerson

PERSONS = ("page", "merge-all", "naive")
#: After a session's last turn: when the agent proposes, and when the person reviews.
PROPOSE_AFTER = dt.timedelta(minutes=1)
REVIEW_AFTER = dt.timedelta(minutes=5)


@dataclass(frozen=True)
class Fact:
    speaker: str
    text: str
    dia_ids: tuple[str, ...]
    session: int


@dataclass
class Session:
    number: int
    turns: list[Turn]
    facts: list[Fact]


@dataclass
class Conversation:
    name: str
    sessions: list[Session]
    questions: list[Question]


def load_conversation(path: Path) -> Conversation:
    """The conversation's sessions (turns as ``bench/recall.py`` times them) and
    observations, and its questions of categories 1 to 4."""
    turns, questions = load(path)
    data = json.loads(path.read_text())
    conv = data.get("conversation", data)
    by_session: dict[int, list[Turn]] = {}
    for turn in turns:
        by_session.setdefault(int(turn.dia_id.split(":")[0][1:]), []).append(turn)
    sessions = []
    for number, session_turns in sorted(by_session.items()):
        facts = []
        for speaker, found in (conv.get(f"session_{number}_observation") or {}).items():
            for text, ids in found:
                dia_ids = tuple(ids) if isinstance(ids, list) else (ids,)
                facts.append(Fact(speaker, text.strip(), dia_ids, number))
        sessions.append(Session(number, session_turns, facts))
    return Conversation(path.stem, sessions, questions)


def person_note(speaker: str) -> str:
    found = layout.user_path(re.sub(r"[^A-Za-z0-9._-]+", "-", speaker).strip("-").lower())
    if found is None:
        raise SystemExit(f"no person note for speaker {speaker!r}")
    return found


@dataclass
class Sizes:
    """Each bounded file's size at every step: the largest, and the steps over its bound."""

    bound: int
    largest: int = 0
    over: int = 0
    steps: int = 0


@dataclass
class Lived:
    """A home after its months, and what happened on the way."""

    root: Path
    person: str
    facts: dict[str, Fact] = field(default_factory=dict)  # proposal key (or line) -> fact
    sizes: dict[str, Sizes] = field(default_factory=dict)
    decisions: list[Decisions] = field(default_factory=list)
    merges: Counter[str] = field(default_factory=Counter)  # merge-all: ok, refused
    jobs: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0


class Replay:
    def __init__(self, root: Path, person: str, first: dt.datetime) -> None:
        self.now = first - dt.timedelta(minutes=5)
        self.lived = Lived(root, person)
        wiring.initialize(root, self.clock)
        tokens = wiring.token_store(root)
        self.admin, _ = tokens.create("person", "admin", self.now)
        self.agent, _ = tokens.create("agent", "write", self.now)
        # The turns are written as bench/recall.py writes them: hearth's daily append,
        # one commit each, indexed by the served home's watcher and worker.
        self.notes = wiring.open_writes(root, self.clock)
        self.service = wiring.open_service(root, self.clock)
        self.service.start()
        self.service.ready.set()  # what the lifespan does once started
        self.client = InProcess(self.service)
        self.jobs = scheduled_jobs(self.service)
        self.person = ScriptedPerson(self.client, self.admin)
        self.bounds = self.service.writes.settings.bounds

    def clock(self) -> dt.datetime:
        return self.now

    def close(self) -> None:
        self.client.close()
        self.service.stop()

    def _call(self, method: str, path: str, token: str, data: object) -> dict[str, Any]:
        answer = self.client.post_json(path, token, data)
        if answer.status != 200:
            raise SystemExit(f"{method} {path}: {answer.status} {answer.text[:300]}")
        found: dict[str, Any] = answer.json()
        return found

    def measure(self) -> None:
        root = self.lived.root
        paths = ["USER.md", "MEMORY.md"]
        paths += sorted(p.relative_to(root).as_posix() for p in (root / "users").glob("*.md"))
        for path in paths:
            bound = bound_of(path, self.bounds)
            if bound is None:
                continue
            size = len((root / path).read_text(encoding="utf-8"))
            sizes = self.lived.sizes.setdefault(path, Sizes(bound))
            sizes.largest = max(sizes.largest, size)
            sizes.over += size > bound
            sizes.steps += 1

    def run_jobs(self, until: dt.datetime) -> None:
        for at, job in jobs_due(self.jobs, self.now, until):
            self.now = at
            job.run()
            self.lived.jobs[job.name] += 1
        self.now = until
        self.measure()

    def session(self, session: Session) -> None:
        self.run_jobs(session.turns[0].moment)
        for turn in session.turns:
            self.now = turn.moment
            self.notes.note(turn.text, turn.speaker, actor="agent")
        self.now = session.turns[-1].moment + PROPOSE_AFTER
        fresh: list[str] = []
        if self.lived.person == "naive":
            self._append(session.facts)
        else:
            fresh = self._propose(session)
        self.measure()
        self.now += REVIEW_AFTER
        if self.lived.person == "page":
            self.lived.decisions.append(self.person.review(after=self.measure))
        elif self.lived.person == "merge-all":
            self._merge_each(fresh)
        self.measure()

    def _propose(self, session: Session) -> list[str]:
        keys = []
        for n, fact in enumerate(session.facts, 1):
            body = {
                "title": f"What {fact.speaker} said in session {session.number} ({n})",
                "entries": [fact.text],
                "target": person_note(fact.speaker),
                "rationale": f"observed in {', '.join(fact.dia_ids)}",
            }
            key = str(self._call("POST", "/v1/proposals", self.agent, body)["key"])
            self.lived.facts[key] = fact
            keys.append(key)
        return keys

    def _merge_each(self, keys: list[str]) -> None:
        done = Decisions()
        for key in keys:
            answer = self.client.post_json(f"/v1/proposals/{key}/merge", self.admin, {})
            self.lived.merges["ok" if answer.status == 200 else "refused"] += 1
            self.measure()
            if answer.status == 200:
                done.pressed["/v1/proposals/merge"] += 1
            else:
                done.refused["/v1/proposals/merge"] += 1
        self.lived.decisions.append(done)

    def _append(self, facts: list[Fact]) -> None:
        """The naive agent's own write: a line at the end of MEMORY.md, unbounded."""
        path = self.lived.root / "MEMORY.md"
        with path.open("a", encoding="utf-8") as out:
            for fact in facts:
                out.write(f"- {fact.text}\n")
                self.lived.facts[f"line:{len(self.lived.facts)}"] = fact


def settle(replay: Replay, timeout: float = 3600.0) -> None:
    """Before the questions: the reconcile job once more, then wait until status
    says the index is current and (ranking with meaning) every passage has its
    vector, as ``bench/recall_silence.py`` waits for a served home."""
    import time

    replay.service.jobs.run("reconcile", replay.service.jobs.reconcile)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = replay.client.get("/v1/status", replay.admin).json()
        vectors = (status.get("index") or {}).get("vectors") or {}
        if (status.get("snapshot") or {}).get("current") and vectors.get("complete", True):
            return
        time.sleep(0.5)
    raise SystemExit(f"{replay.lived.root}: the index did not settle in {timeout:.0f} s")


def pending_keys(replay: Replay) -> set[str]:
    answer = replay.client.get("/v1/proposals", replay.admin)
    return {str(p["key"]) for p in answer.json()["proposals"]}
