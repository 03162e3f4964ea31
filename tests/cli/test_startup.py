"""How the entry points start and leave (docs/cli.md, "Start-up"): a light run
(``--help``, a usage error, ``status`` answered without a pass) runs without the
cyclic garbage collector and leaves without the interpreter's teardown; a
command that does real work gets both back before it starts. Driven through
``main`` in fresh interpreters, on real homes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses

BIN = Path(sys.executable).parent


def _entry(
    argv: list[str], *, before: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``hearth.cli.main(argv)`` in a fresh interpreter, after the ``before`` code."""
    code = f"{before}\nfrom hearth.cli import main\nmain({argv!r})\n"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=cwd
    )


#: Registers an exit handler that says whether the garbage collector is on as
#: the interpreter ends (a handler also keeps the exit a normal one).
_REPORT_GC = "import atexit, gc\natexit.register(lambda: print('gc at exit:', gc.isenabled()))\n"


def _settled_home(tmp_path: Path) -> Path:
    root = tmp_path / "home"
    subprocess.run([str(BIN / "hearth"), "init", str(root)], capture_output=True, check=True)
    past = time.time() - 60
    for path in root.rglob("*"):
        if ".git" not in path.relative_to(root).parts:
            os.utime(path, (past, past), follow_symlinks=False)
    status = [str(BIN / "hearth"), "--home", str(root), "status", "--verbose"]
    subprocess.run(status, capture_output=True, check=True)  # the pass that settles it
    how = subprocess.run(status, capture_output=True, text=True, check=True).stderr
    assert "read without a reconcile pass" in how
    return root


def test_a_light_run_prints_all_of_its_output_through_a_pipe(tmp_path: Path) -> None:
    root = _settled_home(tmp_path)
    done = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "status", "--json", "--verbose"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["home"] == str(root)
    assert done.stderr.startswith("hearth: status read without a reconcile pass")
    helped = subprocess.run(
        [str(BIN / "hearth"), "--help"], capture_output=True, text=True, check=False
    )
    assert helped.returncode == 0
    assert helped.stdout.startswith("Usage: hearth [OPTIONS] COMMAND [ARGS]...")
    assert helped.stdout.rstrip().splitlines()[-1].split()[0] == "watch"  # the last command
    wrong = subprocess.run(
        [str(BIN / "hearth"), "status", "--bogus"], capture_output=True, text=True, check=False
    )
    assert wrong.returncode == 2
    assert "No such option '--bogus'" in wrong.stderr


#: An object the interpreter's teardown finalizes (printing a line); os._exit does not.
_REPORT_TEARDOWN = (
    "class _Witness:\n    def __del__(self): print('torn down')\n_witness = _Witness()\n"
)


def test_a_light_run_skips_the_teardown_and_a_heavy_one_does_not(tmp_path: Path) -> None:
    root = _settled_home(tmp_path)
    light = _entry(["--home", str(root), "status"], before=_REPORT_TEARDOWN)
    assert light.returncode == 0, light.stderr
    assert any(line.startswith("index: fresh") for line in light.stdout.splitlines())
    assert "torn down" not in light.stdout
    noted = _entry(["--home", str(root), "note", "otters"], before=_REPORT_TEARDOWN)
    assert noted.returncode == 0, noted.stderr
    assert noted.stdout.splitlines()[-1] == "torn down"


def test_exit_handlers_registered_before_a_light_run_still_run(tmp_path: Path) -> None:
    root = _settled_home(tmp_path)
    done = _entry(["--home", str(root), "status"], before=_REPORT_GC)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"home: {root}"
    assert lines[-1] == "gc at exit: False"  # status read without a pass: still light
    helped = _entry(["--help"], before=_REPORT_GC)
    assert helped.returncode == 0
    assert helped.stdout.splitlines()[-1] == "gc at exit: False"


def test_a_command_that_does_work_runs_with_the_collector_and_exits_normally(
    tmp_path: Path,
) -> None:
    root = _settled_home(tmp_path)
    noted = _entry(["--home", str(root), "note", "otters are back"], before=_REPORT_GC)
    assert noted.returncode == 0, noted.stderr
    assert noted.stdout.splitlines()[-1] == "gc at exit: True"
    # status after an edit runs a pass: no longer light.
    (root / "MEMORY.md").write_text("# Memory\n\n- the otters came back\n")
    after = _entry(["--home", str(root), "status", "--verbose"], before=_REPORT_GC)
    assert after.returncode == 0, after.stderr
    assert "after a reconcile pass" in after.stderr
    assert after.stdout.splitlines()[-1] == "gc at exit: True"
    # An error after real work: the normal exit, with its message and status.
    failed = _entry(["--home", str(root), "get", "no/such.md"], before=_REPORT_GC)
    assert failed.returncode == 1
    assert failed.stderr.startswith("hearth: ")
    assert failed.stdout.splitlines()[-1] == "gc at exit: True"


def test_a_settled_status_starts_no_subprocess_machinery(tmp_path: Path) -> None:
    # git is spawned directly (store/git_cli.py): importing subprocess would
    # cost status about as much as git's own run.
    root = _settled_home(tmp_path)
    done = _entry(
        ["--home", str(root), "status"],
        before="import atexit, sys\n"
        "atexit.register(lambda: print('loaded:', 'subprocess' in sys.modules))\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "loaded: False"
