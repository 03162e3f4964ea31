"""A command's run imports only the module of this package that defines it
(issue 52, "CLI reads in 100 ms": the other commands' modules, and what they
import, are start-up for nothing); ``--help`` and ``hearth.cli.cli`` have them all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.cli import cli
from hearth.cli.support import COMMAND_MODULES

BIN = Path(sys.executable).parent

_DEFINED = """
import importlib, json
from hearth.cli import support
found = {}
for module in sorted(support.COMMAND_MODULES):
    before = set(support.cli.commands)
    importlib.import_module(f"hearth.cli.{module}")
    found[module] = sorted(set(support.cli.commands) - before)
print(json.dumps(found))
"""


def test_the_table_names_what_each_module_defines() -> None:
    """The table is what the modules register, command for command."""
    done = subprocess.run(
        [sys.executable, "-c", _DEFINED], capture_output=True, text=True, check=True
    )
    defined = json.loads(done.stdout)
    assert defined == {module: sorted(names) for module, names in COMMAND_MODULES.items()}
    assert set(cli.commands) == {n for names in COMMAND_MODULES.values() for n in names}


@pytest.mark.e2e
def test_a_command_imports_only_its_own_module(tmp_path: Path) -> None:
    """Case: ``hearth search`` loads ``cli/home.py`` and no other command's module."""
    root = tmp_path / "home"
    subprocess.run([str(BIN / "hearth"), "init", str(root)], check=True, capture_output=True)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hearth", "--home", str(root), "search", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    commands = {m for m in loaded if m.startswith("hearth.cli.")}
    assert commands == {"hearth.cli.support", "hearth.cli.home"}


@pytest.mark.e2e
def test_help_still_lists_every_command() -> None:
    done = subprocess.run(
        [str(BIN / "hearth"), "--help"], capture_output=True, text=True, check=True
    )
    listed = {line.split()[0] for line in done.stdout.split("Commands:")[1].splitlines() if line}
    assert listed == {n for names in COMMAND_MODULES.values() for n in names}
