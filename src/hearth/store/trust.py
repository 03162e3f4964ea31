"""The commands this machine's person approved to run (``.git/hearth/trusted-commands.json``).

hearth.toml is committed and syncs, so whoever can push to the remote can write
the program it names (``[reflection] command``). A setting that names a program
therefore runs only when this record holds its key: the record lives in the
git folder, never in the work tree or history, so no commit can add to it; only
``hearth reflect --approve`` run here does.

The key is a SHA-256 over the exact argv and over the content of every file
inside the home that the argv names (a script the command runs, say): a commit
that changes the argv, or rewrites a script of the home the argv runs, needs a
new approval. Files outside the home are this machine's own and are not hashed.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from hearth.store import private, state


def command_key(root: Path, argv: Sequence[str]) -> str:
    """The trust key of ``argv`` run in the home at ``root``."""
    files: dict[str, str] = {}
    # Lexical on purpose: a name inside the home counts even when a symlink of the
    # home sends it elsewhere (its content is what runs, so it is hashed).
    home = os.path.normpath(os.path.abspath(root))  # noqa: PTH100
    for arg in argv:
        if not arg or "\0" in arg:
            continue
        path = os.path.normpath(os.path.join(home, arg))  # noqa: PTH118  (absolute stays)
        if path != home and not path.startswith(home + os.sep):
            continue
        try:
            with open(path, "rb") as handle:
                files[arg] = hashlib.sha256(handle.read()).hexdigest()
        except OSError:  # not a file (a flag, a folder, nothing there)
            continue
    blob = json.dumps({"argv": list(argv), "files": files}, sort_keys=True).encode()
    return "sha256:" + hashlib.sha256(blob).hexdigest()


class CommandTrust:
    """The approved commands of one clone, read fresh on every question (an approval
    made while a server runs counts at the server's next scheduled run)."""

    def __init__(self, root: Path, state_dir: Path) -> None:
        self.root = root
        self.path = state_dir / state.TRUSTED_COMMANDS

    def approved(self, argv: Sequence[str]) -> bool:
        held = state.read_record(self.path).get("commands")
        return isinstance(held, dict) and command_key(self.root, argv) in held

    def approve(self, argv: Sequence[str], now: dt.datetime) -> str:
        """Record ``argv`` (as its files are now) as approved; its key."""
        key = command_key(self.root, argv)
        record = state.read_record(self.path)
        held = record.get("commands")
        commands = dict(held) if isinstance(held, dict) else {}
        commands[key] = {"command": list(argv), "approved": now.isoformat(timespec="seconds")}
        private.write_file(self.path, json.dumps({"commands": commands}, indent=1).encode())
        return key
