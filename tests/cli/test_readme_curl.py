"""The README's curl block works as written with ``HEARTH_HOME`` and ``PORT``
set to what ``make run`` was given (issue 35: it assumed the default home and
port, and ``hearth token create`` then failed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.api.conftest import BIN, isolated_env, make_home, start_server

pytestmark = pytest.mark.e2e  # the README's curl block against a real server

ROOT = Path(__file__).resolve().parents[2]


def _curl_block() -> str:
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```sh\n(.*?)```", readme, re.S)
    (block,) = [b for b in blocks if "curl" in b and "token create" in b]
    return block


def test_the_readme_curl_block_runs_with_another_home_and_port(tmp_path: Path) -> None:
    env = {**os.environ, **isolated_env(tmp_path / "userhome")}
    env.pop("HEARTH_HOME", None)
    root = make_home(tmp_path / "elsewhere", env)
    server = start_server(root, env=env)  # on a free port, not 8979
    try:
        block = _curl_block()
        if not (ROOT / ".venv" / "bin" / "hearth").exists():
            block = block.replace(".venv/bin/hearth", str(BIN / "hearth"))
        # Each curl's answer on a line of its own, then checked as JSON.
        script = "set -e\n" + block.replace("curl -s ", "echo; curl -s --fail-with-body ")
        done = subprocess.run(
            ["bash", "-c", script],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
            env={**env, "HEARTH_HOME": str(root), "PORT": str(server.port)},
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
        assert len(answers) == 3, done.stdout
        assert "hits" in answers[0], answers[0]
        assert "error" not in answers[1] and answers[1], answers[1]
        assert answers[2]["changed"] is True, answers[2]
        assert server.port != 8979
    finally:
        server.stop()
