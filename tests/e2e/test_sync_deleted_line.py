"""What ``hearth sync`` prints when a file deleted on one machine was changed
on the other (hostile pass: a person's real edits on two machines)."""

from __future__ import annotations

from pathlib import Path

from hearth.domain import layout
from tests.conftest import FakeClock, git
from tests.e2e.run import hearth
from tests.e2e.test_entry_sync import make_machines

NOTE = "memory/topics/van.md"


def test_sync_says_an_edit_of_a_file_deleted_elsewhere_was_moved_aside(
    tmp_path: Path, clock: FakeClock
) -> None:
    """One machine deleted a topic note; the person added to it on this one
    and ran ``hearth sync``. The file stays deleted and this machine's version
    is the copy, yet the line said "the remote's version kept at <copy>", as if
    the person's edit were still in place."""
    gone, changed = make_machines(tmp_path, clock, 2)
    (gone.root / NOTE).parent.mkdir(parents=True)
    (gone.root / NOTE).write_text("# Van\n\nClutch slips in third.\n")
    git(gone.root, "add", NOTE)
    git(gone.root, "commit", "-qm", "van")
    gone.sync()
    changed.sync()
    git(gone.root, "rm", "-q", NOTE)
    git(gone.root, "commit", "-qm", "no more van")
    gone.sync()
    with (changed.root / NOTE).open("a") as note:
        note.write("Garage says 400 pounds.\n")
    git(changed.root, "commit", "-qam", "garage quote")

    done = hearth("--home", str(changed.root), "sync")

    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if "conflict" in line)
    copy = line.rsplit(" ", 1)[-1]
    assert copy.startswith(layout.CONFLICTS_DIR + "/")
    assert "Garage says 400 pounds." in (changed.root / copy).read_text()
    assert not (changed.root / NOTE).exists()
    assert "remote's version" not in line
    assert f"{NOTE} was deleted on one side and changed on the other" in line
    assert "it stays deleted, and the changed version is kept at" in line


def test_sync_still_says_the_remotes_version_when_this_one_stays_in_place(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Both machines changed a note's text two ways: this machine's version
    stays in place and the remote's is the copy, as the line says."""
    other, here = make_machines(tmp_path, clock, 2)
    (other.root / NOTE).parent.mkdir(parents=True)
    (other.root / NOTE).write_text("# Van\n\nClutch slips.\n")
    git(other.root, "add", NOTE)
    git(other.root, "commit", "-qm", "van")
    other.sync()
    here.sync()
    for machine, text in ((other, "Clutch fixed."), (here, "Clutch replaced.")):
        (machine.root / NOTE).write_text(f"# Van\n\n{text}\n")
        git(machine.root, "commit", "-qam", text)
    other.sync()

    done = hearth("--home", str(here.root), "sync")

    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if "conflict" in line)
    assert line.strip().startswith("conflict: the remote's version kept at ")
    assert (here.root / NOTE).read_text() == "# Van\n\nClutch replaced.\n"
