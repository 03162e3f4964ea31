"""An editor's lock beside a file (issue 50, case 3): vim's swap file and
emacs's lock link, live or stale, modified or not."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from hearth.store.editors import editor_lock


def _swap(pid: int, *, dirty: bool, host: str | None = None) -> bytes:
    block = bytearray(1024)
    block[0:2] = b"b0"
    block[2:9] = b"VIM 9.0"
    block[24:28] = pid.to_bytes(4, "little")
    name = (host if host is not None else socket.gethostname()).encode()[:39]
    block[68 : 68 + len(name)] = name
    block[108:117] = b"MEMORY.md"
    block[1007] = 0x55 if dirty else 0
    return bytes(block)


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_vims_swap_of_a_modified_buffer_holds_the_file(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / ".MEMORY.md.swo").write_bytes(_swap(os.getpid(), dirty=True))
    assert editor_lock(tmp_path, "memory/MEMORY.md") == "memory/.MEMORY.md.swo"
    assert editor_lock(tmp_path, "memory/USER.md") is None


def test_a_swap_that_holds_nothing_is_not_a_lock(tmp_path: Path) -> None:
    swap = tmp_path / ".MEMORY.md.swp"
    swap.write_bytes(_swap(os.getpid(), dirty=False))  # opened, nothing typed
    assert editor_lock(tmp_path, "MEMORY.md") is None
    swap.write_bytes(_swap(_dead_pid(), dirty=True))  # vim was killed: stale
    assert editor_lock(tmp_path, "MEMORY.md") is None
    swap.write_bytes(_swap(_dead_pid(), dirty=True, host="another-machine"))
    assert editor_lock(tmp_path, "MEMORY.md") == ".MEMORY.md.swp"  # cannot tell: held
    swap.write_bytes(b"not a swap file")
    assert editor_lock(tmp_path, "MEMORY.md") == ".MEMORY.md.swp"


def test_emacss_lock_link_holds_the_file_while_its_process_lives(tmp_path: Path) -> None:
    lock = tmp_path / ".#USER.md"
    lock.symlink_to(f"sam@{socket.gethostname()}.{os.getpid()}:1700000000")
    assert editor_lock(tmp_path, "USER.md") == ".#USER.md"
    lock.unlink()
    lock.symlink_to(f"sam@{socket.gethostname()}.{_dead_pid()}:1700000000")
    assert editor_lock(tmp_path, "USER.md") is None


def test_a_folder_listed_once_finds_the_same_locks(tmp_path: Path) -> None:
    """A commit of many files lists each folder once (``Folders``): the same
    answer as looking beside each file, for a live modified swap, a swap of an
    unmodified buffer, emacs's link, and files no editor holds."""
    from hearth.store.editors import Folders

    (tmp_path / "memory").mkdir()
    for name in ("MEMORY.md", "USER.md", "notes.md", "plain.md"):
        (tmp_path / "memory" / name).write_text("x\n")
    (tmp_path / "memory" / ".MEMORY.md.swn").write_bytes(_swap(os.getpid(), dirty=True))
    (tmp_path / "memory" / ".notes.md.swp").write_bytes(_swap(os.getpid(), dirty=False))
    (tmp_path / "memory" / ".#USER.md").symlink_to(f"sam@{socket.gethostname()}.{os.getpid()}:1")
    (tmp_path / ".SOUL.md.swp").write_bytes(b"not a swap file")
    paths = ["memory/MEMORY.md", "memory/USER.md", "memory/notes.md", "memory/plain.md"]
    paths += ["SOUL.md", "AGENTS.md", "gone/away.md"]
    folders = Folders(tmp_path)
    assert [folders.lock(p) for p in paths] == [editor_lock(tmp_path, p) for p in paths]
    assert [folders.lock(p) for p in paths] == [
        "memory/.MEMORY.md.swn",
        "memory/.#USER.md",
        None,
        None,
        ".SOUL.md.swp",
        None,
        None,
    ]


def test_init_adopting_many_files_stops_at_one_a_vim_buffer_holds(tmp_path: Path) -> None:
    """``hearth init`` of a folder of many files (the listed-once path) refuses,
    naming the swap, while vim holds one of them with unsaved changes."""
    import pytest

    from hearth import wiring
    from hearth.errors import DirtyFile

    root = tmp_path / "home"
    (root / "memory/topics").mkdir(parents=True)
    for n in range(40):
        (root / f"memory/topics/t{n}.md").write_text(f"# Topic {n}\n\nText {n}.\n")
    (root / "memory/topics/.t7.md.swp").write_bytes(_swap(os.getpid(), dirty=True))
    with pytest.raises(DirtyFile) as refused:
        wiring.initialize(root)
    assert "memory/topics/.t7.md.swp" in str(refused.value.detail)
