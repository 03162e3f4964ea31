"""Entries named and added whatever Unicode form an accent was written in."""

from __future__ import annotations

import unicodedata

import pytest

from hearth.domain.entries import add_entries, add_entry, list_entries, remove_entry, replace_entry
from hearth.errors import Conflict

NFD_FILE = unicodedata.normalize("NFD", "# M\n\n## Entries\n\n- Sam likes café\n- plain\n")


def test_an_entry_saved_decomposed_is_named_by_its_composed_text() -> None:
    """NFC against NFD: a file saved decomposed (e + combining accent, as a macOS
    editor may write it); the person types "café" composed. remove and replace
    find the entry instead of saying no entry reads it."""
    removed = remove_entry(NFD_FILE, "Sam likes café")
    assert [e.text for e in list_entries(removed)] == ["plain"]
    replaced = replace_entry(NFD_FILE, "Sam likes café", "Sam likes tea")
    assert [e.text for e in list_entries(replaced)] == ["Sam likes tea", "plain"]


def test_an_entry_already_there_decomposed_is_not_added_again() -> None:
    """NFC against NFD: adding "Sam likes café" composed to a file that holds it
    decomposed adds nothing: it is the same entry."""
    assert add_entries(NFD_FILE, ["Sam likes café"])[1] == []
    with pytest.raises(Conflict):
        add_entry(NFD_FILE, "Sam likes café")
