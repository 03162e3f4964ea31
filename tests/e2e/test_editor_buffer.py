"""A write never rewrites a file with uncommitted edits (issue 35), tried with a
real editor: vim holds today's daily note in a buffer (with its swap file
beside it), saves an edit, runs ``hearth note`` from inside itself while the
buffer stays open, then saves the buffer again.

Before, the note was appended to the work-tree copy too: it landed inside the
person's edit, and the buffer saved afterwards dropped it. Now the note is
refused with the file named, the file on disk is exactly what vim wrote, and
nothing is lost: the person's lines are on disk, the note can be sent again
once the edit is committed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home
from tests.conftest import git

pytestmark = pytest.mark.skipif(shutil.which("vim") is None, reason="needs vim")


def test_a_note_while_vim_holds_the_daily_note_rewrites_nothing(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    hearth = str(BIN / "hearth")
    first = subprocess.run(
        [hearth, "--home", str(root), "note", "first entry", "--json"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    path = root / json.loads(first.stdout)["path"]
    head_before = git(root, "rev-parse", "HEAD").strip()
    on_disk_then = tmp_path / "on-disk-after-the-note.md"
    note_said = tmp_path / "note-said.txt"
    script = tmp_path / "edit.vim"
    script.write_text(
        "\n".join(
            [
                "$put ='person typing here'",
                "write",
                # The buffer stays open (swap file and all) while hearth writes.
                f"silent !{hearth} --home {root} note 'second entry' > {note_said} 2>&1;"
                f' echo "exit $?" >> {note_said}; cp {path} {on_disk_then}',
                "$put ='and more typing, saved later'",
                "write!",
                "quit",
            ]
        )
        + "\n"
    )
    # -es: Ex mode, no terminal; -N -u NONE: vim's defaults, no user vimrc; a swap
    # file is kept beside the note (no -n), as an editing session has.
    vim = subprocess.run(
        ["vim", "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", str(script), str(path)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
        cwd=root,
    )
    assert vim.returncode == 0, vim.stdout + vim.stderr
    said = note_said.read_text()
    assert "exit 1" in said, said
    assert "uncommitted edits" in said and path.relative_to(root).as_posix() in said, said
    # Between vim's two writes the file held exactly what vim had written.
    assert on_disk_then.read_text().endswith("person typing here\n")
    assert "second entry" not in on_disk_then.read_text()
    final = path.read_text()
    assert "first entry" in final
    assert "person typing here" in final and "and more typing, saved later" in final
    assert git(root, "rev-parse", "HEAD").strip() == head_before  # nothing committed
    # The person commits; the note then goes in as always, after their lines.
    git(root, "commit", "-qam", "my edit")
    again = subprocess.run(
        [hearth, "--home", str(root), "note", "second entry"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert again.returncode == 0, again.stderr
    assert path.read_text().startswith(final.rstrip("\n"))
    assert path.read_text().rstrip().endswith("second entry")
