"""Entries a person wrapped at the margin (lazy continuation lines).

Markdown reads a line that follows a list item's text with no blank line
between as that item's text, even at the margin: what nano's hard wrap, a
person pressing Enter in a plain editor, or ``fmt`` of a list writes. Every
reader of entries (``entry_blocks``) reads it so, and the sync merge knows a
wrapped entry by what it says.
"""

from __future__ import annotations

import pytest

from hearth.domain.consolidation import movable
from hearth.domain.entries import (
    add_entry,
    entry_blocks,
    list_entries,
    remove_entry,
    replace_entry,
)
from hearth.domain.entry_merge import ConflictRecord, merge_entry_files, still_open

HEAD = "# M\n\n## Entries\n\n"


def texts(body: str) -> list[str]:
    return [e.text for e in list_entries(HEAD + body)]


def test_a_wrap_at_the_margin_is_the_entrys_text() -> None:
    """Case: wrap at margin. Listed whole, removed and replaced whole, and
    the entries it did not touch keep their wrapping byte for byte."""
    body = "- Bravo plays chess on\nSundays at the club\n- Alpha likes\ngreen tea\n"
    assert texts(body) == ["Bravo plays chess on Sundays at the club", "Alpha likes green tea"]
    assert remove_entry(HEAD + body, "#1") == HEAD + "- Alpha likes\ngreen tea\n"
    replaced = replace_entry(HEAD + body, "Bravo plays chess on Sundays at the club", "Bravo rests")
    assert replaced == HEAD + "- Bravo rests\n- Alpha likes\ngreen tea\n"
    added = add_entry(HEAD + body, "Carol sings")
    assert added == HEAD + body + "- Carol sings\n"


def test_a_margin_wrap_mixed_with_indented_continuation() -> None:
    """Case: mixed. Lines at the margin and indented ones, in either order,
    are one entry's text."""
    body = "- Bravo plays\n  chess on\nSundays\n    at the club\n- Alpha likes tea\n"
    assert texts(body) == ["Bravo plays chess on Sundays at the club", "Alpha likes tea"]
    assert remove_entry(HEAD + body, "#1") == HEAD + "- Alpha likes tea\n"


def test_a_margin_wrap_with_crlf_line_endings() -> None:
    """Case: CRLF. A file saved on Windows reads and writes the same, in its
    own line endings."""
    text = (HEAD + "- Bravo plays chess on\nSundays at the club\n- Alpha likes tea\n").replace(
        "\n", "\r\n"
    )
    assert list_entries(text.replace("\r\n", "\n"))[0].text == (
        "Bravo plays chess on Sundays at the club"
    )
    removed = remove_entry(text, "Bravo plays chess on Sundays at the club")
    assert removed == (HEAD + "- Alpha likes tea\n").replace("\n", "\r\n")
    blocks = entry_blocks([line.removesuffix("\r") for line in text.split("\n")])
    keys = [b.key for b in blocks]
    assert keys == ["Bravo plays chess on Sundays at the club", "Alpha likes tea"]


@pytest.mark.parametrize("stop", ["---", "-", "## Later", "1."])
def test_a_crlf_file_read_as_it_is_ends_a_wrap_where_markdown_does(stop: str) -> None:
    """Case: CRLF, read without converting its line endings (as the listing
    reads a committed file): a rule, an empty bullet, a heading or a number
    ending in "\r" still ends the entry."""
    text = f"{HEAD}- Bravo plays chess on\nSundays\n{stop}\nmore\n".replace("\n", "\r\n")
    assert list_entries(text)[0].text == "Bravo plays chess on Sundays"


def test_a_margin_wrap_then_a_sub_bullet() -> None:
    """Case: wrap then a sub-bullet. The wrapped text is the entry's, the
    sub-bullet stays its sub-bullet; a replacement keeps the sub-bullet."""
    body = "- Bravo plays chess on\nSundays at the club\n  - with Carol\n- Alpha likes tea\n"
    text = HEAD + body
    assert texts(body) == ["Bravo plays chess on Sundays at the club", "Alpha likes tea"]
    (block, _alpha) = entry_blocks(text.split("\n"))
    assert block.key == "Bravo plays chess on Sundays at the club\n- with Carol"
    replaced = replace_entry(text, "#1", "Bravo plays go")
    assert replaced == HEAD + "- Bravo plays go\n  - with Carol\n- Alpha likes tea\n"
    assert movable(text) == ["Alpha likes tea"]


def test_a_lazy_line_after_a_sub_bullet_is_the_sub_bullets() -> None:
    """Case: lazy line after a sub-bullet. It continues the sub-bullet's text
    (as markdown reads it), and goes with the entry when it is removed."""
    body = "- Bravo plays chess\n  - on Sundays\nat the club\n- Alpha likes tea\n"
    (block, _alpha) = entry_blocks((HEAD + body).split("\n"))
    assert block.key == "Bravo plays chess\n- on Sundays at the club"
    assert remove_entry(HEAD + body, "#1") == HEAD + "- Alpha likes tea\n"


@pytest.mark.parametrize(
    "stop",
    [
        "",
        "## Later",
        "### Sub heading",
        "- Next",
        "* Next",
        "+ Next",
        "1. Next",
        "2) Next",
        "```",
        "---",
        "***",
        "___",
        "> quoted",
        "<!-- a comment -->",
    ],
)
def test_a_lazy_line_ends_where_markdown_ends_it(stop: str) -> None:
    """A blank line, a heading, a new bullet (any marker, numbered too), a
    fence, a thematic break, a quote or a comment is no continuation: the line
    after it is not the entry's (a new bullet's own lazy line is that bullet's)."""
    body = f"- Bravo plays chess\n{stop}\ntext after\n"
    held = texts(body)
    assert held[0] == "Bravo plays chess"
    assert held[1:] == (["Next text after"] if stop[:2] in ("- ", "* ", "+ ") else [])


def test_entries_indented_four_spaces_stay_apart() -> None:
    """A list a person re-indented four spaces (or more) deep: each bullet at
    the entry's depth starts the next entry, a margin line still wraps one."""
    body = "    - Bravo plays chess\n    - Alpha likes\ngreen tea\n      - with milk\n"
    body += "  - Carol sings\n"
    assert texts(body) == ["Bravo plays chess", "Alpha likes green tea", "Carol sings"]
    assert entry_blocks((HEAD + body).split("\n"))[1].key == "Alpha likes green tea\n- with milk"


def test_a_margin_line_after_the_entries_of_an_adopted_file() -> None:
    """A file of plain bullets (no ``## Entries``) reads a margin wrap the same."""
    text = "- Bravo plays chess on\nSundays\n\nA paragraph.\n"
    assert [e.text for e in list_entries(text)] == ["Bravo plays chess on Sundays"]
    assert remove_entry(text, "#1") == "\nA paragraph.\n"


BASE = HEAD + "- Bravo plays chess on Sundays at the club\n- Alpha likes tea\n- Carol sings\n"


@pytest.mark.parametrize(
    "wrapped",
    [
        "- Bravo plays chess on\nSundays at the club\n",
        "- Bravo plays chess\non Sundays\nat the club\n",
        "- Bravo plays chess on\n  Sundays at the club\n",
        "  - Bravo plays chess on\nSundays at the club\n",
    ],
)
def test_a_rewrap_beside_a_replacement_merges_without_fragments(wrapped: str) -> None:
    """One side re-wraps (or re-indents) an entry at the margin, the other
    replaces another entry: the same entry to the merge, so the re-wrap is kept
    whole, the replacement applies, and no line is left over; whichever side
    merges."""
    ours = BASE.replace("- Bravo plays chess on Sundays at the club\n", wrapped)
    theirs = BASE.replace("- Alpha likes tea\n", "- Alpha likes coffee\n")
    expected = ours.replace("- Alpha likes tea\n", "- Alpha likes coffee\n")
    for merged in (merge_entry_files(BASE, ours, theirs), merge_entry_files(BASE, theirs, ours)):
        assert merged.text == expected
        assert not merged.conflicts and not merged.frame_conflict


def test_a_wrapped_entry_replaced_on_the_other_side_leaves_no_fragment() -> None:
    """The issue's sync: one side's entry is wrapped at the margin, the other
    replaces it (named as one line): the replacement applies, the wrapped
    line goes with its entry."""
    base = HEAD + "- Bravo plays chess on\nSundays at the club\n- Alpha likes tea\n"
    theirs = replace_entry(base, "#1", "Bravo plays go")
    ours = base.replace("- Alpha likes tea\n", "- Alpha likes tea\n- Dan runs\n")
    merged = merge_entry_files(base, ours, theirs)
    assert merged.text == HEAD + "- Bravo plays go\n- Alpha likes tea\n- Dan runs\n"
    assert not merged.conflicts


def test_an_open_entry_conflict_stays_open_when_a_version_is_wrapped() -> None:
    """Status and ACTIVE.md: an entry conflict is open while the file holds
    both versions; a person hard-wrapping one of them at the margin settles
    nothing (it is still the same version), and removing it does."""
    base = HEAD + "- Bravo plays chess\n- Alpha likes tea\n"
    ours = base.replace("chess\n", "chess on Sundays at the club\n")
    theirs = base.replace("chess\n", "chess on Mondays\n")
    merged = merge_entry_files(base, ours, theirs)
    (conflict,) = merged.conflicts
    record = ConflictRecord("x", "MEMORY.md", conflict.base, conflict.kept, conflict.other)
    wrapped = merged.text.replace("chess on Sundays at", "chess on\nSundays at")
    assert wrapped != merged.text and still_open(record, wrapped)
    settled = remove_entry(wrapped, "Bravo plays chess on Sundays at the club")
    assert not still_open(record, settled) and "Sundays" not in settled
