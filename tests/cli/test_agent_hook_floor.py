"""``hearth agent-hook claude-code prompt`` with hybrid ranking on (the default):
recall injects the passage that answers a question about the home, and nothing
for gibberish, a coding task, or a question about someone the home never
mentions (issue 38; the figures on LoCoMo: bench/recall_silence.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.run import hearth

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

NOTES = {
    "memory/topics/priya.md": (
        "# Priya\n\n"
        "## Dentist\n\nPriya's dentist appointment moved to Thursday at 3 pm, "
        "at the clinic on Elm Street.\n\n"
        "## Dog\n\nPriya adopted a beagle called Biscuit from the shelter in March.\n"
    ),
    "memory/topics/garden.md": "# Garden\n\nSam planted tomatoes and basil along the fence.\n",
    "memory/topics/car.md": "# Car\n\nThe mechanic replaced the brake pads last week.\n",
    "memory/topics/music.md": "# Music\n\nPracticed the violin sonata for an hour.\n",
}


def _prompt(root: Path, prompt: str) -> str:
    """What the hook injects, as Claude Code sends the prompt ("" for nothing)."""
    sent = {
        "session_id": "test",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root.parent),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    ask = ("--home", str(root), "agent-hook", "claude-code", "prompt")
    done = hearth(*ask, stdin=json.dumps(sent))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    if not done.stdout:
        return ""
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home with semantic ranking on and every passage embedded."""
    with pytest.MonkeyPatch.context() as env:
        env.delenv("HEARTH_SEMANTIC", raising=False)
        root = tmp_path_factory.mktemp("floor") / "home"
        assert hearth("init", str(root)).returncode == 0
        for path, text in NOTES.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text)
        done = hearth("--home", str(root), "reindex", "--json")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["embedded"] > 0
    return root


@pytest.fixture
def semantic(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HEARTH_SEMANTIC", raising=False)


@pytest.mark.usefixtures("semantic")
def test_a_question_about_the_home_injects_the_passage_that_answers(home: Path) -> None:
    text = _prompt(home, "When is Priya's dentist appointment?")
    assert "moved to Thursday at 3 pm" in text
    assert "memory/topics/priya.md:" in text


@pytest.mark.usefixtures("semantic")
@pytest.mark.parametrize(
    "prompt",
    [
        "asdkjh qwpoeiru",
        "explain quicksort",
        "When did Caroline go to the LGBTQ support group?",
    ],
)
def test_gibberish_a_coding_task_and_a_foreign_question_inject_nothing(
    home: Path, prompt: str
) -> None:
    assert _prompt(home, prompt) == ""


def test_a_rejected_proposal_is_never_recalled(home: Path) -> None:
    """Issue 48, "the rejected proposal not recalled": propose "Sam hates
    gardening", reject it; neither the prompt hook nor ``hearth context
    --query`` hands its line over as memory. Asked for by kind, search shows
    it, marked rejected."""
    made = hearth(
        "--home",
        str(root := home),
        "propose",
        "--title",
        "Gardening",
        "--entry",
        "Sam hates gardening",
    )
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip().split()[-1]
    done = hearth("--home", str(root), "reject", key, "--reason", "not true: Sam loves gardening")
    assert done.returncode == 0, done.stderr
    assert "Sam hates gardening" not in _prompt(root, "Does Sam hate gardening?")
    ctx = hearth("--home", str(root), "context", "--query", "Does Sam hate gardening?", "--json")
    assert ctx.returncode == 0, ctx.stderr
    assert all("Sam hates gardening" not in p["text"] for p in json.loads(ctx.stdout)["recall"])
    shown = hearth("--home", str(root), "search", "Sam hates gardening", "--kind", "archive")
    assert "(rejected)" in shown.stdout, shown.stdout
