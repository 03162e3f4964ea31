"""The trust record of commands a setting names (issue 49 case 1)."""

from __future__ import annotations

import datetime as dt
import stat
from pathlib import Path

from hearth.store.trust import CommandTrust, command_key

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.UTC)


def test_the_key_covers_the_argv_and_the_home_files_it_names(tmp_path: Path) -> None:
    """Issue 49 case 1: another argv, or a rewritten script of the home the argv
    names, is another command; a file outside the home is this machine's own."""
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "r.sh").write_text("echo {}\n")
    outside = tmp_path / "tool"
    outside.write_text("v1")
    first = command_key(home, ["sh", "bin/r.sh", str(outside)])
    assert first == command_key(home, ["sh", "bin/r.sh", str(outside)])
    assert first != command_key(home, ["sh", "bin/r.sh", str(outside), "-x"])
    outside.write_text("v2")
    assert first == command_key(home, ["sh", "bin/r.sh", str(outside)])
    (home / "bin" / "r.sh").write_text("id > /tmp/x\n")
    assert first != command_key(home, ["sh", "bin/r.sh", str(outside)])
    # The same file named absolutely, or climbing back in, is hashed all the same.
    absolute = command_key(home, ["sh", str(home / "bin" / "r.sh")])
    (home / "bin" / "r.sh").write_text("echo {}\n")
    assert absolute != command_key(home, ["sh", str(home / "bin" / "r.sh")])


def test_an_approval_is_kept_privately_outside_the_work_tree(tmp_path: Path) -> None:
    """Issue 49 cases 1 and 5: approving records the exact command in the state
    folder (mode 0600), and only that command counts as approved."""
    home = tmp_path / "home"
    state_dir = home / ".git" / "hearth"
    state_dir.mkdir(parents=True)
    trust = CommandTrust(home, state_dir)
    argv = ("llm", "--model", "local")
    assert not trust.approved(argv)
    trust.approve(argv, NOW)
    assert trust.approved(argv)
    assert not trust.approved(("llm", "--model", "remote"))
    assert stat.S_IMODE(trust.path.stat().st_mode) == 0o600
    assert trust.path.parent == state_dir
