"""The files of ``.git/hearth/``, hearth's local state, named once.

Nothing here is committed or synced: it is derived (the index), secret (the
tokens) or about this clone only (locks, the server's address, the last sync).
The names shared with the shell hook shims live in ``domain/layout.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from hearth.domain.layout import NUDGE_PATH, SERVER_FILE

#: The folder's name inside ``.git``.
FOLDER = "hearth"
#: hearth's write lock (an flock): one commit at a time, across processes.
WRITE_LOCK = "write.lock"
#: The reconcile lock (an flock): one pass at a time, across processes.
RECONCILE_LOCK = "reconcile.lock"
#: The search index and its manifest.
INDEX_DIR = "index"
#: The vectors of semantic ranking, beside the index.
VECTORS_DIR = "vectors"
#: The vectors of memory entries that review compares (``index/likeness.py``).
ENTRY_VECTORS_DIR = "entry-vectors"
#: API tokens, hashed.
TOKENS = "tokens.json"
#: The last sync's outcome.
SYNC_RECORD = "sync.json"
#: The last reflection run's outcome.
REFLECTION_RECORD = "reflection.json"
#: The commands this machine's person approved (``store/trust.py``).
TRUSTED_COMMANDS = "trusted-commands.json"
#: hearth's scratch copy of git's index, renamed over it after a commit.
SCRATCH_INDEX = "index.scratch"
#: Present while hearth holds git's index.lock; left behind only by a hearth
#: that died holding it.
LOCK_OWNER = "index.lock.owner"
#: A running server's address and pid (the hooks and the CLI read it).
SERVER = SERVER_FILE
#: Touched by the git hooks: a running server answers with a full pass.
NUDGE = NUDGE_PATH.rsplit("/", 1)[-1]
#: The last background pass a post hook started: its one line.
HOOK_LOG = "hooks.log"
#: An flock held by a post hook's background pass until it starts scanning.
HOOK_PENDING = "hooks.pending"


def read_record(path: Path) -> dict[str, object]:
    """A JSON record of this folder (the last sync, the last reflection run); empty
    when it is missing or unreadable."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def state_dir(git_dir: Path) -> Path:
    return git_dir / FOLDER


def state_dir_of(root: Path) -> Path:
    """The state folder of the repository whose work tree is ``root`` (its git
    folder found as git finds it: ``.git`` may be a file naming another place)."""
    import pygit2  # noqa: PLC0415  (only callers that have no store yet)

    return state_dir(Path(pygit2.Repository(str(root)).path))
