"""Entry operations on memory files (pure)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain.entries import (
    add_entry,
    clean_entry,
    find_entry,
    list_entries,
    remove_entry,
    replace_entry,
)
from hearth.errors import Conflict, EntryMissing, InvalidInput

MEMORY = (
    "# Memory\n\nIntro.\n\n## Entries\n\n- Likes tea\n- Lives in Lyon\n\n"
    "## Notes\n\n- not an entry\n"
)


def test_list_only_the_entries_section() -> None:
    assert [(e.number, e.text, e.line) for e in list_entries(MEMORY)] == [
        (1, "Likes tea", 7),
        (2, "Lives in Lyon", 8),
    ]


def test_add_replace_remove_by_text_and_number() -> None:
    added = add_entry(MEMORY, "Allergic to cats")
    assert [e.text for e in list_entries(added)] == [
        "Likes tea",
        "Lives in Lyon",
        "Allergic to cats",
    ]
    assert "- not an entry" in added
    replaced = replace_entry(added, "#2", "Lives in Paris")
    assert [e.text for e in list_entries(replaced)][1] == "Lives in Paris"
    removed = remove_entry(replaced, "Likes tea")
    assert [e.text for e in list_entries(removed)] == ["Lives in Paris", "Allergic to cats"]
    assert removed.count("## Entries") == 1 and removed.endswith("- not an entry\n")


def test_missing_entries_and_duplicates_are_refused() -> None:
    with pytest.raises(EntryMissing, match="#9"):
        find_entry(MEMORY, "#9")
    with pytest.raises(EntryMissing, match="Likes coffee"):
        remove_entry(MEMORY, "Likes coffee")
    with pytest.raises(Conflict, match="already there"):
        add_entry(MEMORY, "Likes tea")
    with pytest.raises(Conflict, match="already there"):
        replace_entry(MEMORY, "#1", "Lives in Lyon")
    with pytest.raises(InvalidInput):
        clean_entry("two\nlines")
    with pytest.raises(InvalidInput):
        clean_entry("   ")


def test_a_file_without_the_section_gets_one() -> None:
    text = add_entry("# User\n\n**Name:** Sam\n", "Prefers mornings")
    assert text.endswith("## Entries\n\n- Prefers mornings\n")
    assert [e.text for e in list_entries(text)] == ["Prefers mornings"]


@given(st.lists(st.text(alphabet="abc xyz-", min_size=1, max_size=20), max_size=8))
def test_adding_then_removing_gives_back_the_entries(items: list[str]) -> None:
    text = MEMORY
    kept: list[str] = []
    for item in items:
        try:
            text = add_entry(text, item)
        except (Conflict, InvalidInput):
            continue
        kept.append(clean_entry(item))
    assert [e.text for e in list_entries(text)][2:] == kept
    for item in kept:
        text = remove_entry(text, item)
    assert list_entries(text) == list_entries(MEMORY)


def test_an_entry_that_starts_with_a_dash_is_named_by_its_listed_text() -> None:
    """Found by the property above: "- - a" is stored as the entry "- a"."""
    text = add_entry(MEMORY, "- - a")
    assert [e.text for e in list_entries(text)][-1] == "- a"
    assert list_entries(remove_entry(text, "- a")) == list_entries(MEMORY)


def test_star_and_plus_bullets_are_entries_written_in_the_files_style() -> None:
    """Case (1) of the data-trust leftovers: '* ' and '+ ' bullets are entries as
    '- ' ones are; an add under a named section (USER.md's Context) takes the
    marker of the entries it joins, a replace keeps the entry's own marker, and
    a thematic break ('* * *') is a rule across the page, never an entry."""
    user = "# User\n\n## Preferences\n\n* Brief answers\n\n## Context\n\n+ Works in Porto\n"
    assert [e.text for e in list_entries(user)] == ["Brief answers", "Works in Porto"]
    added = add_entry(user, "Has two cats", section="Context")
    assert added.endswith("## Context\n\n+ Works in Porto\n+ Has two cats\n")
    assert replace_entry(added, "Brief answers", "Short answers").count("* Short answers\n") == 1
    ruled = "# Notes\n\n* Likes tea\n\n* * *\n\n* Lives in Lyon\n"
    assert [e.text for e in list_entries(ruled)] == ["Likes tea", "Lives in Lyon"]
    assert remove_entry(ruled, "Lives in Lyon") == "# Notes\n\n* Likes tea\n\n* * *\n\n"


def test_an_entry_wrapped_without_indentation_is_one_entry() -> None:
    """Hostile tester: markdown reads a line that follows a bullet
    with no blank line between, even at the margin, as the bullet's text (a
    lazy continuation line: what nano's hard wrap or a person pressing Enter in
    a plain editor writes). hearth reads only indented lines so, and this entry
    as "Bravo plays chess on": ``hearth memory list`` shows it cut, and
    ``hearth memory remove MEMORY.md '#1'`` leaves "Sundays at the club" behind
    as stray text; a sync against another machine's replacement of the entry
    keeps the fragment too. Reproduction: put the two lines below under
    ``## Entries`` of MEMORY.md, then ``hearth memory list MEMORY.md``."""
    text = "# M\n\n## Entries\n\n- Bravo plays chess on\nSundays at the club\n- Alpha likes tea\n"
    assert [e.text for e in list_entries(text)] == [
        "Bravo plays chess on Sundays at the club",
        "Alpha likes tea",
    ]
    assert "Sundays" not in remove_entry(text, "#1")
