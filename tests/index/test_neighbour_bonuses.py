"""Neighbouring daily entries as each other's context (``neighbour_bonuses.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.index import neighbour_bonuses
from hearth.index.hits import Hit
from hearth.index.search_index import SearchIndex
from hearth.index.weights import WEIGHTS
from tests.conftest import indexed_files, keyword_search

DAY = (
    "# 2026-03-02\n\n"
    "## 10:00 UTC — Nate\n\nHow is the writing going? What genre is your first screenplay?\n\n"
    "## 10:01 UTC — Joanna\n\nThanks, Nate! It's a mix of drama and romance!\n\n"
    "## 10:02 UTC — Nate\n\nI fed the turtles this morning.\n"
)
FILES = {
    "memory/2026-03-02.md": DAY,
    "memory/topics/films.md": (
        "# Films\n\n## Screenplay genres\n\nThriller and comedy sell best.\n\n"
        "## Cinemas\n\nThe old cinema closed.\n"
    ),
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    idx = indexed_files(tmp_path_factory.mktemp("context"), FILES)
    return idx


def test_the_entry_after_a_question_answers_it(index: SearchIndex) -> None:
    hits = keyword_search(index, "what genre is her first screenplay?", limit=5)
    headings = [h.heading for h in hits]
    assert "10:01 UTC — Joanna" in headings  # shares no word with the question
    answer = headings.index("10:01 UTC — Joanna")
    # Below the entry that matched, above the entry before the question.
    assert headings.index("10:00 UTC — Nate") < answer
    assert hits[answer].snippet.startswith("Thanks, Nate!")


def test_exact_words_and_single_words_find_only_what_holds_them(index: SearchIndex) -> None:
    for query in ('"first screenplay"', "+screenplay", "screenplay"):
        assert "10:01 UTC — Joanna" not in [h.heading for h in keyword_search(index, query)], query


def test_a_topic_notes_sections_are_not_each_others_context(index: SearchIndex) -> None:
    hits = keyword_search(index, "screenplay genres thriller")
    assert [h.heading for h in hits if h.path == "memory/topics/films.md"] == ["Screenplay genres"]


def _hit(path: str, start: int, score: float, kind: str = "daily") -> Hit:
    return Hit(path, start, start + 2, "t", f"h{start}", kind, "", score, "")


def test_scores_flow_to_the_next_and_previous_entries() -> None:
    a, b, c = _hit("d.md", 3, 10.0), _hit("d.md", 7, 1.0), _hit("d.md", 11, 0.0)
    ordinals = {("d.md", 3): 1, ("d.md", 7): 2, ("d.md", 11): 3}
    ranked = neighbour_bonuses.spread([a, b], [c], ordinals, 10)
    scores = {h.start_line: h.score for h in ranked}
    assert scores[3] == pytest.approx(10.0 + WEIGHTS.before * 1.0)
    assert scores[7] == pytest.approx(1.0 + WEIGHTS.after * 10.0)
    assert scores[11] == pytest.approx(WEIGHTS.after * 1.0)
    # Not a daily entry: nothing flows.
    topic = [_hit("t.md", 3, 10.0, "topic"), _hit("t.md", 7, 1.0, "topic")]
    flat = neighbour_bonuses.spread(topic, [], {("t.md", 3): 1, ("t.md", 7): 2}, 10)
    assert [h.score for h in flat] == [10.0, 1.0]


def test_a_name_the_question_says_lifts_that_speakers_entries(tmp_path: Path) -> None:
    day = (
        "# 2026-03-03\n\n"
        "## 09:00 UTC — Joanna\n\nHa, I like turtles too.\n\n"
        "## 09:01 UTC — Nate\n\nJoanna, my turtles ate all the turtle food. Turtles!\n\n"
        "## 09:02 UTC — Nate\n\nOff to the pet shop.\n"
    )
    idx = indexed_files(tmp_path, {"memory/2026-03-03.md": day})
    hits = keyword_search(idx, "What does Joanna feel about turtles?", limit=3)
    assert hits[0].heading == "09:00 UTC — Joanna"
    # Lower-case, it is not taken for a name.
    assert keyword_search(idx, "what does joanna feel about turtles?", limit=3)[0].heading.endswith(
        "Nate"
    )


def test_names_in_headings_are_left_out_of_the_embedded_question(tmp_path: Path) -> None:
    from hearth.index.ranking import semantic_text
    from hearth.index.terms import names_in

    idx = indexed_files(tmp_path, FILES)
    question = "What did Joanna's friend Nate say about Paris on May 3, 2026?"
    assert names_in(question) == ["joanna", "nate", "paris"]  # May is a month
    # Joanna and Nate are speakers (headings); Paris is in no heading: kept.
    spoken = idx.in_headings(names_in(question))
    assert spoken == ["joanna", "nate"]
    assert semantic_text(question, spoken) == "What did friend say about Paris?"
    assert semantic_text("Joanna", ["joanna"]) == "Joanna"  # nothing else to embed
