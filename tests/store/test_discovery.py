"""Finding the home holding a folder: the plain walk (no libgit2) finds what libgit2
finds, and leaves every case it is not sure of to libgit2."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from hearth.store import discovery
from tests.conftest import git


def libgit2_work_tree(start: Path) -> Path | None:
    found = pygit2.discover_repository(str(start))
    if found is None:
        return None
    repo = pygit2.Repository(found)
    return None if repo.is_bare or repo.workdir is None else Path(repo.workdir)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A home with a nested folder, a plain repository beside it, a folder in neither."""
    home = tmp_path / "home"
    (home / "memory" / "topics").mkdir(parents=True)
    git(home, "init", "-q", "-b", "main")
    (home / "hearth.toml").write_text("")
    plain = tmp_path / "plain" / "deep"
    plain.mkdir(parents=True)
    git(plain.parent, "init", "-q", "-b", "main")
    (tmp_path / "nowhere").mkdir()
    (tmp_path / "link").symlink_to(home / "memory")
    return tmp_path


@pytest.mark.parametrize(
    "start", ["home", "home/memory/topics", "plain/deep", "plain", "nowhere", "link"]
)
def test_the_plain_walk_finds_what_libgit2_finds(tree: Path, start: str) -> None:
    folder = tree / start
    walked = discovery._plain_walk(folder)
    assert walked is not discovery._UNSURE
    expected = libgit2_work_tree(folder)
    if expected is None:
        # Outside any repository libgit2 may still find one above the test's folder.
        assert walked is None or walked == Path(str(expected))
    else:
        assert walked == Path(str(expected).rstrip("/"))


def test_homes_are_told_from_plain_repositories(tree: Path) -> None:
    assert discovery.discover_home(tree / "home" / "memory" / "topics") == tree / "home"
    assert discovery.discover_home(tree / "link") == tree / "home"
    assert discovery.discover_home(tree / "plain" / "deep") is None
    # hearth's local state is no mark (an older hearth wrote it into any repository
    # it was pointed at): only hearth.toml, which init writes, makes a home.
    (tree / "plain" / ".git" / "hearth").mkdir()
    assert discovery.discover_home(tree / "plain" / "deep") is None
    (tree / "plain" / "hearth.toml").write_text("")
    assert discovery.discover_home(tree / "plain" / "deep") == tree / "plain"


def test_anything_unusual_goes_to_libgit2(tree: Path) -> None:
    home = tree / "home"
    git(home, "add", "hearth.toml")
    git(home, "commit", "-q", "-m", "first")
    linked = tree / "linked"
    git(home, "worktree", "add", "-q", str(linked))
    assert discovery._plain_walk(linked) is discovery._UNSURE  # .git is a file
    assert discovery.discover_home(linked) == linked
    assert discovery._plain_walk(home / ".git") is discovery._UNSURE
    bare = tree / "bare.git"
    git(tree, "init", "-q", "--bare", str(bare))
    assert discovery._plain_walk(bare) is discovery._UNSURE
    assert discovery.discover_home(bare) is None
    git(home, "config", "core.worktree", str(tree / "elsewhere"))
    assert discovery._plain_walk(home) is discovery._UNSURE
