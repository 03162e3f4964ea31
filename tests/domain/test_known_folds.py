"""An entry the home already holds in other words (issue 53, "entries lost"):
review's default folds the words it adds into the held entry, and rejects only
a true restatement. Pure: texts in, texts out."""

from __future__ import annotations

import pytest

from hearth.domain.consolidation import loses_words
from hearth.domain.known_folds import HeldLike, fold_into, folded, says_all, sort_known
from hearth.index.likeness import EntryLikeness

TERMS = EntryLikeness().terms
TARGET = "users/caroline.md"


@pytest.mark.parametrize(
    ("held", "entry", "becomes"),
    [
        # The entry says all the held one says and more: it takes its place.
        (
            "Caroline is a counselor",
            "Caroline is a counselor who helps trans youth",
            "Caroline is a counselor who helps trans youth",
        ),
        # The held entry first, then what it lacks, in the entry's order.
        (
            "Melanie painted a sunset with her kids",
            "Melanie painted a lake sunset last week",
            "Melanie painted a sunset with her kids (also: lake last week)",
        ),
        # A fold's (also: ...) grows; it does not nest.
        (
            "Sam likes tea (also: green)",
            "Sam likes green tea from Japan",
            "Sam likes tea (also: green from Japan)",
        ),
        # Tokens, not words: C# and an emoji are kept whole; a link too.
        ("Ana writes C++", "Ana writes C# 🎉 see https://ana.dev/x", None),
        # No spaces: words end at punctuation; the longer one holds every word.
        ("山姆对猫过敏", "山姆对猫过敏，而且很严重", "山姆对猫过敏，而且很严重"),
        ("山姆对猫过敏", "山姆养了一只猫", "山姆对猫过敏 (also: 山姆养了一只猫)"),
        # Nothing to add: the held entry as it is.
        ("Sam likes green tea", "sam likes tea.", "Sam likes green tea"),
    ],
)
def test_a_fold_keeps_every_token_of_both(held: str, entry: str, becomes: str | None) -> None:
    """Case: "every space-separated token kept" by the folded result."""
    found = fold_into(held, entry)
    if becomes is not None:
        assert found == becomes
    assert loses_words(found, [held, entry]) == []


def test_folds_into_one_entry_fold_in_turn() -> None:
    """Case: two known entries of one proposal adding to one held entry."""
    held = "Jon runs a dance studio"
    grown = folded(
        [("Jon runs a dance studio downtown", held), ("Jon's studio teaches salsa", held)]
    )
    assert grown == {held: "Jon runs a dance studio downtown (also: Jon's teaches salsa)"}
    assert loses_words(grown[held], [held, "Jon's studio teaches salsa"]) == []


def test_other_forms_of_a_word_say_the_same_but_a_longer_word_is_news() -> None:
    """Case: a true restatement (another form of each word) against a detail."""
    assert says_all(TERMS("Robin is allergic to cats"), TERMS("Robin has an allergy to cats"))
    assert says_all(TERMS("Caroline is a counselor"), TERMS("Caroline counsels"))
    assert not says_all(TERMS("Sam had a grand time"), TERMS("Sam's grandmother"))
    assert not says_all(TERMS("Sam likes tea"), TERMS("Sam likes green tea"))


def test_known_entries_are_restatements_folds_or_new() -> None:
    """Case: the three fates of a known entry: rejected naming the held entry
    (says nothing more), folded into the target's held entry (adds words),
    merged as new (adds words to an entry held only outside the target)."""
    counselor = HeldLike("Caroline is a counselor", TARGET, 5)
    elsewhere = HeldLike("Caroline likes hiking", "MEMORY.md", 3)
    found = sort_known(
        [
            ("Caroline counsels", [counselor]),
            ("Caroline is a counselor for trans youth", [counselor]),
            ("Caroline likes hiking in the Alps", [elsewhere]),
        ],
        TARGET,
        [counselor.text],
        TERMS,
    )
    assert found.restated == {"Caroline counsels": counselor}
    [fold] = found.folds
    assert (fold.entry, fold.into, fold.line) == (
        "Caroline is a counselor for trans youth",
        "Caroline is a counselor",
        5,
    )
    assert fold.becomes == "Caroline is a counselor for trans youth"
    assert found.new == ("Caroline likes hiking in the Alps",)


def test_a_fold_that_would_read_as_another_entry_is_merged_as_new() -> None:
    """Case: no exact duplicate: a fold that would make the held entry read as
    another entry of the file is no fold."""
    held = HeldLike("Sam likes tea", TARGET, 5)
    found = sort_known(
        [("Sam likes tea daily", [held])], TARGET, [held.text, "Sam likes tea daily"], TERMS
    )
    assert found.folds == () and found.new == ("Sam likes tea daily",)


def test_a_pointer_line_neither_says_nor_takes_an_entry() -> None:
    """Hostile case: an entry like a consolidation's pointer line (now compared
    by its title) is not left out as said by it, nor folded into it (the
    pointer would point nowhere): it is merged as new."""
    pointer = HeldLike("Family (Caroline): see memory/topics/family-caroline.md", TARGET, 7)
    found = sort_known([("Caroline's family", [pointer])], TARGET, [pointer.text], TERMS)
    assert found.restated == {} and found.folds == ()
    assert found.new == ("Caroline's family",)


def test_a_fold_longer_than_an_entry_may_be_is_merged_as_new() -> None:
    """Hostile case: a long held entry and a long entry adding words would fold
    into a line over the entry limit (the merge would be refused, the page
    would fail): it is merged as its own entry instead."""
    long = "Sam keeps notes on " + " ".join(f"plant{i}" for i in range(150))
    held = HeldLike(long, TARGET, 5)
    entry = "Sam keeps notes on " + " ".join(f"seed{i}" for i in range(140))
    found = sort_known([(entry, [held])], TARGET, [held.text], TERMS)
    assert len(long) < 2000 and len(entry) < 2000
    assert found.folds == () and found.new == (entry,)
