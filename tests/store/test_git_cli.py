"""The git CLI's status (store/git_cli.py) against libgit2's answers, on real repositories."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from hearth.store import git_cli
from hearth.store.remote import Remote
from hearth.store.repository import (
    branch,
    head_id,
    is_ignored,
    open_repository,
    worktree_changes,
)
from tests.conftest import git


def libgit2_view(root: Path) -> git_cli.WorkTreeStatus:
    """What hearth reads through libgit2: the same fields as ``git_cli.status``."""
    repo = open_repository(root)
    remote = Remote(root)
    found = remote.upstream()
    ahead = behind = 0
    if found is not None:
        where = remote.divergence(found.tracking)
        ahead, behind = where.ahead, where.behind
    return git_cli.WorkTreeStatus(
        head=head_id(repo),
        branch=branch(repo),
        upstream=None if found is None else found.tracking,
        ahead=ahead,
        behind=behind,
        changes=worktree_changes(repo),
    )


def same_as_libgit2(root: Path) -> git_cli.WorkTreeStatus:
    found = git_cli.status(root)
    assert found is not None
    assert found == libgit2_view(root)
    same_changes_as_libgit2(root)
    return found


def same_changes_as_libgit2(root: Path) -> None:
    """``git_cli.changes`` of the whole tree, of every file path one at a time
    and of all of them at once, against libgit2's answers."""
    repo = open_repository(root)
    whole = dict(worktree_changes(repo))
    assert git_cli.changes(root) == whole
    files = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if ".git" not in p.parts and (p.is_file() or p.is_symlink())
    }
    paths = sorted(files | set(whole) | {"never-there.md"})
    for path in paths:
        alone = {p: state for p, state in whole.items() if p == path}
        assert git_cli.changes(root, [path]) == alone, path
    assert git_cli.changes(root, paths) == whole
    assert git_cli.changes(root, []) == {}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.md").write_text("# A\n")
    (root / "b.md").write_text("# B\n")
    (root / "gone.md").write_text("# Gone\n")
    (root / "kept.md").write_text("# Kept\n")
    (root / ".gitignore").write_text("*.tmp\nbuild/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    return root


def test_an_unborn_branch(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "first.md").write_text("# First\n")
    found = same_as_libgit2(root)
    assert found.head is None and found.branch == "main"
    assert found.changes == [("first.md", "untracked")]


def test_every_kind_of_change(repo: Path) -> None:
    assert same_as_libgit2(repo).changes == []
    (repo / "a.md").write_text("# A edited\n")  # modified
    (repo / "b.md").write_text("# B staged\n")
    git(repo, "add", "b.md")
    (repo / "b.md").write_text("# B staged, then edited\n")  # staged+modified
    (repo / "gone.md").unlink()  # deleted, not staged
    git(repo, "rm", "-q", "--cached", "kept.md")  # deleted in the index, kept on disk
    (repo / "deep" / "er").mkdir(parents=True)
    (repo / "deep" / "er" / "new file é.md").write_text("# New\n")  # untracked, nested
    (repo / "scratch.tmp").write_text("ignored\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.md").write_text("ignored too\n")
    (repo / "added.md").write_text("# Added\n")
    git(repo, "add", "added.md")  # staged new
    found = same_as_libgit2(repo)
    assert dict(found.changes) == {
        "a.md": "modified",
        "added.md": "staged",
        "b.md": "staged+modified",
        "deep/er/new file é.md": "untracked",
        "gone.md": "modified",
        # Deleted from the index but still on disk: git lists it twice, libgit2 once.
        "kept.md": "untracked",
    }


def test_a_rename_and_a_typechange(repo: Path) -> None:
    git(repo, "mv", "a.md", "moved.md")
    (repo / "b.md").unlink()
    (repo / "b.md").symlink_to("kept.md")
    same_as_libgit2(repo)


def test_a_merge_conflict(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "a.md").write_text("# A on other\n")
    git(repo, "commit", "-q", "-am", "other")
    git(repo, "checkout", "-q", "main")
    (repo / "a.md").write_text("# A on main\n")
    git(repo, "commit", "-q", "-am", "main")
    git(repo, "merge", "-q", "other", check=False)
    found = same_as_libgit2(repo)
    assert ("a.md", "conflicted") in found.changes


def test_a_detached_head(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    found = same_as_libgit2(repo)
    assert found.branch is None and found.head == git(repo, "rev-parse", "HEAD").strip()


def test_an_upstream_ahead_and_behind(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "config", "branch.main.remote", "origin")
    git(repo, "config", "branch.main.merge", "refs/heads/main")
    # Configured but never fetched: libgit2 finds no upstream, nor does this.
    assert same_as_libgit2(repo).upstream is None
    git(repo, "push", "-q", "origin", "main")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    (other / "theirs.md").write_text("# Theirs\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "theirs")
    git(other, "push", "-q")
    (repo / "ours.md").write_text("# Ours\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "ours")
    git(repo, "fetch", "-q")
    found = same_as_libgit2(repo)
    assert (found.upstream, found.ahead, found.behind) == ("origin/main", 1, 1)


def test_an_intent_to_add_entry_goes_to_libgit2(repo: Path) -> None:
    (repo / "later.md").write_text("# Later\n")
    git(repo, "add", "-N", "later.md")
    assert git_cli.status(repo) is None


def test_not_a_repository(tmp_path: Path) -> None:
    assert git_cli.status(tmp_path) is None


def test_a_hooks_environment_does_not_redirect_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A hook runs with GIT_DIR and GIT_INDEX_FILE naming the repository it serves.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(elsewhere, "init", "-q", "-b", "other")
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / ".git" / "index"))
    found = git_cli.status(repo)
    assert found is not None and found.branch == "main"


def test_ignored_matches_libgit2(repo: Path) -> None:
    (repo / "notes").mkdir()
    (repo / "notes" / ".gitignore").write_text("draft-*.md\n!draft-keep.md\n")
    (repo / ".git" / "info" / "exclude").write_text("private.md\n")
    paths = [
        "a.md",  # tracked, not ignored
        "scratch.tmp",
        "build/out.md",  # inside an ignored folder
        "notes/draft-1.md",
        "notes/draft-keep.md",  # negated
        "private.md",  # info/exclude
        "deep/x.md",
        "has space.md",
    ]
    repo_ = open_repository(repo)
    expected = {p for p in paths if is_ignored(repo_, p)}
    assert git_cli.ignored(repo, paths) == expected
    assert expected == {"scratch.tmp", "build/out.md", "notes/draft-1.md", "private.md"}
    assert git_cli.ignored(repo, []) == set()


def test_an_answer_larger_than_a_pipe_holds(repo: Path) -> None:
    # Over 64 KiB of porcelain output: read as git writes it, none of it lost.
    folder = repo / ("a-folder-with-a-long-name-" * 3)
    folder.mkdir()
    for n in range(1500):
        (folder / f"untracked-note-number-{n:05d}.md").write_text("x\n")
    found = same_as_libgit2(repo)
    assert len(found.changes) == 1500


def test_no_git_to_run(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(repo / "nowhere"))
    assert git_cli.status(repo) is None  # the caller asks libgit2
    assert git_cli.changes(repo) is None
    assert git_cli.changes(repo, ["a.md"]) is None


def test_paths_are_taken_literally_and_a_folder_is_not_a_file(repo: Path) -> None:
    (repo / "[ab].md").write_text("# brackets\n")
    (repo / "a.md").write_text("# A edited\n")
    (repo / "*.md").write_text("# star\n")
    assert git_cli.changes(repo, ["[ab].md"]) == {"[ab].md": "untracked"}
    assert git_cli.changes(repo, ["*.md"]) == {"*.md": "untracked"}
    (repo / "deep").mkdir()
    (repo / "deep" / "x.md").write_text("# X\n")
    assert git_cli.changes(repo, ["deep"]) is None  # the caller reads the whole tree
    same_changes_as_libgit2(repo)


def test_a_git_that_hangs_is_stopped(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    hanging = bin_dir / "git"
    sleep = shutil.which("sleep")
    hanging.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'pid'}\nexec {sleep} 60\n")
    hanging.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setattr(git_cli, "GIT_TIMEOUT", 0.5)
    assert git_cli.status(repo) is None
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left running
        os.kill(pid, 0)
