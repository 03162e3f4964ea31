"""What ``hearth hook NAME`` runs, and the post hooks' pass in the background.

- ``pre-commit``: :mod:`hearth.hooks.precommit` (the shim asks a running
  server first and starts Python only when none answers).
- ``post-commit``, ``post-merge``, ``post-checkout`` and ``post-rewrite``
  only say "something may have changed" (level, not edge). The shims nudge a
  running server without starting Python; without a server they start a
  pass detached (:mod:`hearth.hooks.background`) and return, so a commit
  never waits for a reconcile pass. ``hearth hook NAME`` run by hand does
  the pass in the foreground, giving up quickly if another hearth holds the index. They
  never fail the git command, and print one line: what was indexed, pending
  proposals, open loops.

libgit2 runs no hooks, so hearth's own commits call the same validation
directly (``app/writes/writer.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from hearth import wiring
from hearth.domain import layout
from hearth.domain.text import counted
from hearth.errors import HearthError
from hearth.hooks.precommit import pre_commit
from hearth.store import active_records, server_file, state
from hearth.store.repository import GitError

#: Seconds a hook run by hand waits for another hearth's pass before skipping its own.
HOOK_LOCK_SECONDS = 2.0


def server_running(state_dir: Path) -> str | None:
    """The URL of a live server for this home, from ``server.json``."""
    try:
        data = json.loads((state_dir / layout.SERVER_FILE).read_text())
        pid = int(data["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(data, dict) or not server_file.names_this_home(data, state_dir):
        return None
    if not server_file.alive(pid, data.get("since")):
        return None
    return str(data.get("url", ""))


def post(name: str, root: Path, lock_seconds: float = HOOK_LOCK_SECONDS) -> str:
    """Reconcile after a git operation: the one line to show; never raises."""
    try:
        return _post(root, lock_seconds)
    except (HearthError, OSError, GitError) as exc:
        message = exc.message if isinstance(exc, HearthError) else str(exc)
        return f"hearth: {name}: index not updated ({message}); run 'hearth reindex'"


def _post(root: Path, lock_seconds: float) -> str:
    home = wiring.open_writes(root)
    counts = (
        f"{counted(len(active_records.list_records(home.files, 'proposal')), 'pending proposal')}, "
        f"{counted(len(active_records.list_records(home.files, 'loop')), 'open loop')}"
    )
    url = server_running(home.store.state_dir)
    if url is not None:
        (home.store.state_dir / state.NUDGE).write_text(str(os.getpid()))
        return f"hearth: told the server at {url} to reconcile; {counts}"
    if not (home.store.state_dir / state.INDEX_DIR).exists():
        return f"hearth: no search index yet (run 'hearth reindex'); {counts}"
    report = wiring.open_app(root, lock_timeout=lock_seconds).reconcile()
    status = "fresh" if not report.errors else counted(len(report.errors), "error")
    return (
        f"hearth: indexed {report.indexed} changed, {report.removed} removed "
        f"({counted(report.scanned, 'file')}, {status}); {counts}"
    )


def run(name: str, root: Path) -> int:
    """``hearth hook NAME``, in the foreground."""
    if name == "pre-commit":
        return pre_commit(root)
    print(post(name, root))
    return 0
