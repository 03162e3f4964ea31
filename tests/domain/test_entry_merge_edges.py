"""The entry merge against edits a hostile tester found people make (pure).

Each test names the scenario it came from: the merge either kept what both
sides meant, or lost, doubled or brought back an entry.
"""

from __future__ import annotations

import unicodedata

from hearth.domain.entries import list_entries
from hearth.domain.entry_fates import Item, fates
from hearth.domain.entry_merge import merge_entry_files

HEAD = "# Memory\n\n## Entries\n\n"


def entries_of(text: str) -> list[str]:
    return [unicodedata.normalize("NFC", e.text) for e in list_entries(text)]


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def test_an_entry_typed_composed_on_one_machine_and_decomposed_on_the_other_is_one_entry() -> None:
    """Unicode, NFC against NFD: both machines add "café au lait", one composed
    (é as one code point, as Linux types it), one decomposed (e + combining
    accent, as a macOS file system or editor may write it). It is one entry,
    not two that look the same."""
    base = HEAD + "- a\n"
    ours = base + "- café au lait\n"
    theirs = base + nfd("- café au lait\n")
    result = merge_entry_files(base, ours, theirs)
    assert entries_of(result.text) == ["a", "café au lait"]
    assert not result.conflicts


def test_an_editor_that_rewrites_the_file_decomposed_brings_back_no_removed_entry() -> None:
    """Unicode, a whole file saved NFD: one machine's editor writes every accent
    decomposed (no word changed); the other removes "Bea mora em Évora". The
    removal stands: re-encoding an entry is not writing it again."""
    base = HEAD + "- Sam likes café\n- Bea mora em Évora\n- plain\n"
    ours = nfd(base)
    theirs = HEAD + "- Sam likes café\n- plain\n"
    result = merge_entry_files(base, ours, theirs)
    assert entries_of(result.text) == ["Sam likes café", "plain"]
    assert not result.conflicts


def test_an_entry_kept_against_a_removal_keeps_the_blank_line_above_it() -> None:
    """A tab-indented sub-bullet against a removal: one machine adds a sub-bullet
    (a tab before its "- ") to the first entry, the other removes that entry.
    The entry stays (a conflict), where it stood: under the blank line that
    follows "## Entries", not above it, so the frame no side changed is kept."""
    base = HEAD + "- Alpha one\n- Beta two\n"
    ours = HEAD + "- Alpha one\n\t- since 2020\n- Beta two\n"
    theirs = HEAD + "- Beta two\n- Gamma three\n"
    result = merge_entry_files(base, ours, theirs)
    assert result.text == HEAD + "- Alpha one\n\t- since 2020\n- Beta two\n- Gamma three\n"
    (conflict,) = result.conflicts
    assert (conflict.kept, conflict.other) == ("Alpha one / - since 2020", None)


def test_star_and_plus_bullets_appended_on_both_machines_merge_as_entries() -> None:
    """Case (1) of the data-trust leftovers, entry merge: '*' and '+' bullets
    are entries. A person note written with '* ' bullets, one machine
    appends '* Ana has a dog', the other '+ Ana runs marathons'. Both are facts
    added at the end of a list: both kept, no conflict."""
    base = "# Ana\n\n* Ana likes jazz\n* Ana is a nurse\n"
    ours = base + "* Ana has a dog\n"
    theirs = base + "+ Ana runs marathons\n"
    result = merge_entry_files(base, ours, theirs)
    assert not result.frame_conflict
    assert result.text == base + "* Ana has a dog\n+ Ana runs marathons\n"


def test_renaming_the_entries_heading_makes_no_false_frame_conflict() -> None:
    """A heading renamed on one side while the other edits around it: one
    machine renames '## Entries' to '## Facts'; the other edits a bullet of the
    preamble's rules and adds an entry. Both changes, once each. (Which lines
    were entries was decided per version: the rename made the preamble's
    bullets entries on that side only, a false frame conflict that doubled
    them.)"""
    base = "# Memory\n\nRules:\n- keep it lean\n- one line each\n\n## Entries\n\n- A one\n- B two\n"
    ours = base.replace("## Entries", "## Facts")
    theirs = base.replace("- keep it lean", "- keep it very lean") + "- C three\n"
    result = merge_entry_files(base, ours, theirs)
    assert not result.frame_conflict
    assert result.text == theirs.replace("## Entries", "## Facts")


class _Counted(str):
    """A norm that counts how often the merge looks it up."""

    looks = 0

    def __hash__(self) -> int:
        _Counted.looks += 1
        return str.__hash__(self)

    __eq__ = str.__eq__


def test_a_side_of_thousands_of_new_entries_costs_linear_work() -> None:
    """Hostile remote: a commit added 50,000 entries to MEMORY.md; the merge
    driver of the next ``git pull`` (and ``hearth sync``) looked, for every new
    entry, along the whole list for its nearest kept neighbours (quadratic: 4,000
    entries took 0.7 s, 50,000 more than the sync's five minutes). Counted in
    lookups, not seconds: each entry is looked up a bounded number of times. A
    side that rewrote thousands of entries at once is in doubt, so each is a
    removal beside an addition, as the merge already decides in any doubt."""
    count = 3000
    base = [Item(_Counted("\x001\x00kept"), ("- kept",), "kept")]
    side = base + [
        Item(_Counted(f"\x001\0new {n}"), (f"- new {n}",), f"new {n}") for n in range(count)
    ]
    _Counted.looks = 0
    found = fates(base, side)
    assert len(found.added) == count and found.changed == {}
    assert _Counted.looks < 20 * count

    rewritten = [
        Item(f"\x001\0old entry {n} here", (), f"old entry {n} here") for n in range(count)
    ]
    edited = [Item(f"\x001\0new entry {n} here", (), f"new entry {n} here") for n in range(count)]
    found = fates(rewritten, edited)
    assert set(found.changed.values()) == {None} and len(found.added) == count
