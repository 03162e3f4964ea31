"""The batch reader of a pass: what it reads and what it refuses, on real files."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth.domain.paths import normalize
from hearth.errors import PathRefused
from hearth.store.rooted import _PLAIN_PATH, RootedFiles


@pytest.fixture
def files(tmp_path: Path) -> Iterator[RootedFiles]:
    home = tmp_path / "home"
    (home / "memory/topics").mkdir(parents=True)
    rooted = RootedFiles(home)
    yield rooted
    rooted.close()


def test_it_reads_what_read_reads_and_nothing_for_a_missing_file(files: RootedFiles) -> None:
    big = os.urandom(300_000)  # more than one read's worth
    (files.root / "memory/topics/big.md").write_bytes(big)
    (files.root / "memory/topics/empty.md").write_bytes(b"")
    (files.root / "memory/topics/東京 notes.md").write_bytes("# 東京\n".encode())
    (files.root / "MEMORY.md").write_bytes(b"# Memory\n")
    paths = [
        "memory/topics/big.md",
        "memory/topics/empty.md",
        "memory/topics/東京 notes.md",
        "MEMORY.md",
        "memory/topics/gone.md",
        "nowhere/gone.md",
    ]
    with files.batch_reader() as read:
        got = {path: read(path) for path in paths}
    assert got == {path: files.read(path) for path in paths}
    assert got["memory/topics/big.md"] == big and got["memory/topics/empty.md"] == b""
    assert got["memory/topics/gone.md"] is None and got["nowhere/gone.md"] is None


def test_reading_many_with_a_limit_gives_nothing_for_a_bigger_file(files: RootedFiles) -> None:
    """A search reads hits' bodies with the limit of what a pass indexes: a
    file grown past it since is not read; neither is one it may not read."""
    (files.root / "memory/topics/big.md").write_bytes(b"x" * 1001)
    (files.root / "memory/topics/fits.md").write_bytes(b"x" * 1000)
    (files.root / "memory/topics/link.md").symlink_to(files.root / "memory/topics/fits.md")
    paths = ["memory/topics/fits.md", "memory/topics/big.md", "memory/topics/link.md"]
    assert files.read_many([*paths, "memory/topics/gone.md"], limit=1000) == {
        "memory/topics/fits.md": b"x" * 1000,
        "memory/topics/big.md": None,
        "memory/topics/link.md": None,
        "memory/topics/gone.md": None,
    }
    with files.batch_reader(1000) as read, pytest.raises(PathRefused, match="larger than 1000"):
        read("memory/topics/big.md")
    assert files.read_many(paths)["memory/topics/big.md"] == b"x" * 1001


def test_it_refuses_symlinks_fifos_and_paths_normalize_refuses(
    files: RootedFiles, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Outside\n")
    (files.root / "memory/topics/link.md").symlink_to(outside)
    (files.root / "memory/linked").symlink_to(tmp_path)
    os.mkfifo(files.root / "memory/topics/pipe.md")
    (files.root / ".git").mkdir()
    (files.root / ".git/config.md").write_text("x")
    refused = {
        "memory/topics/link.md": "is a symlink; hearth does not follow symlinks",
        "memory/linked/outside.md": "is a symlink or not a folder",
        "memory/topics/pipe.md": "is not a regular file",
        ".git/config.md": "enters .git",
        "../outside.md": "climbs out of the home",
        "/etc/passwd": "is absolute",
    }
    # A writer waiting on the FIFO would be let through if it were opened
    # blocking; opened non-blocking it is refused at once, with no writer.
    result: dict[str, str] = {}

    def read_all() -> None:
        with files.batch_reader() as read:
            for path in refused:
                try:
                    read(path)
                except PathRefused as exc:
                    result[path] = exc.message

    reader = threading.Thread(target=read_all, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive()
    assert set(result) == set(refused)
    for path, words in refused.items():
        assert words in result[path], (path, result[path])


def test_a_path_it_takes_as_it_is_is_one_normalize_returns_unchanged() -> None:
    plain = [
        "MEMORY.md",
        "memory/topics/t07/topic-03534.md",
        "memory/2026-01-02.md",
        "users/ana maria.md",
        "_drafts/a.b-c.md",
        "a" * 252 + ".md",
    ]
    other = [
        ".hidden/x.md",
        "memory/../x.md",
        "memory//x.md",
        "memory/./x.md",
        "./x.md",
        "/x.md",
        "C:x.md",
        "x.md/",
        " x.md",
        ".git/x.md",
        "memory/.GIT/x.md",
        "memory/東京.md",
        "a\\b.md",
        "a\nb.md",
        "a" * 253 + ".md",
    ]
    for path in plain:
        assert _PLAIN_PATH.fullmatch(path) and normalize(path) == path, path
    for path in other:
        assert _PLAIN_PATH.fullmatch(path) is None, path
