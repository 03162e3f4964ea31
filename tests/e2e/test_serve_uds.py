"""``hearth serve --uds PATH`` never deletes what is not a socket (issue 49 case 9)."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest

from hearth import wiring
from tests.e2e.run import BIN


@pytest.mark.parametrize("kind", ["file", "symlink", "folder", "live socket"])
def test_serve_refuses_a_uds_path_that_is_not_a_stale_socket(tmp_path: Path, kind: str) -> None:
    """Issue 49 case 9: a regular file, a symlink (and what it names), a folder or
    a socket another process listens on at PATH is left as it was; the server
    exits 1 saying why, before it serves anything."""
    home = tmp_path / "home"
    wiring.initialize(home)
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    path = tmp_path / "at-path"
    listener = None
    if kind == "file":
        path.write_text("keep me too\n")
    elif kind == "symlink":
        path.symlink_to(precious)
    elif kind == "folder":
        path.mkdir()
        (path / "inside").write_text("x")
    else:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        listener.listen(1)
    proc = subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(home), "serve", "--uds", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _, said = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:  # it served: PATH was taken over
        proc.terminate()
        proc.communicate(timeout=30)
        raise AssertionError(f"hearth serve took over {kind} at --uds PATH") from None
    finally:
        if listener is not None:
            listener.close()
    assert proc.returncode == 1 and said.startswith("hearth: ") and "Traceback" not in said
    assert str(path) in said
    assert ("another process listens" if listener else "is not a socket") in said
    assert precious.read_text() == "keep me\n"
    if kind == "file":
        assert path.read_text() == "keep me too\n"
    elif kind == "symlink":
        assert path.is_symlink()
    elif kind == "folder":
        assert (path / "inside").read_text() == "x"
    else:
        assert path.is_socket()
    assert not (home / ".git" / "hearth" / "server.json").exists()
