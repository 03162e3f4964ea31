"""hearth's git hooks from a Python whose path holds quotes, spaces, a "$" (issue 49 case 9)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from hearth import wiring
from tests.conftest import git


def _venv_in(folder: Path) -> Path:
    """A virtual environment at ``folder`` that runs this one's hearth; its python."""
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.symlink_to(sys.executable)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", folder / "pyvenv.cfg")
    (folder / "lib").symlink_to(Path(sys.prefix) / "lib")
    return python


def test_hooks_installed_from_a_venv_named_with_a_quote_check_and_never_block(
    tmp_path: Path,
) -> None:
    """Issue 49 case 9: hooks installed by a Python in a folder named
    ``it's "q" $(touch owned) x`` check commits (a secret is refused, a note
    goes in), run nothing out of the name, and a moved venv never blocks git."""
    python = _venv_in(tmp_path / 'it\'s "q" $(touch owned) x')
    home = tmp_path / "home"
    wiring.initialize(home)
    subprocess.run(
        [str(python), "-m", "hearth", "--home", str(home), "hooks", "install"],
        check=True,
        capture_output=True,
    )
    (home / "memory").mkdir(exist_ok=True)
    (home / "memory" / "keys.md").write_text("# Keys\n\nAKIAABCDEFGHIJKLMNOP\n")
    git(home, "add", "memory/keys.md")
    refused = subprocess.run(
        ["git", "commit", "-qm", "keys"], cwd=home, capture_output=True, check=False
    )
    assert refused.returncode != 0 and b"secret" in refused.stderr
    (home / "memory" / "keys.md").write_text("# Keys\n\nunder the mat\n")
    git(home, "add", "memory/keys.md")
    git(home, "commit", "-qm", "keys")
    assert not (home / "owned").exists() and not (tmp_path / "owned").exists()
    python.unlink()  # the venv is gone: git goes on, with a warning
    (home / "TOOLS.md").write_text("# Tools\n\nmore\n")
    done = subprocess.run(
        ["git", "commit", "-qam", "tools"], cwd=home, capture_output=True, check=False
    )
    assert done.returncode == 0 and b"is gone" in done.stderr
