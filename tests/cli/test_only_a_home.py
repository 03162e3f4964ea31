"""Only a home is a home (issue 35): an ordinary git repository, named with
``--home`` or ``HEARTH_HOME`` or holding the working folder, is refused by every
command but ``init``, with a message that says how to adopt it, and nothing at
all is written into it: the repository is the same byte for byte, ``.git/``
included."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import click
import pytest

from hearth.cli import cli
from tests.api.conftest import BIN, isolated_env
from tests.conftest import git

KEY = "x--6f1ed002-ab5d-5c5a-9b2f-1d1e1f0c1c1c"
#: Each command's arguments; the walk below fails for a command without any.
ARGS: dict[str, list[str]] = {
    "setup": ["claude-code"],
    "agent-hook": ["claude-code", "prompt"],
    "status": [],
    "search": ["hello"],
    "reindex": [],
    "active": [],
    "rollup": [],
    "check": [],
    "mcp": [],
    "memory list": ["MEMORY.md"],
    "memory add": ["MEMORY.md", "likes rain"],
    "memory replace": ["MEMORY.md", "#1", "likes snow"],
    "memory remove": ["MEMORY.md", "#1"],
    "memory conflicts": [],
    "memory settle": ["0123456789", "--keep", "other"],
    "topic": ["rain", "--append", "it rained"],
    "reflect": [],
    "consolidate": [],
    "note": ["hello"],
    "propose": ["--title", "t", "--entry", "e"],
    "proposals": [],
    "merge": [KEY],
    "reject": [KEY, "--reason", "no"],
    "loop add": ["--title", "t"],
    "loop resolve": [KEY],
    "loops": [],
    "put": ["x.md", "--from-file", "-"],
    "get": ["README"],
    "restore": ["README", "HEAD"],
    "history": ["README"],
    "decide": ["--title", "t", "--decision", "d"],
    "decisions": [],
    "decision withdraw": [KEY, "--reason", "r"],
    "watch": [],
    "serve": ["--port", "0"],
    "context": [],
    "token create": ["--name", "n", "--scope", "read"],
    "token list": [],
    "token revoke": ["n"],
    "sync": [],
    "review": [],
    "hooks install": [],
    "hook": ["pre-commit"],
}
#: Never fail their caller: an agent hook never fails the runtime's turn (DESIGN
#: section 11), a git hook never blocks git in a repository that is not a home.
#: Both exit 0 and print nothing there; they must still write nothing.
NEVER_FAILS = {"agent-hook", "hook"}


def _commands(group: click.Group, prefix: str = "") -> set[str]:
    found: set[str] = set()
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found |= _commands(command, f"{prefix}{name} ")
        else:
            found.add(prefix + name)
    return found


def _listing(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` (``.git/`` included): its content's
    digest, a link's target, or that it is a folder."""
    seen: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                seen[rel] = f"link {path.readlink()}"
            elif path.is_dir():
                seen[rel] = "dir"
            else:
                seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("a project, not a home\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "start")
    return root


def test_every_command_but_init_has_arguments_here() -> None:
    assert _commands(cli) - {"init"} == set(ARGS)


@pytest.mark.e2e  # every command, as the installed executable in a subprocess
@pytest.mark.parametrize("how", ["--home", "HEARTH_HOME", "working folder"])
def test_a_plain_repository_is_refused_and_left_as_it_was(
    project: Path, tmp_path: Path, how: str
) -> None:
    env = isolated_env(tmp_path / "userhome")
    (tmp_path / "userhome").mkdir()
    before = _listing(project)
    commands = sorted(ARGS) if how == "--home" else ["status", "note", "token create", "check"]
    for command in commands:
        argv = [*command.split(), *ARGS[command]]
        if how == "--home":
            argv = ["--home", str(project), *argv]
        run_env = {**env, "HEARTH_HOME": str(project)} if how == "HEARTH_HOME" else env
        proc = subprocess.run(
            [str(BIN / "hearth"), *argv],
            cwd=project,
            input="",
            capture_output=True,
            text=True,
            check=False,
            env=run_env,
            timeout=60,
        )
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
        if command in NEVER_FAILS:
            assert proc.returncode == 0 and proc.stdout == "", (command, proc.stdout)
        else:
            assert proc.returncode == 1, (command, proc.returncode, proc.stdout, proc.stderr)
            assert f"hearth init {project}" in proc.stderr, (command, proc.stderr)
        assert _listing(project) == before, command
    assert not (project / ".git" / "hearth").exists()
    assert not (project / "continuity").exists()


@pytest.mark.e2e  # the installed executable in subprocesses
def test_init_adopts_it_on_purpose(project: Path, tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "userhome")
    subprocess.run(
        [str(BIN / "hearth"), "init", str(project)], check=True, env=env, capture_output=True
    )
    assert (project / "hearth.toml").is_file()
    assert "hearth.toml" in git(project, "ls-files")
    proc = subprocess.run(
        [str(BIN / "hearth"), "--home", str(project), "note", "hello"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
