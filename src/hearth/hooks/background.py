"""The post hooks' reconcile pass, started detached by the shims when no server
runs: ``python -P -m hearth.hooks.background NAME HOME``.

The shim returns at once, so a commit never waits for the pass; the pass's
one line goes to ``.git/hearth/hooks.log``. Passes coalesce: one that has not
begun its scan yet covers every change made before it begins, so a pass
started while another is still getting ready exits before importing the
reconciler (commits in a loop start one Python each, not one pass each).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import os
import sys
from pathlib import Path

from hearth.store import state

#: Seconds the background pass waits for another hearth's pass (nobody waits on it).
LOCK_SECONDS = 60.0
#: What the pass leaves out of the environment git gave the hook: they name the
#: commit's temporary index, gone by the time the pass runs.
_GIT_LOCATORS = ("GIT_INDEX_FILE", "GIT_DIR", "GIT_WORK_TREE", "GIT_PREFIX")


def background(name: str, root: Path) -> int:
    for key in _GIT_LOCATORS:
        os.environ.pop(key, None)
    state_dir = root / ".git" / state.FOLDER
    with open(state_dir / state.HOOK_PENDING, "a") as pending:
        try:
            fcntl.flock(pending, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # a pass that has not started scanning yet will see this change
        # The imports (most of the pass's start-up) happen under the claim; it is
        # released just before the pass looks at the files.
        from hearth.hooks.run import post  # noqa: PLC0415

        fcntl.flock(pending, fcntl.LOCK_UN)
    line = post(name, root, LOCK_SECONDS)
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    log = state_dir / state.HOOK_LOG
    temp = log.with_name(f".{state.HOOK_LOG}.{os.getpid()}.tmp")
    temp.write_text(f"{stamp} {name}: {line}\n")
    temp.replace(log)
    return 0


if __name__ == "__main__":
    with contextlib.suppress(OSError):
        os.setsid()  # out of git's process group and terminal: a Ctrl-C there does not reach it
    sys.exit(background(sys.argv[1], Path(sys.argv[2])))
