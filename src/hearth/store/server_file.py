"""``.git/hearth/server.json``: where a running server listens, written by the
server and read by the git hooks (in shell and Python) and the CLI.

One line of JSON (``json.dumps``'s default spacing: the hook shims read it in
shell), mode 0600 because it holds the server's hook key, replaced atomically.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hearth.store.state import SERVER


def publish(state_dir: Path, url: str, started: str | None, hook_key: str) -> None:
    """Say that this process serves the home at ``url``."""
    path = state_dir / SERVER
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{SERVER}.tmp")
    data = {"url": url, "pid": os.getpid(), "started": started, "hook_key": hook_key}
    temp.unlink(missing_ok=True)
    with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as out:
        out.write(json.dumps(data))
    temp.replace(path)


def forget(state_dir: Path) -> None:
    """Remove the file if this process wrote it (a newer server's stays)."""
    path = state_dir / SERVER
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    if isinstance(data, dict) and data.get("pid") == os.getpid():
        path.unlink(missing_ok=True)
