"""Running the installed ``hearth`` the way a person does: into pipes, or on a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def hearth(
    *args: str, cwd: Path | None = None, stdin: str | None = None, exe: str = "hearth"
) -> subprocess.CompletedProcess[str]:
    """``hearth args`` with its output captured (not a terminal)."""
    return subprocess.run(
        [str(BIN / exe), *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
        text=True,
        env=os.environ.copy(),
    )


def on_terminal(*args: str, typed: str = "") -> tuple[int, str]:
    """Run ``hearth args`` with stdin, stdout and stderr on a pseudo-terminal
    (``typed``: what a person types there, read when the command asks)."""
    primary, secondary = pty.openpty()
    proc = subprocess.Popen(
        [str(BIN / "hearth"), *args],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        env=os.environ.copy(),
    )
    os.close(secondary)
    if typed:
        os.write(primary, typed.encode())
    shown = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # EIO: the terminal's other end is closed and drained
            break
        if not chunk:
            break
        shown += chunk
    os.close(primary)
    return proc.wait(), shown.decode(errors="replace")
