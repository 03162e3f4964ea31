"""One real ``hearth serve`` and one headless Chromium (Debian's) per test module.

Chromium comes from the system's packages (``apt-get install chromium``; .ci/run
installs it) and is driven by Playwright's bundled driver; ``playwright
install`` is never needed. Without the browser the module is skipped with the
command that installs it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import Server, isolated_env, make_home, start_server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(__file__).resolve().parents[2] / "docs" / "ui"


@pytest.fixture(scope="module")
def ui_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    root = make_home(tmp_path_factory.mktemp("ui") / "home", env)
    server = start_server(root, env=env)
    server.env = env  # type: ignore[attr-defined]
    yield server
    assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium: apt-get update && apt-get install -y chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        found = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield found
        found.close()


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=True
    ).stdout


def at(page: object, path: str) -> str:
    """The address of the review page's ``path`` (``/ui/...``) at the session
    place of the browser ``page`` is logged in to (its address shows it)."""
    url: str = page.url  # type: ignore[attr-defined]
    found = re.match(r"(https?://[^/]+/ui/s/[\w-]+)/", url)
    assert found, f"not at a session's place: {url}"
    return found[1] + path.removeprefix("/ui")
