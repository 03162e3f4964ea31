"""The relevance floor's decisions, on numbers (``index/floor.py``); the floor
on real homes: tests/api/test_search_floor.py and tests/cli/test_agent_hook_floor.py."""

from __future__ import annotations

import dataclasses
import math

from hearth.index.floor import (
    FLOOR,
    Judged,
    Meaning,
    inner_names,
    is_evidence,
    lone_words,
    passing,
)
from hearth.index.hits import Hit


def _hit(ordinal: int, path: str = "memory/2026-11-22.md", kind: str = "daily") -> Hit:
    return Hit(path, 10 * ordinal + 1, 10 * ordinal + 9, "", "", kind, "", 1.0, "")


NOTHING = Judged(words=0.0, rarest=0.0, held=0.0, standing=-3.0, both=False)
WORDS = Judged(words=0.8, rarest=1.0, held=2.0, standing=-3.0, both=False)
MEANING = Judged(words=0.0, rarest=0.0, held=0.0, standing=1.5, both=False)


def test_names_that_do_not_start_a_sentence() -> None:
    assert inner_names("When did Caroline go to the LGBTQ support group?") == ["caroline", "lgbtq"]
    assert inner_names("Summarize my notes. Then ask Bob.") == ["bob"]
    assert inner_names("What did Mel paint in July 2023?") == ["mel"]  # a month is no name
    assert inner_names("explain quicksort") == []


def test_a_hit_is_evidence_by_its_words_or_its_meaning() -> None:
    assert is_evidence(WORDS, FLOOR.bar)
    assert is_evidence(MEANING, FLOOR.bar)
    assert not is_evidence(NOTHING, FLOOR.bar)
    # Both sides' first candidates, standing out less, with some of the words.
    agreed = Judged(words=0.3, rarest=1.0, held=1.2, standing=0.0, both=True)
    assert is_evidence(agreed, FLOOR.bar)
    assert not is_evidence(Judged(0.3, 1.0, 1.2, 0.0, both=False), FLOOR.bar)
    # Keyword ranking has no meaning to weigh: the words decide.
    assert not is_evidence(MEANING, FLOOR.keyword)
    assert is_evidence(Judged(0.6, 0.5, 0.5, None, both=False), FLOOR.keyword)


def test_a_question_naming_someone_the_home_knows_has_the_lower_bar() -> None:
    some = Judged(words=0.3, rarest=0.5, held=0.5, standing=-3.0, both=False)
    assert not passing([_hit(1)], [some], {}, named=False)[0]
    assert passing([_hit(1)], [some], {}, named=True)[0]


def test_a_name_the_home_never_mentions_leaves_every_hit_out() -> None:
    assert passing([_hit(1), _hit(2)], [WORDS, MEANING], {}, unknown_names=["caroline"]) == [
        False,
        False,
    ]


def test_the_entry_after_evidence_is_evidence_too() -> None:
    hits = [_hit(1), _hit(2), _hit(5), _hit(1, "memory/topics/a.md", "topic")]
    ordinals = {(h.path, h.start_line): n for h, n in zip(hits, (1, 2, 5, 2), strict=True)}
    judged = [WORDS, NOTHING, NOTHING, NOTHING]
    assert passing(hits, judged, ordinals) == [True, True, False, False]


def test_standing_is_measured_beyond_the_best_of_unrelated_passages() -> None:
    small, big = Meaning({}, 0.8, 0.01, 20), Meaning({}, 0.8, 0.01, 40_000)
    # Three spreads above the mean stand out among 20 passages, not among 40,000.
    assert math.isclose(small.standing(0.83), 3 - math.sqrt(2 * math.log(20)))
    assert small.standing(0.83) > 0 > big.standing(0.83)


def test_a_bare_heading_is_no_evidence_as_a_neighbour() -> None:
    """A daily note's title section (``# 2026-11-22``) next to the entry that
    answers: nothing to read. A title holding the question's words passes."""
    hits = [_hit(1), _hit(0)]
    ordinals = {(h.path, h.start_line): n for h, n in zip(hits, (1, 0), strict=True)}
    bare = dataclasses.replace(WORDS, text=False)
    assert passing(hits, [WORDS, dataclasses.replace(NOTHING, text=False)], ordinals) == [
        True,
        False,
    ]
    assert passing(hits[:1], [bare], ordinals) == [True]


def test_a_hit_with_no_vector_yet_is_judged_by_its_words() -> None:
    """A note written a moment ago (or in a home whose vectors still fill) has no
    vector: the one rare word it holds (of two) is evidence, as with keyword ranking."""
    hit = Hit("memory/topics/new.md", 1, 3, "New", "New", "topic", "", 1.0, "")
    rare = Judged(words=0.6, rarest=1.0, held=1.0, standing=None, both=False)
    assert passing([hit], [rare], {("memory/topics/new.md", 1): 0}) == [True]
    # With a vector, the hybrid bar asks for meaning as well.
    plain = Judged(words=0.6, rarest=1.0, held=1.0, standing=-3.0, both=False)
    assert passing([hit], [plain], {("memory/topics/new.md", 1): 0}) == [False]


def test_a_query_of_date_or_small_talk_words_alone_is_searched_never_recalled() -> None:
    """Issue 48, "a search made only of a day, time or small-talk word": its
    words are judged (``lone_words``); searched, a hit holding every one of
    them passes and no other, by meaning neither; recalled, none passes."""
    assert lone_words(["Friday"]) == ["friday"]
    assert lone_words(["good", "night!"]) == ["good", "night"]
    assert lone_words(["how", "are", "you", "today?"]) == []  # a sentence of small talk
    assert lone_words(["see", "you", "Friday!"]) == []
    holds = Judged(words=1.0, rarest=1.0, held=1.0, standing=-3.0, both=False)
    hits = [_hit(1), _hit(2), _hit(3)]
    assert passing(hits, [holds, MEANING, WORDS], {}, lone=True) == [True, False, False]
    recall = dataclasses.replace(FLOOR, searched=False)
    assert passing(hits, [holds, MEANING, WORDS], {}, floor=recall, lone=True) == [False] * 3


def test_a_date_said_with_the_words_that_set_it_is_its_date_words_alone() -> None:
    """Data-trust leftover (3), ``in March`` and ``last Friday``: the word that
    sets the date (``in``, ``last``) made the query no longer one of date words
    alone, and ``last`` was judged as its content word, so the notes holding
    March or Friday were left out ("no matches"). The date's words are the
    words judged; a sentence still is not."""
    assert lone_words(["in", "March"]) == ["march"]
    assert lone_words(["last", "Friday"]) == ["friday"]
    assert lone_words(["on", "the", "weekend?"]) == ["weekend"]
    assert lone_words(["in", "the"]) == []  # no date word at all
    assert lone_words(["last", "train"]) == []
    assert lone_words(["how", "are", "you", "today?"]) == []
