"""``hearth consolidate`` with the real executable (issue 53): it proposes the
move a person note past its soft budget needs, ``hearth proposals`` shows what
moves where, and ``hearth merge KEY`` approves it in one commit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.app.test_consolidation import ADOPTION, NOTE, PAINTING, filler, note_text
from tests.conftest import git
from tests.e2e.test_cli_e2e import ok, refused

pytestmark = pytest.mark.e2e  # the installed executable


def test_consolidate_proposes_and_merge_approves(tmp_path: Path) -> None:
    """Case: a hot file near its bound gets a proposal (the CLI's look), shown with
    what moves where; approving is one commit that leaves the pointer."""
    root = tmp_path / "home"
    ok("init", str(root))
    items = [*PAINTING, *ADOPTION]
    more = iter(filler(200))
    while len(note_text(items)) < 6900:
        items.append(next(more))
    (root / "users").mkdir()
    (root / NOTE).write_text(note_text(items))
    git(root, "add", NOTE)
    git(root, "commit", "-qm", "Caroline's note")
    made = json.loads(ok("--home", str(root), "consolidate", "--json", NOTE))["proposed"]
    assert made
    key = next(k for k in made if "paint" in k)
    listed = ok("--home", str(root), "proposals")
    assert "hearth's consolidation: these move to memory/topics/paint-caroline.md" in listed
    head = git(root, "rev-parse", "HEAD").strip()
    ok("--home", str(root), "merge", key)
    assert len(git(root, "rev-list", f"{head}..HEAD").split()) == 1
    text = (root / NOTE).read_text()
    assert "- Paint (Caroline): see memory/topics/paint-caroline.md" in text
    moved = (root / "memory/topics/paint-caroline.md").read_text()
    assert all(f"- {e}" in moved and f"- {e}" not in text for e in PAINTING)
    again = json.loads(ok("--home", str(root), "consolidate", "--json", NOTE))["proposed"]
    assert key not in again


def test_consolidate_refuses_a_file_that_is_not_hot(tmp_path: Path) -> None:
    """Bad input: a file without a bound, or a path out of the home, is exit 1 with
    a message, never a traceback."""
    root = tmp_path / "home"
    ok("init", str(root))
    said = refused("--home", str(root), "consolidate", "SOUL.md")
    assert "no size bound" in said
    said = refused("--home", str(root), "consolidate", "../../etc/passwd")
    assert "Traceback" not in said
