"""Another user of the machine gets nothing of a home (issue 49 case 5).

The other user is ``nobody``, played with ``setpriv`` (root needed); the tests
skip where the machine cannot play it.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.store.private import open_log, private_dir, write_file
from tests.e2e.run import BIN
from tests.e2e.test_cli_e2e import ok

SETPRIV = shutil.which("setpriv")
other_user = pytest.mark.skipif(
    SETPRIV is None or os.geteuid() != 0, reason="playing another user needs root and setpriv"
)


def as_nobody(*argv: str) -> subprocess.CompletedProcess[str]:
    assert SETPRIV is not None
    return subprocess.run(
        [SETPRIV, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", *argv],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder every user can reach (pytest's own is its owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="hearth-private-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@other_user
def test_a_new_home_is_its_owners_only_whatever_the_umask(shared_tmp: Path) -> None:
    """Issue 49 case 5: ``hearth init`` under umask 000 makes a home (and its git
    folder and hearth's folder) 0700; another user can list and read nothing."""
    home = shared_tmp / "home"
    done = subprocess.run(
        ["sh", "-c", 'umask 000 && exec "$0" init "$1"', str(BIN / "hearth"), str(home)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    ok("--home", str(home), "token", "create", "--name", "agent", "--scope", "read")
    ok("--home", str(home), "status")
    assert _mode(home) == 0o700
    assert _mode(home / ".git") == 0o700
    assert _mode(home / ".git" / "hearth") == 0o700
    assert _mode(home / ".git" / "hearth" / "tokens.json") == 0o600
    for target in ("MEMORY.md", ".git/config", ".git/hearth/tokens.json", ".git/hearth/index"):
        assert as_nobody("cat", str(home / target)).returncode != 0, target
    assert as_nobody("ls", str(home)).returncode != 0
    assert "chmod" not in ok("--home", str(home), "check")


@other_user
def test_an_adopted_readable_folder_warns_and_hides_hearths_state(shared_tmp: Path) -> None:
    """Issue 49 case 5: adopting a folder others can read keeps its mode but warns
    with the command that fixes it, as ``hearth check`` does; hearth's own folder
    inside is 0700 all the same."""
    home = shared_tmp / "notes"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    (home / "ideas.md").write_text("# Ideas\n\nmine\n")
    said = ok("init", str(home))
    assert f"chmod 700 {home}" in said and "warning" in said
    ok("--home", str(home), "token", "create", "--name", "agent", "--scope", "read")
    ok("--home", str(home), "status")
    checked = ok("--home", str(home), "check")
    assert f"chmod 700 {home}" in checked
    state_dir = home / ".git" / "hearth"
    assert _mode(state_dir) == 0o700
    assert as_nobody("cat", str(home / "ideas.md")).returncode == 0  # the person's choice, warned
    for target in ("tokens.json", "index", "write.lock"):
        assert as_nobody("ls", str(state_dir / target)).returncode != 0, target
    subprocess.run(["chmod", "700", str(home)], check=True)
    assert "chmod" not in ok("--home", str(home), "check")
    assert as_nobody("cat", str(home / "ideas.md")).returncode != 0


def test_hearths_own_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    """Issue 49 case 5: the folder, records and log hearth writes under
    ``.git/hearth`` are 0700 and 0600 even under umask 000, and an older hearth's
    0755 folder is tightened."""
    old = os.umask(0)
    try:
        folder = private_dir(tmp_path / "a" / "hearth")
        write_file(folder / "record.json", b"{}")
        os.close(open_log(folder / "server.log"))
        widened = tmp_path / "old"
        widened.mkdir(0o777)
        private_dir(widened)
    finally:
        os.umask(old)
    assert _mode(folder) == 0o700
    assert _mode(folder / "record.json") == 0o600
    assert _mode(folder / "server.log") == 0o600
    assert _mode(widened) == 0o700
