"""Terminal-safe (issues 49 and 54): ``hearth get`` printed a file's text raw to
the terminal, so a file brought by git could send escape sequences (clear the
screen, retitle the window, write the clipboard through OSC 52) to the person's
terminal, as every listing command no longer does. On a terminal they are now
shown visibly (into a pipe, click already strips them)."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

from hearth import wiring
from tests.api.conftest import BIN
from tests.conftest import git

EVIL = "# Yak\n\nplan \x1b]52;c;cm0gLXJmIH4=\x07 and \x1b[2J done\n"


def _home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    wiring.initialize(root)
    (root / "yak.md").write_text(EVIL)
    git(root, "add", "yak.md")
    git(root, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "from the remote")
    return root


def test_hearth_get_shows_escapes_visibly_on_a_terminal(tmp_path: Path) -> None:
    """A hostile tester's round: the OSC 52 and the clear-screen sequence reach a
    terminal as ␛, not as ESC."""
    root = _home(tmp_path)
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(BIN / "hearth"), "--home", str(root), "get", "yak.md"],
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=60,
            check=True,
        )
        os.close(follower)
        follower = -1
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    assert b"\x1b" not in out and b"\x07" not in out
    assert "\u241b]52;c;".encode() in out
