"""A fresh machine's first hour works from the README alone (issue 50, case 6):
after ``make run``, the README's bare ``hearth`` and ``git hearth`` work once
its PATH line is run, and a missing git identity is reported by ``hearth init``
and ``make run`` with the two commands that set it.

The installed CLI, the real git and make, HOME an empty folder and no git
identity in the environment (``GIT_CONFIG_NOSYSTEM=1``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import free_port

pytestmark = pytest.mark.e2e  # the installed executables and make in subprocesses

ROOT = Path(__file__).resolve().parents[2]
IDENTITY_LINES = ("git config --global user.name", "git config --global user.email")


def _fresh_machine(tmp_path: Path) -> dict[str, str]:
    """No identity: an empty HOME, no system config, none of git's identity variables."""
    userhome = tmp_path / "userhome"
    userhome.mkdir()
    drop = ("HEARTH_HOME", "EMAIL", "VIRTUAL_ENV")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k not in drop}
    path = [p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p]
    return {**env, "HOME": str(userhome), "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.pathsep.join(path)}


def _readme_path_block() -> str:
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    (block,) = [b for b in blocks if "PATH=" in b and ".venv/bin" in b]
    return block


def test_the_readmes_commands_work_bare_after_its_path_line(tmp_path: Path) -> None:
    """Case 6: ``hearth`` and ``git hearth`` as printed, after the README's PATH line."""
    env = _fresh_machine(tmp_path)
    home = tmp_path / "home"
    script = (
        f"set -e\ncd {ROOT}\n{_readme_path_block()}\n"
        f'export HEARTH_HOME="{home}"\nhearth init "$HEARTH_HOME" >/dev/null\n'
        'cd "$HEARTH_HOME"\nhearth note "Planned the garden with Sam." --title Garden\n'
        "git hearth review\n"
    )
    done = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, check=False, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is not a git command" not in done.stderr


def test_hearth_init_names_a_missing_git_identity_and_how_to_set_it(tmp_path: Path) -> None:
    """Case 6: ``hearth init`` on a machine where git knows no one."""
    env = _fresh_machine(tmp_path)
    hearth = ROOT / ".venv" / "bin" / "hearth"
    done = subprocess.run(
        [str(hearth), "init", str(tmp_path / "home")],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    for line in IDENTITY_LINES:
        assert line in done.stdout, done.stdout
    named = subprocess.run(
        [str(hearth), "init", str(tmp_path / "other")],
        capture_output=True,
        text=True,
        check=False,
        env={**env, "GIT_AUTHOR_NAME": "Pat", "GIT_AUTHOR_EMAIL": "pat@example.invalid",
             "GIT_COMMITTER_NAME": "Pat", "GIT_COMMITTER_EMAIL": "pat@example.invalid"},
    )  # fmt: skip
    assert named.returncode == 0 and "git config --global" not in named.stdout


def test_make_run_prints_the_path_line_and_a_missing_identity(tmp_path: Path) -> None:
    """Case 6: ``make run`` on a home that exists (so no init speaks) still says
    both, before it serves."""
    env = _fresh_machine(tmp_path)
    home = tmp_path / "home"
    subprocess.run(
        [str(ROOT / ".venv/bin/hearth"), "init", str(home)],
        capture_output=True,
        check=True,
        env=env,
    )
    run = subprocess.Popen(
        ["make", "--no-print-directory", "-C", str(ROOT), "run", f"PORT={free_port()}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**env, "HEARTH_HOME": str(home), "HEARTH_SEMANTIC": "off"},
        start_new_session=True,
    )
    said: list[str] = []
    try:
        assert run.stdout is not None
        for line in run.stdout:
            said.append(line)
            if "serving" in line:
                break
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=30)
        if run.stdout is not None:
            run.stdout.close()
    text = "".join(said)
    assert f'export PATH="{ROOT}/.venv/bin:$PATH"' in text, text
    for line in IDENTITY_LINES:
        assert line in text, text
