"""What the git hooks run (``hearth hook NAME``), installed as shims by init.

- ``pre-commit`` checks the *staged* blobs (what the commit will hold, not
  the work tree) against the validation rules and stops the commit on a
  failure, naming the file, the rule and the fix. ``git commit --no-verify``
  skips it; ``hearth check`` still reports the problem afterwards.
- ``post-commit``, ``post-merge``, ``post-checkout`` and ``post-rewrite`` only
  say "something may have changed" (level, not edge): when a server runs for
  this home they nudge it (a touch of ``.git/hearth/nudge``, which its watcher
  turns into a full pass); otherwise they run a reconcile pass here, giving
  up quickly if another hearth holds the index. They never fail the git
  command, and print one line: what was indexed, pending proposals, open loops.

libgit2 runs no hooks, so hearth's own commits call the same validation
directly (``Home._commit``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

from hearth import wiring
from hearth.domain import layout
from hearth.domain.settings import Settings, parse_settings
from hearth.domain.validation import RuleFailure, check_blob
from hearth.errors import HearthError
from hearth.store import catalog, state
from hearth.store.repository import GitError, staged_blobs

#: Seconds a hook waits for another hearth's reconcile pass before skipping its own.
HOOK_LOCK_SECONDS = 2.0


def staged_failures(root: Path) -> list[RuleFailure]:
    """The validation rules over every file the next commit would add or change."""
    blobs, settings_data = staged_blobs(root)
    settings = Settings()
    if settings_data is not None:
        with contextlib.suppress(HearthError):
            settings = parse_settings(settings_data.decode("utf-8", "replace"))
    failures: list[RuleFailure] = []
    for path, data in blobs:
        failures += check_blob(path, data, settings.bounds)
    return failures


def pre_commit(root: Path) -> int:
    failures = staged_failures(root)
    if not failures:
        return 0
    print("hearth: commit stopped by the validation rules:", file=sys.stderr)
    for failure in failures:
        print(f"  {failure.describe()}", file=sys.stderr)
    print(
        "hearth: fix the files and 'git add' them again "
        "(or commit with --no-verify and see 'hearth check')",
        file=sys.stderr,
    )
    return 1


def server_running(state_dir: Path) -> str | None:
    """The URL of a live server for this home, from ``server.json``."""
    try:
        data = json.loads((state_dir / layout.SERVER_FILE).read_text())
        pid = int(data["pid"])
        os.kill(pid, 0)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return str(data.get("url", ""))


def post(name: str, root: Path) -> int:
    """Reconcile after a git operation; never fails the git command."""
    try:
        print(_post(root))
    except (HearthError, OSError, GitError) as exc:
        message = exc.message if isinstance(exc, HearthError) else str(exc)
        print(f"hearth: {name}: index not updated ({message}); run 'hearth reindex'")
    return 0


def _post(root: Path) -> str:
    home = wiring.open_home(root)
    counts = (
        f"{len(catalog.list_records(home.files, 'proposal'))} pending proposals, "
        f"{len(catalog.list_records(home.files, 'loop'))} open loops"
    )
    url = server_running(home.store.state_dir)
    if url is not None:
        nudge = root / layout.NUDGE_PATH
        nudge.write_text(str(os.getpid()))
        return f"hearth: told the server at {url} to reconcile; {counts}"
    if not (home.store.state_dir / state.INDEX_DIR).exists():
        return f"hearth: no search index yet (run 'hearth reindex'); {counts}"
    report = wiring.open_app(root, lock_timeout=HOOK_LOCK_SECONDS).reconcile()
    status = "fresh" if not report.errors else f"{len(report.errors)} errors"
    return (
        f"hearth: indexed {report.indexed} changed, {report.removed} removed "
        f"({report.scanned} files, {status}); {counts}"
    )


def run(name: str, root: Path) -> int:
    if name == "pre-commit":
        return pre_commit(root)
    return post(name, root)
