"""A home copied (``cp -a``, a backup restored, a move to another disk) while
its server runs: the copy's ``.git/hearth/server.json`` names the original's
server, which must never serve the copy's commands."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import make_home, start_server
from tests.conftest import git
from tests.e2e.run import hearth

pytestmark = pytest.mark.e2e


def test_a_copy_of_a_served_home_is_never_written_through_the_originals_server(
    tmp_path: Path,
) -> None:
    """Hostile tester: with the original's server running, ``cp -a home copy`` then
    ``hearth --home copy note ...`` answered "appended" and committed the note
    into the ORIGINAL home (the copy's server.json, copied along, named the
    original's live server and socket); the copy's own history had nothing.
    Reproduction: lived-in.sh DIR/home (its server starts on demand); cp -a
    DIR/home DIR/copy; hearth --home DIR/copy note "x"; git -C DIR/home log -1."""
    root = make_home(tmp_path / "home")
    server = start_server(root)
    try:
        copy = tmp_path / "copy"
        subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
        before = git(root, "rev-parse", "HEAD").strip()
        done = hearth("--home", str(copy), "note", "Written to the copy", "--title", "Copy")
        assert done.returncode == 0, done.stderr
        assert git(root, "rev-parse", "HEAD").strip() == before
        assert "daily: Copy" in git(copy, "log", "-1", "--format=%s")
    finally:
        assert server.stop() == 0
