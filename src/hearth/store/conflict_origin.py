"""Whether a conflict record or copy under ``continuity/conflicts/`` is hearth's.

A conflict is acted on (listed to settle, shown with buttons, counted in
status) only when hearth's sync wrote it: anything else there is a forgery
(an agent's or anyone's file made to look like one) and is named as such,
never offered for settling. The sign is in history, where an agent cannot
write: the first commit that added the file (the oldest in HEAD's whole
history, each merge compared with its first parent, so a record that another
machine's sync made and this machine's merge brought in is judged by the
commit that made it) carries a ``Hearth-Op`` trailer of sync's (``sync.merge``,
or any ``sync.`` op sync commits records with); when that commit is a merge,
the file was not already on its other side (so this merge made it, rather than
brought it in); and the file as it is now, in HEAD and in the work tree, is the
blob that commit added. A file never committed is not hearth's.

One ``git log`` and a few ``rev-parse`` calls per file, through the git CLI
(the lean status reads it too); conflicts are few, and each answer is kept
by (path, blob id) for the process's life.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from hearth.store.git_cli import run_git

#: ``Hearth-Op`` values of the commits sync makes start with this.
SYNC_OPS = "sync."

_FORMAT = "--format=%H%x00%P%x00%(trailers:key=Hearth-Op,valueonly,separator=%x2C)"

_known: dict[tuple[str, str, str], bool] = {}


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _out(root: Path, *args: str) -> str | None:
    done = run_git(root, list(args), b"")
    if done is None or done[0] != 0:
        return None
    return done[1].decode("utf-8", "replace").strip()


def written_by_sync(root: Path, path: str) -> bool:
    """Whether hearth's sync wrote ``path`` (see the module's docstring)."""
    try:
        data = (root / path).read_bytes()
    except OSError:
        return False
    now = _blob_id(data)
    head = _out(root, "rev-parse", "--verify", "--quiet", "HEAD")
    if head is None:
        return False
    key = (str(root), path, f"{head}:{now}")
    if key not in _known:
        _known[key] = _verdict(root, path, now)
    return _known[key]


def _verdict(root: Path, path: str, now: str) -> bool:
    if _out(root, "rev-parse", "--verify", "--quiet", f"HEAD:{path}") != now:
        return False  # never committed, or changed since (by hand, or forged)
    line = _out(
        root,
        "-c",
        "core.quotePath=false",
        "log",
        "--diff-merges=first-parent",
        "--diff-filter=A",
        _FORMAT,
        "HEAD",
        "--",
        path,
    )
    lines = [x for x in (line or "").splitlines() if x.count("\0") == 2]
    if not lines:
        return False
    commit, parents, ops = lines[-1].split("\0")
    if not any(op.strip().startswith(SYNC_OPS) for op in ops.split(",")):
        return False
    others = parents.split()[1:]
    if any(_out(root, "rev-parse", "--verify", "--quiet", f"{p}:{path}") for p in others):
        return False  # brought in from the other side, not made by this merge
    return _out(root, "rev-parse", "--verify", "--quiet", f"{commit}:{path}") == now


def split(root: Path, paths: list[str]) -> tuple[list[str], list[str]]:
    """``paths`` as (hearth's, forged or unverified), each in the given order."""
    ours: list[str] = []
    forged: list[str] = []
    for path in paths:
        (ours if written_by_sync(root, path) else forged).append(path)
    return ours, forged
