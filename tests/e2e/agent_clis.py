"""The runtimes' CLIs from npm, installed once per machine for every clone of hearth.

They live under ``$HEARTH_AGENT_CLIS``, else ``$XDG_CACHE_HOME/hearth/agent-clis``
(``~/.cache/hearth/agent-clis``), one folder per package and version: an install
is hundreds of megabytes unpacked, a minute of CPU that a clean clone repeated
when the folder lay inside the clone. The folder is read at import, before any
test points ``HOME`` at its scratch folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CLIS = Path(
    os.environ.get("HEARTH_AGENT_CLIS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hearth" / "agent-clis"
)


def npm_install(prefix: Path, packages: tuple[str, ...], path: str) -> None:
    """``npm install packages`` into ``prefix`` (staged, then renamed; a clone that
    installed it meanwhile wins). Skips the test, saying why, without npm or when
    the install fails (no network)."""
    npm = shutil.which("npm", path=path)
    if npm is None or shutil.which("node", path=path) is None:
        pytest.skip(f"npm and node are needed to install {', '.join(packages)}")
    staging = prefix.with_name(f"{prefix.name}.partial-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    done = subprocess.run(
        [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", *packages],
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env={**os.environ, "PATH": path},
    )
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.skip(f"npm install {' '.join(packages)} failed: {done.stderr.strip()[-500:]}")
    try:
        staging.rename(prefix)
    except OSError:  # another clone's install landed first: it is the same packages
        shutil.rmtree(staging, ignore_errors=True)
