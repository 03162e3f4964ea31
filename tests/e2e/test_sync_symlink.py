"""Issue 49, case 3: a committed symlink never makes a sync, the merge driver,
settle or restore write outside the home, and a sync that fails leaves no
merge in progress and says why."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth.errors import HearthError
from tests.conftest import FakeClock, git
from tests.e2e.test_entry_cases import edit, seed
from tests.e2e.test_entry_sync import Machine, make_machines, run_git


def _linked(tmp_path: Path, clock: FakeClock) -> tuple[Machine, Machine, Path]:
    """Two machines whose home holds a committed ``continuity/conflicts`` symlink
    to a folder outside the home."""
    outside = tmp_path / "outside"
    outside.mkdir()
    a, b = make_machines(tmp_path, clock, 2)
    (a.root / "continuity").mkdir(exist_ok=True)
    (a.root / "continuity" / "conflicts").symlink_to(outside)
    git(a.root, "add", "continuity/conflicts")
    git(a.root, "commit", "-qm", "a hostile link", "--no-verify")
    a.sync()
    b.sync()
    assert (b.root / "continuity" / "conflicts").is_symlink()
    return a, b, outside


def test_a_sync_never_writes_through_a_committed_symlink(tmp_path: Path, clock: FakeClock) -> None:
    """Both sides edit TOOLS.md, whose conflict copy would go under the link:
    the sync stops, writes nothing outside, leaves no merge in progress, says why."""
    a, b, outside = _linked(tmp_path, clock)
    edit(a, lambda t: t + "\nThe laptop's tool.\n", path="TOOLS.md")
    a.sync()
    edit(b, lambda t: t + "\nThe desktop's tool.\n", path="TOOLS.md")
    head = git(b.root, "rev-parse", "HEAD")
    with pytest.raises(HearthError) as stopped:
        b.sync()
    assert "stopped and was undone" in stopped.value.message
    assert "continuity/conflicts" in stopped.value.message
    assert list(outside.iterdir()) == []
    assert not b.app.syncer.remote.operation_in_progress()
    assert git(b.root, "rev-parse", "HEAD") == head
    assert git(b.root, "status", "--porcelain", "--untracked-files=no") == ""


def test_an_entry_conflict_writes_no_record_through_the_link(
    tmp_path: Path, clock: FakeClock
) -> None:
    """An entry changed two ways, merged by a plain ``git pull`` (the driver) and
    by ``hearth sync``: no record lands outside the home."""
    a, b, outside = _linked(tmp_path, clock)
    seed(a, b, "Sam lives in Porto")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    a.sync()
    b.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
    pulled = run_git(b.root, "pull", "-q", "--no-rebase", "--no-edit")
    assert pulled.returncode == 0, pulled.stderr
    assert list(outside.iterdir()) == []
    git(b.root, "reset", "-q", "--hard", "HEAD~1")
    with pytest.raises(HearthError):
        b.sync()
    assert list(outside.iterdir()) == []
    assert not b.app.syncer.remote.operation_in_progress()


def test_restore_refuses_a_path_under_a_symlink(tmp_path: Path, clock: FakeClock) -> None:
    """A file once in a folder that a later commit made a symlink out of the home:
    restoring it is refused, and nothing is written outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (machine,) = make_machines(tmp_path, clock, 1)
    root = machine.root
    (root / "continuity" / "conflicts").mkdir(parents=True, exist_ok=True)
    (root / "continuity" / "conflicts" / "x.md").write_text("# x\n")
    git(root, "add", "continuity/conflicts/x.md")
    git(root, "commit", "-qm", "a copy", "--no-verify")
    old = git(root, "rev-parse", "HEAD").strip()
    git(root, "rm", "-q", "-r", "continuity/conflicts")
    (root / "continuity").mkdir(exist_ok=True)
    (root / "continuity" / "conflicts").symlink_to(outside)
    git(root, "add", "continuity/conflicts")
    git(root, "commit", "-qm", "a hostile link", "--no-verify")
    with pytest.raises(HearthError):
        machine.app.restore("continuity/conflicts/x.md", old, "person")
    assert list(outside.iterdir()) == []
