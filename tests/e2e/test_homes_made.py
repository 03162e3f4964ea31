"""``make_home`` copies the home the real ``hearth init`` made first in a test
process: the copy must be what ``hearth init`` makes, or the tests that take it
test something else."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from tests.api.conftest import _first_home, isolated_env, make_home, make_home_by_init
from tests.conftest import git

#: What differs between two homes ``hearth init`` made a moment apart: the first
#: commit (its time, so its id) and what names it.
COMMIT_NAMED = (".git/refs/heads/main", ".git/logs/HEAD", ".git/logs/refs/heads/main")


def tree(root: Path) -> dict[str, tuple[str, int]]:
    """Every file and folder under ``root``: its kind and permission bits."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            st = path.lstat()
            kind = "dir" if stat.S_ISDIR(st.st_mode) else "link" if path.is_symlink() else "file"
            found[path.relative_to(root).as_posix()] = (kind, stat.S_IMODE(st.st_mode))
    found["."] = ("dir", stat.S_IMODE(root.lstat().st_mode))
    return found


def without_objects(found: dict[str, tuple[str, int]]) -> dict[str, tuple[str, int]]:
    return {path: what for path, what in found.items() if not path.startswith(".git/objects/")}


def objects(root: Path) -> tuple[dict[str, tuple[str, int]], set[int]]:
    """The objects git stores but the first commit, with their modes; and the
    modes of the folders that hold them."""
    head = git(root, "rev-parse", "HEAD").strip()
    found, folders = {}, set()
    for path, (kind, mode) in tree(root).items():
        if not path.startswith(".git/objects/"):
            continue
        if kind == "dir":
            folders.add(mode)
        elif path != f".git/objects/{head[:2]}/{head[2:]}":
            found[path] = (kind, mode)
    return found, folders


def commit_without_time(root: Path) -> list[str]:
    """The first commit's tree, parents, people and message, without its times."""
    lines = git(root, "cat-file", "-p", "HEAD").splitlines()
    return [
        line.rsplit(" ", 2)[0] if line.startswith(("author ", "committer ")) else line
        for line in lines
    ]


def test_a_copied_home_is_what_hearth_init_makes(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "user")
    (tmp_path / "user").mkdir()
    copied = make_home(tmp_path / "copied", env)
    # Into the next second: a commit's time is to the second, and a home init
    # makes in the same second as the first is the same commit.
    time.sleep(1.01 - time.time() % 1)
    made = make_home_by_init(tmp_path / "made", env)
    first = _first_home(env)  # the home init made first in this environment
    assert git(copied, "rev-parse", "HEAD") == git(first, "rev-parse", "HEAD")  # a copy
    assert git(copied, "rev-parse", "HEAD") != git(made, "rev-parse", "HEAD")  # made anew

    assert without_objects(tree(copied)) == without_objects(tree(made))
    assert objects(copied) == objects(made)
    for path, (kind, _) in sorted(without_objects(tree(made)).items()):
        if kind == "file" and path not in COMMIT_NAMED:
            assert (copied / path).read_bytes() == (made / path).read_bytes(), path
    assert commit_without_time(copied) == commit_without_time(made)
    assert git(copied, "ls-files", "--stage") == git(made, "ls-files", "--stage")

    # Nothing in the copy names the home it was copied from.
    for path, (kind, _) in tree(copied).items():
        if kind == "file":
            assert str(first).encode() not in (copied / path).read_bytes(), path
    assert git(copied, "status", "--porcelain", "--untracked-files=all") == ""
    git(copied, "fsck", "--strict")


def test_a_folder_with_files_is_initialized_not_replaced(tmp_path: Path) -> None:
    """A folder that holds files already is adopted by the real ``hearth init``."""
    make_home(tmp_path / "warm-up")
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.md").write_text("# Mine\n")
    make_home(home)
    assert "notes.md" in git(home, "ls-files").split()
    assert (home / "notes.md").read_text() == "# Mine\n"
