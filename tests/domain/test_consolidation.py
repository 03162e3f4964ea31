"""Consolidation's pure rules (issue 53): a fold keeps every word, a move keeps
every entry, two values are never folded, the line left never takes an entry's
place twice, and the settings are checked."""

from __future__ import annotations

from collections import Counter

import pytest

from hearth.domain import consolidation, consolidation_settings
from hearth.domain.consolidation import Consolidation
from hearth.domain.entries import list_entries
from hearth.domain.settings import parse_settings
from hearth.errors import InvalidInput, StaleWrite

NOTE = "# Sam\n\n## Entries\n\n- Sam is allergic to cats\n- Sam is allergic to cats and dogs\n"


def test_a_fold_keeps_every_word_of_every_entry() -> None:
    texts = ["Sam is allergic to cats", "Sam is allergic to cats, dogs and horses", "Sam's cats!"]
    folded = consolidation.fold_text(texts)
    assert folded.startswith("Sam is allergic to cats, dogs and horses (also: ")
    assert consolidation.loses_words(folded, texts) == []
    assert consolidation.fold_text(["same words", "Same words"]) == "same words"


def test_two_values_are_never_folded() -> None:
    assert consolidation.differs_in_a_value("Sam lives in Braga", "Sam lives in Lisbon")
    assert consolidation.differs_in_a_value("Sam has 2 cats", "Sam has 3 cats")
    assert not consolidation.differs_in_a_value("Sam is allergic to cats", "Sam: allergic to cats")


def test_a_fold_whose_line_is_one_of_its_entries_keeps_that_entry() -> None:
    """The longest entry holding every word already: it stays, the other goes."""
    fold = Consolidation(
        consolidation.FOLD,
        "users/sam.md",
        ("Sam is allergic to cats", "Sam is allergic to cats and dogs"),
        "Sam is allergic to cats and dogs",
    )
    text, note = consolidation.apply(fold, NOTE, None)
    assert note is None
    assert [e.text for e in list_entries(text)] == ["Sam is allergic to cats and dogs"]


def test_a_move_keeps_every_entry_and_refuses_when_stale() -> None:
    move = Consolidation(
        consolidation.MOVE,
        "users/sam.md",
        ("Sam is allergic to cats", "Sam is allergic to cats and dogs"),
        "Allergies (Sam): see memory/topics/allergies-sam.md",
        "memory/topics/allergies-sam.md",
    )
    text, note = consolidation.apply(move, NOTE, None)
    assert note is not None and note.startswith("# Allergies (Sam)\n")
    kept = [e.text for e in list_entries(text)]
    assert kept == [move.leaves]
    assert Counter(e.text for e in list_entries(note)) == Counter(move.entries)
    assert consolidation.is_pointer(move.leaves)
    assert move.leaves not in consolidation.movable(text)
    with pytest.raises(StaleWrite, match="no longer holds"):
        consolidation.apply(move, text, note)


def test_clusters_leave_out_the_files_subject() -> None:
    texts = [f"Sam paints {w} in oil" for w in ("lakes", "boats", "hills")]
    texts += ["Sam runs on Sundays", "Sam reads at night", "Sam cooks rice"]
    words = {t: frozenset(t.lower().replace(" in ", " ").split()) for t in texts}
    found = consolidation.clusters(texts, lambda t: words.get(t, frozenset(t.lower().split())))
    assert [c.term for c in found] == ["paints"]
    assert set(found[0].texts) == set(texts[:3])


def test_the_settings_are_checked() -> None:
    assert parse_settings("").consolidation.soft_budget == consolidation_settings.SOFT_BUDGET
    settings = parse_settings("[consolidation]\nsoft_budget = 0.9\nremember_days = 7\n")
    assert settings.consolidation.soft_budget == 0.9
    assert settings.consolidation.remember_days == 7
    for bad in ("soft_budget = 1.2", "soft_budget = 0.5", "every_minutes = 0"):
        with pytest.raises(InvalidInput, match=r"\[consolidation\]"):
            parse_settings(f"[consolidation]\n{bad}\n")


TWIN = (
    "# Memory\n\n## Entries\n\n"
    "- Sam likes tea\n  - green, never black, from Kyoto\n"
    "- Sam likes tea\n- Sam likes tea a lot\n"
)


def test_a_fold_takes_out_the_entry_it_folded_not_its_twin_with_sub_bullets() -> None:
    """hostile: a fold (the card's Approve) removed the first entry reading its
    text, and when an entry with sub-bullets read the same as the one folded,
    that one went, with its sub-bullets' words ("Kyoto")."""
    texts = ("Sam likes tea", "Sam likes tea a lot")
    found = Consolidation("fold", "MEMORY.md", texts, consolidation.fold_text(texts))
    text, _ = consolidation.apply(found, TWIN, None)
    assert "  - green, never black, from Kyoto" in text
    assert [e.text for e in list_entries(text)] == ["Sam likes tea", "Sam likes tea a lot"]


def test_a_move_leaves_its_pointer_where_the_moved_entry_was() -> None:
    """hostile: a move put its pointer over the first entry reading the moved
    text, so an entry with sub-bullets of that text became the pointer (its
    sub-bullets under it) and the moved one stayed in the file."""
    found = Consolidation(
        "move",
        "MEMORY.md",
        ("Sam likes tea",),
        "Tea: see memory/topics/tea.md",
        destination="memory/topics/tea.md",
    )
    text, note = consolidation.apply(found, TWIN, None)
    assert "- Sam likes tea\n  - green, never black, from Kyoto\n" in text
    assert "- Tea: see memory/topics/tea.md\n- Sam likes tea a lot" in text
    assert note is not None and "- Sam likes tea" in note
