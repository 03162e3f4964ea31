"""A hearth write that a racing ``git commit`` put back in the index is never reverted.

``git commit`` reads ``.git/index`` before it takes ``index.lock`` and writes
what it read back (``domain/stale_copy.py``). The race itself is found by
``tests/torture/test_person_git.py``; here its result is made on purpose
(``git update-index`` puts the older copy of the daily note back in the index,
as git's write does) and what follows is checked: the person's next commit,
through the real pre-commit hook, with a server and without, keeps hearth's
version; hearth's next write repairs the index; a person's own staged edit is
left alone. When the race meets hearth's first write to a file (the day's first
entry), git's older copy of the index has no entry for the file at all: the
same three checks hold for that index.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.api.conftest import hearth, make_home, start_server
from tests.conftest import git


def _two_notes(root: Path) -> tuple[str, str, str]:
    hearth("--home", str(root), "note", "first entry")
    daily = next(p for p in git(root, "ls-files", "memory").split() if p.startswith("memory/2"))
    older = git(root, "rev-parse", f"HEAD:{daily}").strip()
    hearth("--home", str(root), "note", "second entry")
    return daily, older, git(root, "rev-parse", f"HEAD:{daily}").strip()


def _race_result(root: Path, daily: str, older: str) -> None:
    """What git's write of its early read leaves: the index holds the older copy."""
    git(root, "update-index", "--cacheinfo", f"100644,{older},{daily}")
    assert "second entry" not in git(root, "show", f":{daily}")


@pytest.mark.parametrize("served", [False, True], ids=["hook-alone", "hook-asks-server"])
def test_the_persons_commit_keeps_hearths_write(tmp_path: Path, served: bool) -> None:
    root = make_home(tmp_path / "home")
    daily, older, newer = _two_notes(root)
    server = start_server(root) if served else None
    try:
        _race_result(root, daily, older)
        (root / "memory/topics").mkdir(parents=True, exist_ok=True)
        (root / "memory/topics/hand.md").write_text("# Hand\n\nby hand\n")
        git(root, "add", "memory/topics/hand.md")
        out = git(root, "commit", "-m", "hand")
    finally:
        if server is not None:
            assert server.stop() == 0
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [
        "memory/topics/hand.md"
    ]
    assert git(root, "rev-parse", f"HEAD:{daily}").strip() == newer
    assert "second entry" in git(root, "show", f"HEAD:{daily}")
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""
    assert out is not None


def test_hearths_next_write_repairs_the_index(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    daily, older, _ = _two_notes(root)
    _race_result(root, daily, older)
    hearth("--home", str(root), "note", "third entry")
    staged = git(root, "show", f":{daily}")
    assert "second entry" in staged and "third entry" in staged
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_persons_own_staged_edit_is_left_alone(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    daily, _, _ = _two_notes(root)
    path = root / daily
    path.write_text(path.read_text().replace("second entry", "second entry, corrected"))
    git(root, "add", daily)
    git(root, "commit", "-qm", "my correction")
    assert "corrected" in git(root, "show", f"HEAD:{daily}")
    # A revert the person staged and also made in the work tree is theirs too.
    path.write_text(path.read_text().replace(", corrected", ""))
    git(root, "add", daily)
    git(root, "commit", "-qm", "take it back")
    assert "corrected" not in git(root, "show", f"HEAD:{daily}")


def _first_note_race(root: Path) -> str:
    """Hearth's first write of the day creates the daily note; git's early read of
    the index, written back after it, has no entry for the note at all."""
    hearth("--home", str(root), "note", "first entry")
    daily = next(p for p in git(root, "ls-files", "memory").split() if p.startswith("memory/2"))
    git(root, "rm", "--cached", "-q", daily)
    assert daily not in git(root, "ls-files", "memory").split()
    return daily


@pytest.mark.parametrize("served", [False, True], ids=["hook-alone", "hook-asks-server"])
def test_a_race_with_the_days_first_write_keeps_the_note(tmp_path: Path, served: bool) -> None:
    """The index lost the entry of a note hearth's first write created: the
    person's next commit neither deletes the note nor carries it."""
    root = make_home(tmp_path / "home")
    daily = _first_note_race(root)
    created = git(root, "rev-parse", f"HEAD:{daily}").strip()
    server = start_server(root) if served else None
    try:
        (root / "memory/topics").mkdir(parents=True, exist_ok=True)
        (root / "memory/topics/hand.md").write_text("# Hand\n\nby hand\n")
        git(root, "add", "memory/topics/hand.md")
        git(root, "commit", "-m", "hand")
    finally:
        if server is not None:
            assert server.stop() == 0
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == [
        "memory/topics/hand.md"
    ]
    assert git(root, "rev-parse", f"HEAD:{daily}").strip() == created
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


def test_hearths_next_write_restores_a_lost_first_entry(tmp_path: Path) -> None:
    """The index lost the entry of a note hearth's first write created: hearth's
    next write to the note lands (not refused as a person's staged deletion) and
    puts the entry back."""
    root = make_home(tmp_path / "home")
    daily = _first_note_race(root)
    hearth("--home", str(root), "note", "second entry")
    staged = git(root, "show", f":{daily}")
    assert "first entry" in staged and "second entry" in staged
    assert git(root, "status", "--porcelain", "--untracked-files=no") == ""


def test_a_persons_own_untracking_of_their_note_is_left_alone(tmp_path: Path) -> None:
    """A note the person committed and then untracked (``git rm --cached``) is
    theirs to untrack: the hook lets the deletion through."""
    root = make_home(tmp_path / "home")
    (root / "memory/topics").mkdir(parents=True, exist_ok=True)
    (root / "memory/topics/mine.md").write_text("# Mine\n\nby hand\n")
    git(root, "add", "memory/topics/mine.md")
    git(root, "commit", "-qm", "mine")
    git(root, "rm", "--cached", "-q", "memory/topics/mine.md")
    git(root, "commit", "-qm", "untrack mine")
    assert "memory/topics/mine.md" not in git(root, "ls-tree", "-r", "--name-only", "HEAD")
