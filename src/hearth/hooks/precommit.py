"""The pre-commit hook without a server: ``python -P -m hearth.hooks.precommit HOME``.

The shim asks a running server first (it holds everything already); this is
the path when none answers. It imports only what validation needs, so its
cost is Python's start-up, the rules, and two git commands.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hearth.errors import HearthError
from hearth.hooks.staged import StagedFiles

#: Set (to anything) to have the hook say which path checked the commit.
VERBOSE = "HEARTH_HOOK_VERBOSE"


def pre_commit(root: Path) -> int:
    """Check the staged files; 0 lets the commit go on, 1 stops it (with the reasons)."""
    files = StagedFiles(root)
    try:
        stale = files.stale_copies(files.listing())
        if stale:
            # git read the index before a hearth write and wrote that older copy
            # back (domain/stale_copy.py): committing it would revert the write.
            files.restore_head_copies(stale)
            for item in stale:
                print(
                    f"hearth: kept hearth's committed {item.path} in this commit "
                    "(the index held an older copy, left by a git command that "
                    "raced a hearth write; see docs/reliability.md)",
                    file=sys.stderr,
                )
        failures = files.failures()
    except HearthError as exc:
        print(f"hearth: commit stopped: {exc.message}", file=sys.stderr)
        print(
            "hearth: the staged files could not be checked "
            "(commit with --no-verify to skip the check, then see 'hearth check')",
            file=sys.stderr,
        )
        return 1
    if not failures:
        if os.environ.get(VERBOSE):
            print("hearth: pre-commit: checked the staged files here (no server)", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(pre_commit(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
