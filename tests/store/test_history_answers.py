"""Remembered history answers are exactly what a full walk gives, after any move of HEAD."""

from __future__ import annotations

import pygit2

from hearth.store import history
from tests.conftest import Workspace


def walked(ws: Workspace, path: str, limit: int) -> list[str]:
    repo = pygit2.Repository(str(ws.root))
    head = repo.head.peel(pygit2.Commit)
    return [c.id for c in history._walk(repo, head, path, limit)]


def answered(ws: Workspace, path: str, limit: int) -> list[str]:
    repo = pygit2.Repository(str(ws.root))
    head = repo.head.peel(pygit2.Commit)
    return [c.id for c in history.path_history(repo, head, path, limit)]


VOICE = " I speak plainly, keep answers short and say what I do not know." * 2


def commit(ws: Workspace, path: str, text: str, message: str) -> None:
    ws.write(path, text + VOICE + "\n")
    ws.git("add", path)
    ws.git("commit", "-q", "--no-verify", "-m", message)


def test_answers_follow_head_through_commits_merges_and_resets(workspace: Workspace) -> None:
    ws = workspace
    for limit in (1, 3, 50):
        assert answered(ws, "SOUL.md", limit) == walked(ws, "SOUL.md", limit)
    # Commits on top: some touch SOUL.md, some do not (the incremental case).
    for n in range(6):
        path = "SOUL.md" if n % 2 else f"memory/topics/t{n}.md"
        commit(ws, path, f"# Soul\n\nVersion {n}.\n", f"change {n}")
        for limit in (1, 3, 50):
            assert answered(ws, "SOUL.md", limit) == walked(ws, "SOUL.md", limit)
            assert answered(ws, "TOOLS.md", limit) == walked(ws, "TOOLS.md", limit)
    assert len(answered(ws, "SOUL.md", 50)) >= 3
    # A merge on top (a full walk again), then HEAD moved back down (a reset).
    base = ws.git("rev-parse", "HEAD").strip()
    ws.git("checkout", "-qb", "side")
    commit(ws, "SOUL.md", "# Soul\n\nOn the side.\n", "side")
    ws.git("checkout", "-q", "main")
    commit(ws, "USER.md", "# User\n\nOn main.\n", "main")
    ws.git("merge", "-q", "--no-verify", "--no-edit", "side")
    for path in ("SOUL.md", "USER.md", "TOOLS.md"):
        assert answered(ws, path, 50) == walked(ws, path, 50)
    ws.git("reset", "-q", "--hard", base)
    for path in ("SOUL.md", "USER.md", "TOOLS.md"):
        assert answered(ws, path, 50) == walked(ws, path, 50)
        assert answered(ws, path, 1) == walked(ws, path, 1)
