"""A search made only of a day, a time or a small-talk word (issue 48: "a
word the home holds is found"): ``hearth search Friday`` finds the note that
holds "Friday", while the prompt hook stays silent for small talk on the same
home ("see you Friday!", "good night!"), with hybrid ranking on (the default).
The cases ask the home's one server, as each command beside a server does (its
model loaded once); one asks with no server, each command ranking in its own
process."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from hearth.runtimes.agent_context import PRIORITY
from tests.api.conftest import Server, start_server
from tests.e2e.run import hearth

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

NOTES = {
    "memory/topics/plans.md": "# Plans\n\nDinner at the Mill with Sam on Friday.\n",
    "memory/topics/sam.md": "# Sam\n\nSam works night shifts at the hospital on weekends.\n",
    "memory/topics/trip.md": "# Trip\n\nWe fly to Porto in March; the bags are packed tonight.\n",
    "memory/topics/call.md": "# Call\n\nSaid good night to grandma on the phone.\n",
    "memory/topics/car.md": "# Car\n\nThe mechanic replaced the brake pads.\n",
}


DAY_NOTE = "# 2026\n\n## 18:00 UTC\n\nBought a new kettle at the market.\n"


def _last_friday() -> str:
    """The daily note of the Friday before today (UTC), as ``last Friday`` names it."""
    today = dt.datetime.now(dt.UTC).date()
    return f"memory/{today - dt.timedelta(days=(today.weekday() - 4) % 7 or 7)}.md"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with semantic ranking on and every passage embedded."""
    with pytest.MonkeyPatch.context() as env:
        env.delenv("HEARTH_SEMANTIC", raising=False)
        root = tmp_path_factory.mktemp("lone") / "home"
        assert hearth("init", str(root)).returncode == 0
        for path, text in {**NOTES, _last_friday(): DAY_NOTE}.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        done = hearth("--home", str(root), "reindex", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["embedded"] > 0
    return root


@pytest.fixture(autouse=True)
def semantic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEARTH_SEMANTIC", raising=False)


@dataclass
class Serving:
    """The module home's one server, up for the cases that ask the home through it
    (each ``hearth`` beside it loads no model: the server's is loaded once) and
    down for the ones that answer in the command's own process."""

    root: Path
    server: Server | None = None

    def up(self) -> Path:
        if self.server is None:
            self.server = start_server(self.root)
        return self.root

    def down(self) -> Path:
        if self.server is not None:
            assert self.server.stop() == 0
            assert "Traceback" not in self.server.stderr, self.server.stderr
            self.server = None
        return self.root


@pytest.fixture(scope="module")
def serving(home: Path) -> Iterator[Serving]:
    serving = Serving(home)
    yield serving
    serving.down()


@pytest.fixture
def served(serving: Serving, semantic: None) -> Path:
    """The home, its server running (started with semantic ranking on)."""
    return serving.up()


@pytest.fixture
def alone(serving: Serving) -> Path:
    """The home, no server running: each command answers in its own process."""
    return serving.down()


def _found(root: Path, query: str) -> list[str]:
    """The paths ``hearth search QUERY --json`` answers."""
    done = hearth("--home", str(root), "search", query, "--json")
    assert done.returncode == 0, done.stderr
    return [hit["path"] for hit in json.loads(done.stdout)["hits"]]


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("Friday", "memory/topics/plans.md"),
        ("night", "memory/topics/sam.md"),
        ("weekend", "memory/topics/sam.md"),
        ("March", "memory/topics/trip.md"),
        ("tonight", "memory/topics/trip.md"),
        ("good night", "memory/topics/call.md"),
    ],
)
def test_a_search_of_date_or_small_talk_words_finds_the_notes_that_hold_them(
    served: Path, query: str, where: str
) -> None:
    """Case "a search made only of a day, time or small-talk word": each was
    "no matches" on main (the words weighed nothing), though the home holds
    them; only notes holding every word are answered."""
    found = _found(served, query)
    assert where in found, found
    assert "memory/topics/car.md" not in found


@pytest.mark.parametrize(
    ("query", "where"),
    [("in March", "memory/topics/trip.md"), ("last Friday", "memory/topics/plans.md")],
)
def test_a_date_with_the_word_that_sets_it_finds_the_notes_that_hold_it(
    served: Path, query: str, where: str
) -> None:
    """Data-trust leftover (3): ``in March`` answered "no matches" (a function
    word beside the date word) and ``last Friday`` a persona file holding
    "last", though the home holds a March note and a Friday note. The note
    holding the date's word is found, and the daily note of the day ``last
    Friday`` names; nothing else."""
    _dated(served, query, where)


def _dated(root: Path, query: str, where: str) -> None:
    found = _found(root, query)
    assert where in found, found
    assert "memory/topics/car.md" not in found, found
    if query == "last Friday":  # the day it names answers too, its words or not
        assert _last_friday() in found, found
    else:
        assert found == [where], found


def test_a_word_the_home_never_holds_stays_silent(served: Path) -> None:
    """Searched alone, a date word no note holds finds nothing."""
    assert _found(served, "Wednesday") == []


def _prompt(root: Path, prompt: str) -> str:
    """What the hook injects, as Claude Code sends the prompt ("" for nothing)."""
    sent = {
        "session_id": "test",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root.parent),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    done = hearth(
        "--home", str(root), "agent-hook", "claude-code", "prompt", stdin=json.dumps(sent)
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    if not done.stdout:
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


@pytest.mark.parametrize(
    "prompt",
    ["see you Friday!", "good night!", "thanks, have a nice weekend", "tonight", "in March"],
)
def test_the_prompt_hook_stays_silent_for_small_talk(served: Path, prompt: str) -> None:
    """Case "small talk stays silent for the prompt hook": on the home where
    search finds "Friday", "good night" and "weekend", the hook's recall
    keeps words of dates and small talk out and injects nothing; nor does
    ``hearth context --query`` recall a note (the session files, handed
    anyway, are no recall the hook injects)."""
    _silent(served, prompt)


def _silent(root: Path, prompt: str) -> None:
    assert _prompt(root, prompt) == ""
    done = hearth("--home", str(root), "context", "--query", prompt, "--json")
    assert done.returncode == 0, done.stderr
    recalled = [p["path"] for p in json.loads(done.stdout)["recall"]]
    assert [p for p in recalled if p not in PRIORITY] == []


def test_with_no_server_each_command_answers_the_same_in_its_own_process(alone: Path) -> None:
    """The cases above ask the home's server (the thin clients' way beside one);
    with none running, ``hearth search``, the prompt hook and ``hearth context``
    rank in their own process, the model loaded there: a date search finds its
    notes, a lone word its note, and small talk stays silent."""
    _dated(alone, "last Friday", "memory/topics/plans.md")
    assert "memory/topics/plans.md" in _found(alone, "Friday")
    _silent(alone, "see you Friday!")
