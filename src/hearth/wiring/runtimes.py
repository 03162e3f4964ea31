"""Building ``hearth setup``'s use cases: the runtimes of the person running it
(``$HOME``, OpenClaw's state folder as OpenClaw finds it), with this ``hearth``
executable's absolute path. Part of the composition root (``wiring``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.wiring import default_actor, open_writes

if TYPE_CHECKING:
    from hearth.runtimes.openclaw_setup import OpenClawSetup
    from hearth.runtimes.setup import RuntimeSetup

# Start-up: what is built is imported where it is built (see ``wiring``).
# ruff: noqa: PLC0415


def runtime_setup(root: Path) -> RuntimeSetup:
    """``hearth setup``'s use cases for the home at ``root``, in the runtimes of the
    person running it (``$HOME``), with this ``hearth`` executable's absolute path."""
    import shutil
    import subprocess

    from hearth.runtimes.setup import RuntimeSetup

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
        )

    return RuntimeSetup(Path.home(), hearth_executable(), root, shutil.which, run)


def openclaw_setup(root: Path) -> OpenClawSetup:
    """``hearth setup openclaw`` for the home at ``root``, in the OpenClaw of the
    person running it (its state folder as OpenClaw finds it: ``$OPENCLAW_STATE_DIR``,
    else ``.openclaw`` in ``$OPENCLAW_HOME`` or the home folder)."""
    import shutil
    import subprocess

    from hearth.domain import layout
    from hearth.runtimes.openclaw_setup import OpenClawSetup

    def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL, timeout=300
        )

    def put_settings(text: str, message: str) -> None:
        open_writes(root).put(layout.SETTINGS_PATH, text.encode(), default_actor(), None, message)

    state = os.environ.get("OPENCLAW_STATE_DIR", "").strip()
    user = os.environ.get("OPENCLAW_HOME", "").strip() or str(Path.home())
    folder = Path(state).expanduser() if state else Path(user).expanduser() / ".openclaw"
    return OpenClawSetup(
        root,
        hearth_executable(),
        openclaw_plugin_dir(),
        folder / "extensions",
        shutil.which,
        run,
        put_settings,
    )


def openclaw_plugin_dir() -> Path:
    """hearth's memory plugin for OpenClaw: a folder of the package."""
    return Path(__file__).resolve().parents[1] / "openclaw_plugin"


def hearth_executable() -> str:
    """The absolute path of the ``hearth`` command running now (``git-hearth``'s
    sibling when run as that), else the one on PATH."""
    import shutil

    here = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if here is not None and here.name in ("hearth", "git-hearth") and here.exists():
        chosen = here.with_name("hearth")
        if chosen.exists():
            return str(chosen.absolute())
    found = shutil.which("hearth")
    if found:
        return str(Path(found).absolute())
    return str(Path(sys.executable).with_name("hearth"))
