"""The benchmark of months (issue 53, ``bench/months.py``) on a tiny synthetic split
(``tests/data/months_tiny``: three sessions of two people, written for this test;
LoCoMo itself never enters the repository): a real home in git, the clock set to
each session's date, the review page's default action, the scheduled jobs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).parents[2] / "bench"
SPLIT = Path(__file__).parents[1] / "data" / "months_tiny"
BUDGETS = [300, 20_000]


@pytest.fixture(scope="module", autouse=True)
def _bench_on_path() -> Iterator[None]:
    sys.path.insert(0, str(BENCH))
    yield
    sys.path.remove(str(BENCH))
    for name in [m for m in sys.modules if m.startswith("months")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("months")


_LIVED: dict[tuple[Path, str], dict[str, Any]] = {}


def lived(work: Path, person: str) -> dict[str, Any]:
    """The tiny split lived once per module and person (each replay takes seconds)."""
    if (work, person) not in _LIVED:
        from months import live
        from months_replay import load_conversation

        conv = load_conversation(SPLIT / "1.json")
        _LIVED[work, person] = dict(live(conv, work, person, BUDGETS))
    return _LIVED[work, person]


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_replay_writes_each_session_on_its_date_and_runs_the_jobs_when_due(
    work: Path,
) -> None:
    """Case "replay each conversation as a home lived in, in date order, with the
    clock set to each session's date; scheduled jobs run as they would": git
    dates each daily note at its session, and the weekly rollup ran for the two
    Mondays that passed between the sessions."""
    found = lived(work, "page")
    root = work / "1-page"
    for day in ("2023-05-03", "2023-05-12", "2023-05-20"):
        dates = git(root, "log", "--format=%aI", "--", f"memory/{day}.md").split()
        assert dates and all(d.startswith(day) for d in dates), dates
    assert sorted(p.name for p in (root / "continuity" / "rollups").iterdir()) == [
        "2023-W18.md",
        "2023-W19.md",
    ]
    assert found["jobs"]["rollup"] == 2
    assert git(root, "status", "--porcelain", "--", "users", "memory") == ""


def test_the_person_takes_the_review_page_s_default_on_every_card(work: Path) -> None:
    """Case "a scripted person takes the review page's default action on every
    card": merges new entries into the speaker's note, rejects the one proposed
    again word for word as already known, and leaves no card pending; the note
    then holds each kept observation once."""
    found = lived(work, "page")
    pressed: dict[str, int] = {}
    for session in found["decisions"]:
        for kind, n in session["pressed"].items():
            pressed[kind] = pressed.get(kind, 0) + n
    assert pressed["/ui/proposals/merge"] >= 5
    assert pressed["/ui/proposals/reject"] >= 1
    assert found["decisions"][-1]["left"] == 0
    note = (work / "1-page" / "users" / "ada.md").read_text()
    assert note.count("- Ada adopted a beagle named Biscuit.") == 1
    assert found["exact_duplicates"] == 0
    assert found["fates"]["kept"] + found["fates"].get("lost", 0) == found["observations"] == 8
    assert "users/ada.md" in found["sizes"]
    assert found["sizes"]["users/ada.md"]["over"] == 0


def test_coverage_counts_the_evidence_in_what_the_runtime_was_handed(work: Path) -> None:
    """Case "a question is covered when what the runtime received holds its
    evidence": at 20,000 characters every question of categories 1 to 4 is
    covered (the category 5 one is not asked); at 300 characters the handed
    text is cut and covers less."""
    found = lived(work, "page")
    assert found["asked"] == 3
    assert found["covered"][20_000] == 3
    assert found["covered"][300] < 3
    assert max(found["chars"][300]) <= 300


def test_the_naive_baseline_appends_every_observation_to_memory(work: Path) -> None:
    """Case "the naive baseline: every observation appended to MEMORY.md, no
    review": the repeated observation is in MEMORY.md twice, and no person decided."""
    found = lived(work, "naive")
    memory = (work / "1-naive" / "MEMORY.md").read_text()
    assert memory.count("- Ada adopted a beagle named Biscuit.") == 2
    assert found["exact_duplicates"] == 1
    assert found["decisions"] == []
    assert found["covered"][20_000] == 3


def test_a_card_of_a_kind_the_person_never_saw_is_followed_by_its_default_button() -> None:
    """Case "design the scripted person generically over card kinds": a card
    hearth adds later (a consolidation, say) is pressed when its button is the
    page's primary one, with the fields the page put in its form."""
    from months_person import page_forms

    html = (
        '<form method="post" action="/ui/consolidations/abc--0f0e0d0c-0b0a-5908-8706-050403020100'
        '/approve"><input type="hidden" name="csrf" value="c1">'
        '<input type="hidden" name="path" value="MEMORY.md">'
        '<button type="submit" class="primary">Move 4 entries to users/sam.md</button></form>'
        '<form method="post" action="/ui/proposals/x/reject"><input name="reason" value="">'
        '<button type="submit" class="danger">Reject</button></form>'
    )
    forms = page_forms(html)
    primary = [f for f in forms if f.primary]
    assert len(primary) == 1
    assert primary[0].kind == "/ui/consolidations/approve"
    assert primary[0].fields == [("csrf", "c1"), ("path", "MEMORY.md")]
    assert "MEMORY.md" in primary[0].paths()


def test_contradicting_versions_of_one_fact_are_detected() -> None:
    """Case "contradicting versions of one fact both in a hot file": a labelled
    field with two values and a sentence differing in one value are counted;
    two events of the same shape in lower case are not."""
    from months_measure import contradicting

    pairs = contradicting(
        [
            "Location: Porto",
            "Location: Braga",
            "Sam lives in Braga",
            "Sam lives in Lisbon",
            "Sam went to the museum with the kids",
            "Sam went to the park with the kids",
        ]
    )
    assert ("Location: Porto", "Location: Braga") in pairs
    assert ("Sam lives in Braga", "Sam lives in Lisbon") in pairs
    assert len(pairs) == 2
