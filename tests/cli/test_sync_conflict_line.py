"""What ``hearth sync`` prints for each conflict it left."""

from __future__ import annotations

from pathlib import Path

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


def test_a_copy_of_a_file_that_stays_deleted_says_so(tmp_path: Path) -> None:
    """A file deleted on one side and changed on the other stays deleted; the
    copy is the changed version, maybe this machine's own edit (hostile pass):
    the line no longer calls it the remote's."""
    copy = "continuity/conflicts/memory/topics/van.md--abc1234.md"
    line = _sync_conflict_line(copy, tmp_path)
    assert line == (
        "conflict: memory/topics/van.md was deleted on one side and changed on the other; "
        f"it stays deleted, and the changed version is kept at {copy}"
    )
    (tmp_path / "memory/topics").mkdir(parents=True)
    (tmp_path / "memory/topics/van.md").write_text("# Van\n")
    assert _sync_conflict_line(copy, tmp_path) == f"conflict: the remote's version kept at {copy}"
