"""Issue 49: another local user gets nothing from a running server.

The other user is played with ``setpriv --reuid=nobody`` where the machine
allows it (root, setpriv); those tests skip cleanly elsewhere.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import BIN, hearth, isolated_env
from tests.store.test_socket_folder import AS_NOBODY, can_play_another_user

pytestmark = pytest.mark.e2e


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A stand-in for /tmp (1777): the real /tmp/hearth-<uid> is other sessions'."""
    folder = Path(tempfile.mkdtemp(prefix="hearth-shared-tmp-", dir="/tmp"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_serve_refuses_a_socket_folder_another_user_made(tmp_path: Path, shared_tmp: Path) -> None:
    """Case 2: a home whose path is too long for a socket, and ``nobody`` made the
    fallback folder first with mode 777: ``hearth serve`` refuses, says why and
    what to do, and publishes no address (so no client hands over the key)."""
    if not can_play_another_user():
        pytest.skip("needs root and setpriv to play another local user")
    env = {**isolated_env(tmp_path / "user"), "TMPDIR": str(shared_tmp)}
    env.pop("XDG_RUNTIME_DIR", None)
    root = tmp_path / ("a-home-whose-path-is-long-" * 4)
    hearth("init", str(root), env=env)
    folder = shared_tmp / f"hearth-{os.getuid()}"
    subprocess.run([*AS_NOBODY, "mkdir", "-m", "777", str(folder)], check=True)
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "serve", "--port", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert str(folder) in proc.stderr and "not safe to use" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (root / ".git" / "hearth" / "server.json").exists()
    assert list(folder.iterdir()) == []
