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
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home, start_server
from tests.conftest import FakeClock, git
from tests.e2e.test_cli_e2e import ok
from tests.e2e.test_entry_sync import clones

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


def test_an_agent_write_behind_vims_unsaved_buffer_is_refused_naming_the_swap_file(
    tmp_path: Path,
) -> None:
    """Issue 50, case 3: vim has MEMORY.md open with a typed line it has not
    saved (its swap file says so); an agent's memory add answers 409
    ``dirty_file`` naming ``.MEMORY.md.swp``, over HTTP and from the CLI, and
    the buffer saved afterwards loses nothing (on 2d32b4d the add answered 200
    and vim's save dropped it)."""
    env = isolated_env(tmp_path / "userhome")
    root = make_home(tmp_path / "home", env)
    server = start_server(root, env=env)
    hearth = str(BIN / "hearth")
    api_said, cli_said = tmp_path / "api.json", tmp_path / "cli.txt"
    body = tmp_path / "body.json"
    body.write_text(json.dumps({"entry": "The agent learned Sam likes figs."}))
    url = f"{server.url}/v1/memory/MEMORY.md/entries"
    script = tmp_path / "edit.vim"
    script.write_text(
        "\n".join(
            [
                # Typed, not saved: the swap file's "modified" flag is written at once.
                "$put ='- person typing here, not saved yet'",
                f"silent !curl -s -o {api_said} -w '\\%{{http_code}}' -X POST"
                f" -H 'Authorization: Bearer {server.tokens['write']}'"
                f" -H 'Content-Type: application/json' --data @{body} {url}"
                f" > {api_said}.status",
                f"silent !{hearth} --home {root} memory add MEMORY.md 'figs again'"
                f' > {cli_said} 2>&1; echo "exit $?" >> {cli_said}',
                "write",
                "quit",
            ]
        )
        + "\n"
    )
    try:
        vim = subprocess.run(
            ["vim", "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", str(script), "MEMORY.md"],
            capture_output=True,
            text=True,
            check=False,
            env={**env, "HEARTH_SERVER": "off"},
            timeout=120,
            cwd=root,
        )
    finally:
        assert server.stop() == 0
    assert vim.returncode == 0, vim.stdout + vim.stderr
    assert (tmp_path / "api.json.status").read_text() == "409"
    answer = json.loads(api_said.read_text())["error"]
    assert answer["code"] == "dirty_file", answer
    assert ".MEMORY.md.swp" in answer["message"], answer
    assert answer["detail"]["editor_locks"] == {"MEMORY.md": ".MEMORY.md.swp"}
    said = cli_said.read_text()
    assert "exit 1" in said and ".MEMORY.md.swp" in said, said
    final = (root / "MEMORY.md").read_text()
    assert "person typing here, not saved yet" in final
    assert "figs" not in final and "figs" not in git(root, "log", "-p", "-1")


def test_a_sync_never_brings_changes_under_vims_unsaved_buffer(
    tmp_path: Path, clock: FakeClock
) -> None:
    """Hostile tester: vim has MEMORY.md open with a line typed and not saved;
    the other machine added an entry. ``hearth sync`` fast-forwarded MEMORY.md
    under the buffer (while ``hearth memory add`` refused it, naming the swap
    file), so vim's save asked "The file has been changed since reading it",
    and a yes wrote the buffer over the incoming entry, which the next commit
    and sync removed on every machine. Reproduction: machines.sh DIR; on m0
    ``hearth memory add MEMORY.md X``, push; on m1 open MEMORY.md in vim, type
    a line, do not save; ``hearth sync`` in another terminal. Now the sync stops
    and names the swap file, as for a file with uncommitted edits."""
    other, mine = clones(tmp_path, clock, 2)
    ok("--home", str(other), "memory", "add", "MEMORY.md", "Sam's bike is the blue one")
    git(other, "push", "-q", "origin", "main")
    head = git(mine, "rev-parse", "HEAD").strip()
    said = tmp_path / "sync.txt"
    script = tmp_path / "edit.vim"
    script.write_text(
        "\n".join(
            [
                "$put ='- person typing here, not saved yet'",
                f"silent !{BIN / 'hearth'} --home {mine} sync > {said} 2>&1;"
                f' echo "exit $?" >> {said}',
                "write!",
                "quit",
            ]
        )
        + "\n"
    )
    vim = subprocess.run(
        ["vim", "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", str(script), "MEMORY.md"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HEARTH_SERVER": "off"},
        timeout=120,
        cwd=mine,
    )
    assert vim.returncode == 0, vim.stdout + vim.stderr
    out = said.read_text()
    assert "exit 1" in out and ".MEMORY.md.swp" in out, out
    assert git(mine, "rev-parse", "HEAD").strip() == head
    # Saved and committed, the person's line and the other machine's entry meet.
    git(mine, "commit", "-qam", "my edit")
    ok("--home", str(mine), "sync")
    final = (mine / "MEMORY.md").read_text()
    assert "person typing here" in final and "Sam's bike is the blue one" in final
