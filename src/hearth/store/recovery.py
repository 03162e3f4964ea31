"""Finishing what a killed hearth left half done.

A hearth write is: commit (the branch moves), then the work-tree files and
git's index entries for the commit's paths. A hearth killed between the two
leaves its owner record of git's index lock behind (``git_index.py``); the
next hearth to take that lock finds it and calls ``finish_interrupted_write``
before doing anything else, and the server does the same at start-up. A
hearth killed inside libgit2's ``create_commit`` may also leave the branch's
ref lock, which ``clear_dead_ref_lock`` removes when it is clearly that
hearth's.
"""

from __future__ import annotations

import time
from pathlib import Path

import pygit2
from pygit2.enums import FileMode

from hearth.store.git_index import GitIndexFile
from hearth.store.history import parse_trailers
from hearth.store.rooted import RootedFiles
from hearth.store.tree_diff import changed_paths

#: A ref lock older than this, made while a dead hearth held the index, is its.
STALE_REF_LOCK_SECONDS = 2.0
#: Paths of the interrupted commit looked at (hearth's writes touch a few).
MAX_PATHS = 1000


def clear_dead_ref_lock(git_dir: Path, ref: str, held_since: float) -> None:
    """Remove the branch's ref lock a killed hearth left inside ``create_commit``.

    Only a lock made while that hearth held git's index lock (no git commit
    can run then) and untouched for a while (git holds ref locks for
    milliseconds) is removed.
    """
    lock = git_dir / (ref + ".lock")
    try:
        made = lock.stat().st_mtime
    except OSError:
        return
    if made >= held_since - 1 and time.time() - made > STALE_REF_LOCK_SECONDS:
        lock.unlink(missing_ok=True)


def finish_interrupted_write(
    repo: pygit2.Repository, files: RootedFiles, index_file: GitIndexFile
) -> None:
    """Complete the work-tree and index update of a hearth commit whose process died.

    Only HEAD's own commit is looked at, only if hearth made it, and only
    paths whose work-tree copy or index entry still hold the parent's
    version are brought to HEAD's: anything a person changed since is left
    alone. Without this, the stale copies would look like a person's edit
    reverting the commit, and a later ``git commit`` could take them in.
    """
    if repo.head_is_unborn:
        return
    head = repo.head.peel(pygit2.Commit)
    if len(head.parents) != 1 or "Hearth-Op" not in parse_trailers(head.message):
        return
    parent = head.parents[0]
    paths = changed_paths(repo, str(parent.id), str(head.id), MAX_PATHS) or []
    index = index_file.current()
    repaired = False
    for path in paths:
        before = _blob_id(parent.tree, path)
        after = _blob_id(head.tree, path)
        on_disk = files.read(path)
        if (pygit2.hash(on_disk) if on_disk is not None else None) == before:
            if after is None:
                files.delete(path)
            else:
                blob = repo[after]
                assert isinstance(blob, pygit2.Blob)
                files.write(path, blob.data)
        staged = index[path].id if path in index else None
        if staged == before and before != after:
            if after is None:
                index.remove(path)
            else:
                index.add(pygit2.IndexEntry(path, after, blob_mode(head.tree, path)))
            repaired = True
    if repaired:
        index_file.save(index)


def _blob_id(tree: pygit2.Tree, path: str) -> pygit2.Oid | None:
    try:
        obj = tree[path]
    except KeyError:
        return None
    return obj.id if obj.type == pygit2.enums.ObjectType.BLOB else None


def blob_mode(tree: pygit2.Tree | None, path: str) -> FileMode:
    """The file mode ``path`` has in ``tree`` (executable or not), else a plain blob."""
    if tree is not None:
        try:
            mode = tree[path].filemode
        except KeyError:
            return FileMode.BLOB
        if mode in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
            return FileMode(mode)
    return FileMode.BLOB
