"""Facts that know when they were replaced (issue 53): which entry restates
which with a new value, and which similar entries are never paired."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain import layout
from hearth.domain.facts import restated_in, restates, superseded_path, superseded_record


@pytest.mark.parametrize(
    ("new", "old", "was", "now"),
    [
        ("Location: Porto", "Location: Braga", "Braga", "Porto"),
        ("**Location:** Porto", "**Location:** Braga", "Braga", "Porto"),
        ("Sam's phone: 555 0199", "Sam's phone: 555 0142", "555 0142", "555 0199"),
        ("所在地：大阪", "所在地：東京", "東京", "大阪"),
        ("Wohnort: München", "Wohnort: Berlin", "Berlin", "München"),
    ],
)
def test_a_labelled_field_with_another_value_restates_it(
    new: str, old: str, was: str, now: str
) -> None:
    """Case: a labelled field (`Location: Porto` when `Location: Braga` stands)."""
    assert restates(new, old) == ("field", was, now)


@pytest.mark.parametrize(
    ("new", "old", "was", "now"),
    [
        ("Sam lives in Lisbon", "Sam lives in Braga", "Braga", "Lisbon"),
        ("Sam lives in New York", "Sam lives in Braga", "Braga", "New York"),
        ("Sam is 35", "Sam is 34", "34", "35"),
        ("The flat is on the 5th floor", "The flat is on the 3rd floor", "3rd", "5th"),
        ("Сэм живёт в Казани", "Сэм живёт в Москве", "Москве", "Казани"),
        ("山田さんは大阪に住んでいる", "山田さんは東京に住んでいる", "東京", "大阪"),
        ("L'appartement de Sam est à Lyon", "L'appartement de Sam est à Paris", "Paris", "Lyon"),
    ],
)
def test_a_near_duplicate_with_one_value_changed_restates_it(
    new: str, old: str, was: str, now: str
) -> None:
    """Case: a near-duplicate that differs in one value (English and not)."""
    assert restates(new, old) == ("value", was, now)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Sam likes tea", "Sam owns a cat"),  # the issue's own pair of unrelated facts
        ("Sam likes coffee", "Sam likes tea"),  # two likes, not one changed
        ("Sam owns a dog", "Sam owns a cat"),
        ("Sam's brother Tom lives in Porto", "Sam's sister Ana lives in Porto"),
        ("Went to the support group on 20 May", "Went to the support group on 7 May"),
        ("Dentist on 2026-03-04", "Dentist on 2026-02-11"),
        ("Note: call mom", "Note: buy milk"),  # a list's items, not a field
        ("Sam lives in Braga now", "Sam lives in Braga"),  # nothing replaced
        ("Sam lives in Braga", "Sam lives in Braga"),
        ("sam LIVES in braga", "Sam lives in Braga"),
        ("Sam moved to Lisbon", "Sam lives in Braga"),  # a miss the docs name
        ("Sam is not vegan", "Sam is vegan"),
        ("Location: Porto", "Sam lives in Braga"),
        ("Home: Porto", "Location: Braga"),
    ],
)
def test_unrelated_or_similar_entries_are_not_paired(new: str, old: str) -> None:
    """Case: unrelated similar entries are not paired ("Sam likes tea" vs "Sam owns a cat")."""
    assert restates(new, old) is None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("fact number 1", "fact number 0"),
        ("Room 102 is the lab", "Room 101 is the lab"),
        ("Ticket #7 is open", "Ticket #6 is open"),
    ],
)
def test_a_number_that_counts_items_is_no_value(new: str, old: str) -> None:
    """An agent adding "fact number 1" beside "fact number 0" adds a fact: a
    number after a numbering word names one of many (found by
    tests/e2e/test_memory_ops.py's concurrent adds, which replaced each other)."""
    assert restates(new, old) is None


def test_a_number_that_is_a_value_still_pairs() -> None:
    assert restates("Sam has 3 kids", "Sam has 2 kids") == ("value", "2", "3")


def test_a_label_the_file_holds_twice_is_a_list_not_a_field() -> None:
    held = ["Car: Fiat", "Car: Volvo"]
    assert restates("Car: Tesla", "Car: Fiat", held) is None
    assert restates("Car: Tesla", "Car: Fiat", ["Car: Fiat"]) == ("field", "Fiat", "Tesla")


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Child: Eva", "Child: Ana"),
        ("Pet: Bo", "Pet: Rex"),
        ("Language: German", "Language: Portuguese"),
        ("Friend: Joe", "Friend: Ana"),
        ("**Ana's child:** Leo", "**Ana's child:** Eva"),
        ("Sam's daughter is Eva", "Sam's daughter is Ana"),
        ("Sam speaks German", "Sam speaks Portuguese"),
    ],
)
def test_a_label_that_holds_several_values_is_not_one_fact(new: str, old: str) -> None:
    """Case (2) of the data-trust leftovers: `Child: Ana` then `Child: Eva` (and
    `Pet:`, `Language:`, `Friend:`) held once in the file are two children, not
    one replaced: a relation a person holds several of never pairs, as a
    field's label or right before the changed value."""
    assert restates(new, old, [old]) is None
    assert restated_in(new, [(old, 3)]) is None


@pytest.mark.parametrize(
    ("new", "old", "was", "now"),
    [
        ("Best friend: Joe", "Best friend: Ana", "Ana", "Joe"),
        ("Native language: Portuguese", "Native language: English", "English", "Portuguese"),
        ("Sam has 3 kids", "Sam has 2 kids", "2", "3"),
    ],
)
def test_one_of_a_kind_among_many_still_pairs(new: str, old: str, was: str, now: str) -> None:
    """Case (2), what the rule leaves alone: a qualified label names one (`Best
    friend:`), and a count of many is one value (`2 kids` -> `3 kids`)."""
    found = restates(new, old, [old])
    assert found is not None and found[1:] == (was, now)


def test_the_newest_restated_entry_is_the_one_replaced_and_a_held_entry_is_none() -> None:
    held = [("Sam lives in Braga", 5), ("Sam likes tea", 6), ("Sam lives in Porto", 7)]
    found = restated_in("Sam lives in Lisbon", held)
    assert found is not None and (found.old, found.line) == ("Sam lives in Porto", 7)
    assert restated_in("Sam lives in Braga", held) is None
    assert restated_in("Sam owns a cat", held) is None


def test_the_superseded_record_names_the_entry_its_file_and_dates() -> None:
    found = restated_in("Sam lives in Lisbon", [("Sam lives in Braga", 5)])
    assert found is not None
    text = superseded_record("MEMORY.md", found, "2026-03-01", "2026-07-14", "k--1")
    assert "- Entry: Sam lives in Braga\n" in text
    assert "- Held: 2026-03-01 to 2026-07-14\n" in text
    assert "- Replaced by: Sam lives in Lisbon\n" in text
    path = superseded_path("2026-07-14", found.old, "abc")
    assert path == "continuity/superseded/2026-07-14-sam-lives-in-braga--abc.md"
    assert layout.kind_of(path) == "archive" and layout.record_status(path) == "superseded"
    assert not layout.asks_for_set_aside(None, None)
    assert layout.asks_for_set_aside(None, "continuity/superseded")


@given(st.text(min_size=1, max_size=60))
def test_an_entry_never_restates_itself(text: str) -> None:
    assert restates(text, text) is None
    assert restated_in(text, [(text, 1)]) is None


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_pairing_is_symmetric_and_never_raises(a: str, b: str) -> None:
    """Any two texts: a pair one way round is a pair the other way round, with
    the values swapped."""
    there, back = restates(a, b), restates(b, a)
    assert (there is None) == (back is None)
    if there is not None and back is not None:
        assert (there[0], there[1], there[2]) == (back[0], back[2], back[1])


names = st.sampled_from(["Braga", "Lisbon", "New York", "Porto", "Rio", "São Paulo", "Kyiv"])


@given(names, names)
def test_a_name_changed_in_one_sentence_always_pairs(old: str, new: str) -> None:
    pair = restates(f"Sam lives in {new}", f"Sam lives in {old}")
    assert (pair is None) == (old == new)
