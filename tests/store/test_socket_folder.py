"""Issue 49 case 2: the server's socket folder is the user's alone, or refused.

A home whose path is too long for a socket gets one in ``$XDG_RUNTIME_DIR``,
else in ``<tmp>/hearth-<uid>/``, a folder hearth makes and then checks. Another
user who made that folder first (mode 777, so that they could swap the socket
for one of their own and be handed the hook key) gets nothing: hearth refuses
the folder and says why. The other user is played with ``setpriv``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.errors import HearthError
from hearth.store import server_file

AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def can_play_another_user() -> bool:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run([*AS_NOBODY, "true"], capture_output=True, check=False)
    return probe.returncode == 0


@pytest.fixture
def shared_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A temporary folder every user may write to, as /tmp is (sticky, 1777), standing
    in for it: the real /tmp/hearth-<uid> is other sessions' to use."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="hearth-shared-tmp-", dir="/tmp"))
    folder.chmod(0o1777)
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    yield folder
    tempfile.tempdir = None
    shutil.rmtree(folder, ignore_errors=True)


def long_state_dir(tmp_path: Path) -> Path:
    state = tmp_path / ("a-home-whose-path-is-long-" * 4) / ".git" / "hearth"
    state.mkdir(parents=True)
    assert len(os.fsencode(state / server_file.SOCKET)) > 108
    return state


def test_a_long_home_path_gets_a_private_folder_of_its_own(
    tmp_path: Path, shared_tmp: Path
) -> None:
    """Case 2: the fallback folder is made 0700 and owned by the user."""
    path = server_file.socket_path(long_state_dir(tmp_path))
    folder = shared_tmp / f"hearth-{os.getuid()}"
    assert path.parent == folder
    assert len(os.fsencode(path)) <= 108
    assert server_file.private_folder_fault(folder) is None
    assert oct(folder.stat().st_mode & 0o777) == oct(0o700)


def test_a_folder_another_user_made_first_is_refused(tmp_path: Path, shared_tmp: Path) -> None:
    """Case 2: ``nobody`` makes ``<tmp>/hearth-<uid>/`` first, mode 777: refused,
    with the folder named and what to do; nothing is put in it."""
    if not can_play_another_user():
        pytest.skip("needs root and setpriv to play another local user")
    folder = shared_tmp / f"hearth-{os.getuid()}"
    subprocess.run([*AS_NOBODY, "mkdir", "-m", "777", str(folder)], check=True)
    with pytest.raises(HearthError) as refused:
        server_file.socket_path(long_state_dir(tmp_path))
    message = str(refused.value)
    assert str(folder) in message
    assert "belongs to uid" in message
    assert "rm -r" in message
    assert list(folder.iterdir()) == []


@pytest.mark.parametrize("fault", ["mode", "symlink"])
def test_a_loose_or_linked_folder_of_the_user_is_refused(
    tmp_path: Path, shared_tmp: Path, fault: str
) -> None:
    """Case 2: the folder's own mode (0777) and a symbolic link are refused too."""
    folder = shared_tmp / f"hearth-{os.getuid()}"
    if fault == "mode":
        folder.mkdir()
        folder.chmod(0o777)
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir(mode=0o700)
        folder.symlink_to(elsewhere)
    with pytest.raises(HearthError, match="not safe to use"):
        server_file.socket_path(long_state_dir(tmp_path))


def test_xdg_runtime_dir_comes_first(
    tmp_path: Path, shared_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case 2: a private ``$XDG_RUNTIME_DIR`` is used before the temporary folder;
    one others may write to is not."""
    runtime = shared_tmp / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    state = long_state_dir(tmp_path)
    assert server_file.socket_path(state).parent == runtime
    runtime.chmod(0o777)
    assert server_file.socket_path(state).parent == shared_tmp / f"hearth-{os.getuid()}"


@pytest.mark.parametrize("fault", ["owner", "folder"])
def test_a_client_sends_its_key_only_to_a_socket_of_the_user_s(tmp_path: Path, fault: str) -> None:
    """Case 2, the clients' side: a socket another user owns, or one in a folder
    others may write to, is not where the CLI, the relay or agent-hook send the
    hook key (they take the server's loopback address instead)."""
    import json
    import socket

    from hearth.client import delegate

    if fault == "owner" and os.geteuid() != 0:
        pytest.skip("needs root to give a socket to another user")

    root = tmp_path / "home"
    state = root / ".git" / "hearth"
    state.mkdir(parents=True, mode=0o700)
    folder = tmp_path / "sockets"
    folder.mkdir(mode=0o700)
    path = folder / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        record = {"url": "http://127.0.0.1:9", "pid": os.getpid(), "hook_key": "k"}
        (state / "server.json").write_text(json.dumps({**record, "uds": str(path)}))
        found = delegate.find(root)
        assert found is not None and found.family == socket.AF_UNIX
        if fault == "owner":
            os.chown(path, 65534, 65534)
        else:
            folder.chmod(0o777)
        found = delegate.find(root)
        assert found is not None
        assert found.family == socket.AF_INET and found.address == ("127.0.0.1", 9)
