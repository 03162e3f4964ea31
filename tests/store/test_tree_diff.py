"""store/tree_diff.py: the files two commits differ in, against libgit2's tree diff,
on real repositories made with the git CLI."""

from __future__ import annotations

import itertools
import random
import shutil
from pathlib import Path

import pygit2
import pytest

from hearth.store import tree_diff
from hearth.store.tree_diff import changed_paths
from tests.conftest import git


def libgit2_paths(repo: pygit2.Repository, old: str, new: str) -> list[str]:
    a = repo.revparse_single(old).peel(pygit2.Tree)
    b = repo.revparse_single(new).peel(pygit2.Tree)
    deltas = a.diff_to_tree(b).deltas
    return sorted({p for d in deltas for p in (d.old_file.path, d.new_file.path)})


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def test_every_kind_of_change_between_every_pair_of_commits(root: Path) -> None:
    # Names that sort differently as bytes, as a folder ("a/" after "a-b" and
    # "a.md") and as Python strings; a big flat folder changed in its middle.
    flat = [f"memory/topics/note-{n:04d}.md" for n in range(400)]
    for path in [*flat, "a.md", "a-b.md", "a/x.md", "ab/y.md", "é.md", "sp ace.md", "z.md"]:
        write(root, path, f"{path}\n")
    commits = [commit(root, "first")]
    write(root, flat[200], "changed in the middle\n")
    commits.append(commit(root, "one in the middle"))
    (root / flat[0]).unlink()
    write(root, "memory/topics/note-0199b.md", "added among them\n")
    commits.append(commit(root, "one removed, one added"))
    (root / "z.md").chmod(0o755)
    commits.append(commit(root, "a mode alone"))
    (root / "a.md").unlink()
    write(root, "a.md/inside.md", "a file became a folder\n")
    shutil.rmtree(root / "ab")
    write(root, "ab", "a folder became a file\n")
    commits.append(commit(root, "swaps"))
    (root / "link.md").symlink_to("z.md")
    commits.append(commit(root, "a symlink"))
    commits.append(commit(root, "nothing"))
    rng = random.Random(5)
    for step in range(6):
        for path in rng.sample(flat[1:], 5):
            write(root, path, f"{step} {rng.random()}\n")
        commits.append(commit(root, f"step {step}"))
    repo = pygit2.Repository(str(root))
    for old, new in itertools.permutations(commits, 2):
        assert sorted(changed_paths(repo, old, new, 10_000) or []) == libgit2_paths(
            repo, old, new
        ), (old, new)
    assert changed_paths(repo, commits[5], commits[6], 10) == []
    assert changed_paths(repo, commits[0], commits[1], 10) == [flat[200]]
    assert changed_paths(repo, commits[3], commits[4], 10) == [
        "a.md",
        "a.md/inside.md",
        "ab",
        "ab/y.md",
    ]


def test_a_limit_and_kept_answers(root: Path) -> None:
    for n in range(30):
        write(root, f"n{n:02d}.md", "one\n")
    old = commit(root, "first")
    for n in range(0, 30, 2):
        write(root, f"n{n:02d}.md", "two\n")
    new = commit(root, "fifteen changed")
    repo = pygit2.Repository(str(root))
    expected = [f"n{n:02d}.md" for n in range(0, 30, 2)]
    # Asked first with a small limit (kept as "more than 5"), then larger, then
    # smaller again: each answer is the one a fresh walk gives.
    assert changed_paths(repo, old, new, 5) is None
    assert changed_paths(repo, old, new, 4) is None
    assert changed_paths(repo, old, new, 15) == expected
    assert changed_paths(repo, old, new, 14) is None
    assert changed_paths(repo, old, new, 100) == expected
    found = changed_paths(repo, old, new, 100)
    assert found is not None
    found.append("changed by the caller")  # a copy: what is kept stays
    assert changed_paths(repo, old, new, 100) == expected
    assert changed_paths(repo, "nope", new, 10) is None
    assert changed_paths(repo, old, "HEAD", 100) == expected  # any revision names a commit


def test_trees_kept_stay_within_their_bounds(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tree_diff, "TREES_KEPT", 3)
    monkeypatch.setattr(tree_diff, "_trees", tree_diff.OrderedDict())
    monkeypatch.setattr(tree_diff, "_answers", tree_diff.OrderedDict())
    commits = []
    for n in range(6):
        write(root, f"d{n}/f.md", f"{n}\n")
        commits.append(commit(root, f"c{n}"))
    repo = pygit2.Repository(str(root))
    for old, new in itertools.pairwise(commits):
        assert changed_paths(repo, old, new, 10) == [f"d{commits.index(new)}/f.md"]
        assert len(tree_diff._trees) <= 3
