"""What counts as nearly the same, groups of proposals, and the bound check: pure."""

from __future__ import annotations

import unicodedata

import pytest

from hearth.domain.likeness import (
    COSINE_FLOOR,
    POINTER_MARK,
    EntryMatch,
    EntryMatches,
    Held,
    best_matches,
    groups,
    keyword_likeness,
    likeness,
    over_bound,
    parse_threshold,
)
from hearth.domain.settings import parse_settings
from hearth.errors import InvalidInput


def test_scores() -> None:
    a, b = frozenset({"sam", "cat", "allerg"}), frozenset({"sam", "cat", "dog"})
    assert keyword_likeness(a, a) == 1.0
    assert keyword_likeness(a, frozenset()) == 0.0
    assert keyword_likeness(a, b) == pytest.approx(2 / 3)
    # A cosine at the floor adds nothing; a cosine of 1 is all meaning.
    assert likeness(a, b, COSINE_FLOOR) == pytest.approx(0.3 * 2 / 3)
    assert likeness(a, a, 1.0) == pytest.approx(1.0)
    assert likeness(a, b, None) == pytest.approx(2 / 3)


def test_best_matches_orders_and_cuts() -> None:
    held = [
        (Held("x", "MEMORY.md", 3), 0.7),
        (Held("y", "p.md", 9, "p--k"), 0.9),
        (Held("Sam likes tea", "USER.md", 5), 0.2),
        (Held("z", "MEMORY.md", 4), 0.5),
    ]
    found = best_matches("Sam likes tea", held, 0.56)
    assert [(m.path, m.line) for m in found.matches] == [
        ("USER.md", 5),  # the same text: 1.0, whatever was measured
        ("p.md", 9),
        ("MEMORY.md", 3),
    ]
    assert found.known and found.matches[0].exact
    assert found.matches[1].as_dict()["where"] == "proposed"


def test_groups_are_direct_links_not_chains() -> None:
    keys = ["a", "b", "c", "d", "e"]
    # a~b, b~c, c~d: chained. e alone.
    found = groups(keys, [("a", "b"), ("b", "c"), ("c", "d")])
    assert found == [["a", "b"], ["c", "d"]]
    assert groups(keys, [("a", "c"), ("c", "a"), ("a", "a")]) == [["a", "c"]]
    assert groups(keys, []) == []


def test_over_bound_moves_repeated_then_oldest_entries_and_counts_the_pointer() -> None:
    """Issue 41: the advice counts the pointer it leaves, and prefers entries the
    home repeats, then the oldest, not the longest."""
    longest = "Sam keeps a very long and important core preference " * 3
    held = [
        ("short", 3),  # shorter than any pointer: moving it frees nothing
        ("Sam walks the dog every morning before work, rain or shine, for an hour", 4),
        (longest, 5),
        ("Pat drinks tea in the afternoon with milk and no sugar, from a blue mug", 6),
        ("Sam walks: see memory/topics/sam-walks.md", 7),  # a pointer: never moved again
    ]
    assert over_bound("MEMORY.md", "x" * 100, 100, held) is None
    assert over_bound("notes.md", "x" * 1000, None, held) is None
    found = over_bound("MEMORY.md", "x" * 130, 100, held, repeated={6}, now=90)
    assert found is not None
    assert found.as_dict()["over_by"] == 30
    assert found.as_dict()["chars_now"] == 90
    first = found.moves[0]
    assert (first.text, first.line, first.why) == (held[3][0], 6, "repeated")
    assert first.pointer == "Pat drinks tea: see memory/topics/pat-drinks-tea.md"
    assert first.topic_path == "memory/topics/pat-drinks-tea.md"
    assert first.frees == len(held[3][0]) - len(first.pointer)
    assert first.frees < 30  # after its pointer it frees too little: the oldest comes next
    assert [m.line for m in found.moves] == [6, 4]
    assert found.enough
    many = over_bound("MEMORY.md", "x" * 400, 100, held)
    assert many is not None and [m.line for m in many.moves] == [4, 5, 6]
    assert not many.enough  # the page then says the moves are not enough
    assert all(POINTER_MARK not in m.text for m in many.moves)


def test_the_threshold_setting() -> None:
    assert parse_settings("").review.threshold == 0.56
    assert parse_settings("[review]\nthreshold = 0.8\n").review.threshold == 0.8
    assert parse_settings("[review]\nthreshold = 1\n").review.threshold == 1.0
    for bad in ("0", "1.5", '"high"', "true"):
        with pytest.raises(InvalidInput, match=r"\[review\] threshold"):
            parse_settings(f"[review]\nthreshold = {bad}\n")
    with pytest.raises(InvalidInput, match="unknown keys"):
        parse_settings("[review]\nthreshhold = 0.5\n")
    assert parse_threshold(0.5) == 0.5


def test_over_bound_moves_an_entry_already_in_a_topic_note_first() -> None:
    held = [
        ("Sam walks the dog every morning before work, rain or shine, for an hour", 4),
        ("Pat drinks tea in the afternoon with milk and no sugar, from a blue mug", 6),
    ]
    found = over_bound(
        "MEMORY.md", "x" * 130, 100, held, repeated={4}, in_topics={6: "memory/topics/tea.md"}
    )
    assert found is not None
    first = found.moves[0]
    assert (first.line, first.why, first.topic_path) == (
        6,
        "in a topic note",
        "memory/topics/tea.md",
    )
    assert first.pointer == "Pat drinks tea: see memory/topics/tea.md"
    assert first.frees == len(held[1][0]) - len(first.pointer)


@pytest.mark.parametrize(
    ("entry", "held", "known"),
    [
        ("Sam has an allergy to cats", "Sam is allergic to cats", True),
        ("Sam was born on the 14th of March", "Sam's birthday is on March 14", True),
        ("Ada lives in Porto with her dog Biscuit", "Ada's dog Biscuit loves the beach", False),
        ("Caroline ran a 10k race in June", "Caroline ran a race in June", False),
        # The same names in another case or spelling of accents: known.
        ("Ada lives in Porto with Zoë", "ada lives in porto with zoe", True),
        ("Ada lives in Porto with Zoë", unicodedata.normalize("NFD", "Zoë and Ada: Porto"), True),
        ("Νίκος lives in Αθήνα", "Νικος lives in Αθηνα", True),
    ],
)
def test_an_entry_that_names_what_no_held_entry_names_is_news(
    entry: str, held: str, known: bool
) -> None:
    """Issue 53's months replay: the review page's default rejected as already
    known new facts only like a held entry ("Ada lives in Porto..." beside "Ada's
    dog Biscuit..."): a paraphrase is known, an entry naming a place, a person or
    a number no held match names is news, never left out by default."""
    found = EntryMatches(entry, (EntryMatch(held, "MEMORY.md", 3, 0.6, None),))
    assert found.known is known


def test_the_same_entry_pasted_decomposed_is_the_same_text() -> None:
    """An entry pasted in decomposed form (NFD, as some macOS apps hand it
    over) is the same text to its reader: review says "same text", not a
    near match."""
    entry = "Zoë drinks café au lait"
    held = Held(unicodedata.normalize("NFD", entry), "MEMORY.md", 3)
    [match] = best_matches(entry, [(held, 0.7)], 0.5).matches
    assert match.exact
    [other] = best_matches(
        entry, [(Held("Zoe drinks cafe au lait", "MEMORY.md", 4), 0.7)], 0.5
    ).matches
    assert not other.exact
