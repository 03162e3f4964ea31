"""Which runtimes ``hearth status`` and ``context --explain`` call wired to a home:
those whose MCP entry, as ``hearth setup`` wrote it, names that very home."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hearth.runtimes.known import RUNTIMES
from hearth.runtimes.setup import RuntimeSetup
from hearth.runtimes.wired import wired_runtimes


def _no_cli(argv: list[str]) -> subprocess.CompletedProcess[str]:
    raise AssertionError(f"ran {argv} though no CLI is installed")


def _home(path: Path) -> Path:
    (path / ".git").mkdir(parents=True)
    (path / "hearth.toml").write_text("")
    return path


def _wire(user: Path, home: Path, name: str) -> None:
    RuntimeSetup(user, "/opt/bin/hearth", home, lambda _: None, _no_cli).setup(name, trust=True)


@pytest.mark.parametrize("name", sorted(RUNTIMES))
def test_a_runtime_wired_to_another_home_is_not_wired_to_this_one(
    tmp_path: Path, name: str
) -> None:
    """hostile: the check was a substring of the entry's JSON, so a runtime
    wired to ``~/hearth-work`` counted as wired to ``~/hearth``, and status said
    that runtime was handed this home's persona when it was handed the other's."""
    user = tmp_path / "user"
    this, other = _home(tmp_path / "hearth"), _home(tmp_path / "hearth-work")
    _wire(user, other, name)
    assert name in wired_runtimes(other, user)
    assert name not in wired_runtimes(this, user)


@pytest.mark.parametrize("name", sorted(RUNTIMES))
def test_a_home_whose_path_is_not_ascii_is_seen_wired(tmp_path: Path, name: str) -> None:
    """hostile: JSON escapes a letter outside ASCII (``José`` as ``Jos\\u00e9``), so
    a home under such a folder was never seen wired, whatever setup had done."""
    user = tmp_path / "user"
    home = _home(tmp_path / "José" / "家")
    _wire(user, home, name)
    assert name in wired_runtimes(home, user)


def test_the_lean_table_of_mcp_files_is_the_runtimes_own() -> None:
    """``runtimes/wired.py`` spells each runtime's MCP file without loading
    ``known.py`` (the lean status path): the two say the same, in the same order."""
    from hearth.runtimes.known import RUNTIMES
    from hearth.runtimes.wired import MCP_FILES

    assert list(MCP_FILES) == [
        (r.name, r.mcp.file, r.mcp.format, r.mcp.key) for r in RUNTIMES.values()
    ]
