"""What ``hearth sync`` prints for each conflict it left."""

from __future__ import annotations

from hearth.cli.running import _sync_conflict_line


def test_an_entry_conflict_line_says_both_versions_are_in_the_file() -> None:
    """An entry conflict keeps both versions in the entry file; the record only
    names them. The line said "the other version kept at <record>", sending a
    person to the record for a version that is in the file."""
    line = _sync_conflict_line("continuity/conflicts/entries/MEMORY.md--abc123.md")
    assert "both versions in the file" in line
    assert "other version kept at" not in line
    assert line.endswith("continuity/conflicts/entries/MEMORY.md--abc123.md")


def test_a_whole_file_conflict_line_names_the_copy() -> None:
    copy = "continuity/conflicts/notes.md--abc1234.md"
    assert _sync_conflict_line(copy) == f"conflict: the remote's version kept at {copy}"
