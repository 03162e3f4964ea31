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

A runtime's writes committed by the served home (``[runtimes.<name>]
commit_writes``) are trusted the same way: that setting makes this machine
commit whatever the files its patterns name hold, a person's uncommitted edits
and never-added drafts included, and the next sync pushes them. So it holds
only while this record holds the key of the runtime's name and patterns, which
``hearth setup <runtime>`` run here records (``setting_key``).
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


def setting_key(runtime: str, paths: Sequence[str]) -> str:
    """The trust key of a runtime's committed writes over the patterns ``paths``."""
    blob = json.dumps({"runtime": runtime, "paths": list(paths)}, sort_keys=True).encode()
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
        self._write({**record, "commands": commands})
        return key

    def writes_approved(self, runtime: str, paths: Sequence[str]) -> bool:
        """Whether this machine set up ``runtime``'s writes over ``paths`` to be committed."""
        held = state.read_record(self.path).get("runtime_writes")
        return isinstance(held, dict) and setting_key(runtime, paths) in held

    def approve_writes(self, runtime: str, paths: Sequence[str], now: dt.datetime | None) -> None:
        """Record ``runtime``'s writes over ``paths`` as set up here (``now`` None:
        take every approval of ``runtime`` back)."""
        record = state.read_record(self.path)
        held = record.get("runtime_writes")
        kept = {
            key: value
            for key, value in (held.items() if isinstance(held, dict) else ())
            if not (isinstance(value, dict) and value.get("runtime") == runtime)
        }
        if now is not None:
            kept[setting_key(runtime, paths)] = {
                "runtime": runtime,
                "paths": list(paths),
                "approved": now.isoformat(timespec="seconds"),
            }
        self._write({**record, "runtime_writes": kept})

    def _write(self, record: dict[str, object]) -> None:
        private.write_file(self.path, json.dumps(record, indent=1).encode())
