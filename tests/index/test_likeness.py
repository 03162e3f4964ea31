"""Entry likeness: the matrix that review scores with is the one definition of
``domain/likeness.py``, pair by pair; terms are the search analyzer's."""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.domain.likeness import keyword_likeness, likeness
from hearth.index.likeness import EntryLikeness
from tests.conftest import examples

WORDS = ["Sam", "cats", "allergic", "is", "the", "green", "tea", "Pat", "bicycle", "owns", "has"]


def test_terms_are_the_search_analyzers_without_function_words() -> None:
    measure = EntryLikeness()
    assert measure.terms("Sam has a cat allergy") == {"sam", "cat", "allergi"}
    assert measure.terms("Sam is allergic to cats") == {"sam", "allerg", "cat"}
    assert measure.terms("the who") == {"the", "who"}  # nothing but function words: kept
    assert measure.terms("Sam 喜欢喝绿茶") >= {"sam", "喜", "茶"}


def test_terms_are_folded_as_search_folds_them() -> None:
    """The review's alike check weighs an entry as search finds it: text
    pasted decomposed (NFD), Greek with or without its accents, and a word
    written joined (``Wi-Fi``) have the terms of their other spelling."""
    measure = EntryLikeness()
    composed = "Zoë drinks café au lait in Besançon"
    assert measure.terms(unicodedata.normalize("NFD", composed)) == measure.terms(composed)
    assert measure.terms("Ο Νίκος ζει στην Αθήνα") == measure.terms("Ο Νικος ζει στην Αθηνα")
    assert measure.terms("the wifi password") <= measure.terms("the Wi-Fi password")
    # 3 of 5 and 3 terms shared (0.57 before: 2 of 4 and 3).
    joined, typed = measure.terms("Sam's Wi-Fi password"), measure.terms("Sam's wifi password")
    assert likeness(joined, typed, None) == 0.75


@settings(max_examples=examples(40), deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=4),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), min_size=1, max_size=4),
)
def test_the_matrix_matches_the_pairwise_definition(
    rows: list[list[str]], cols: list[list[str]]
) -> None:
    measure = EntryLikeness()
    a = [" ".join(r) for r in rows]
    b = [" ".join(c) for c in cols]
    matrix = measure.scores(a, b)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            expected = likeness(measure.terms(x), measure.terms(y), None)
            assert abs(float(matrix[i, j]) - expected) < 1e-6
            assert expected == keyword_likeness(measure.terms(x), measure.terms(y))


def test_pointer_lines_are_compared_by_their_titles() -> None:
    """Case: issue 53's near-duplicate pairs in hot files: the months bench
    counted every two pointer lines a consolidation left in one note
    (`Family (Caroline): see memory/topics/family-caroline.md` beside
    `Kids (Caroline): see ...`) as near-duplicates, by the path words every
    pointer shares. A pointer says its title; two titles alike are still alike."""
    measure = EntryLikeness()
    family = "Family (Caroline): see memory/topics/family-caroline.md"
    kids = "Kids (Caroline): see memory/topics/kids-caroline.md"
    melanie = "Family (Melanie): see memory/topics/family-melanie.md"
    elsewhere = "Family (Caroline): see users/caroline.md"
    scores = measure.scores([family], [kids, melanie, elsewhere])
    assert float(scores[0, 0]) < 0.56 and float(scores[0, 1]) < 0.56
    assert float(scores[0, 2]) == 1.0
    assert measure.terms(family) == measure.terms("Family (Caroline)")
