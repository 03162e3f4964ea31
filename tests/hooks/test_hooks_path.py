"""Nothing a remote sends runs (issue 49), through git's own hooks: hearth
installs its hooks only in a folder of the git directory. A ``core.hooksPath``
inside the work tree is committed content, so a commit from the remote could
add a ``post-merge`` or rewrite ``pre-commit`` there, and git would run it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hearth import wiring
from hearth.errors import Conflict
from hearth.hooks.install import hooks_folder
from tests.conftest import git


def test_a_hooks_path_in_the_work_tree_is_refused(tmp_path: Path) -> None:
    """A hostile tester's round: ``core.hooksPath = githooks`` (a folder of the
    work tree) was taken, and hearth's hooks went where sync writes; it is
    refused with the command that fixes it. A folder inside ``.git`` stays
    the clone's own and is taken."""
    root = tmp_path / "home"
    wiring.initialize(root)
    git(root, "config", "core.hooksPath", "githooks")
    with pytest.raises(Conflict, match="work tree"):
        hooks_folder(root)
    git(root, "config", "core.hooksPath", ".git/my-hooks")
    assert hooks_folder(root) == root / ".git" / "my-hooks"
