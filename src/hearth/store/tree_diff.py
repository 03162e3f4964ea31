"""The paths of files that differ between two commits, read from their trees' raw bytes.

After every commit (hearth's, or a person's that the post-commit hook nudges
about) the reconciler and the status snapshot ask which files the commit
changed. A home's big folder is one big tree object: 75,000 topic notes make
a ``memory/topics`` tree of megabytes, a new one at every commit. Walking it
entry by entry through pygit2 (a ``TreeEntry`` object per entry, per side) and
libgit2's tree diff each cost hundreds of milliseconds at 100,000 files
(docs/performance.md), with Python's lock held,
and each commit was walked three times (the pass, its check that the commit
is covered, the status patch).

Here a tree is compared as bytes: the first offset where the two differ is
found by ``memcmp`` (memoryview slices, halving), entries are parsed from the
one holding it, and the walk stops as soon as the rest of both is equal; so
a commit that changes one file in a big tree parses one or two entries. A
tree's bytes are kept for the next commit's comparison (that commit's old
side), and answers are kept by the pair of trees, so the three questions
about one commit cost one read of the new tree (``TREES_KEPT``,
``ANSWERS_KEPT``). Trees and answers are keyed by object id: content, never
stale.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import pygit2
from pygit2.enums import ObjectType

_TREE_MODE = b"40000"
#: Raw trees kept (the newest read), and the most bytes they may hold together
#: (two of a 100,000-file home's biggest folder: one commit's old and new sides).
TREES_KEPT = 8
TREE_BYTES_KEPT = 8 * 1024 * 1024
#: Answers kept, by (old tree, new tree): the limit asked with, and the paths
#: (None: more than that limit).
ANSWERS_KEPT = 32

_lock = threading.Lock()
_trees: OrderedDict[pygit2.Oid, bytes] = OrderedDict()
_answers: OrderedDict[tuple[pygit2.Oid, pygit2.Oid], tuple[int, list[str] | None]] = OrderedDict()


def changed_paths(repo: pygit2.Repository, old: str, new: str, limit: int) -> list[str] | None:
    """Paths of files that differ between commits ``old`` and ``new`` (added,
    removed, changed, or changed mode; a file that became a folder both as the
    file and as the folder's files), in git's tree order; None when a commit is
    unknown or more than ``limit`` paths differ."""
    try:
        old_tree = repo.revparse_single(old).peel(pygit2.Tree).id
        new_tree = repo.revparse_single(new).peel(pygit2.Tree).id
    except (KeyError, ValueError, pygit2.GitError):
        return None
    key = (old_tree, new_tree)
    with _lock:
        kept = _answers.get(key)
        if kept is not None:
            _answers.move_to_end(key)
    if kept is not None:
        kept_limit, kept_found = kept
        if kept_found is not None:
            return list(kept_found) if len(kept_found) <= limit else None
        if limit <= kept_limit:
            return None  # more than ``kept_limit`` differ
    found = _walk(repo, old_tree, new_tree, limit)
    with _lock:
        _answers[key] = (limit, found)
        while len(_answers) > ANSWERS_KEPT:
            _answers.popitem(last=False)
    return None if found is None else list(found)


def _walk(
    repo: pygit2.Repository, old: pygit2.Oid, new: pygit2.Oid, limit: int
) -> list[str] | None:
    found: list[str] = []

    def walk(a_id: pygit2.Oid | None, b_id: pygit2.Oid | None, prefix: str) -> bool:
        a = b"" if a_id is None else _raw_tree(repo, a_id)
        b = b"" if b_id is None else _raw_tree(repo, b_id)
        pa = pb = _entry_at(a, _first_difference(a, b))
        rest_a, rest_b = memoryview(a), memoryview(b)
        while pa < len(a) or pb < len(b):
            if len(a) - pa == len(b) - pb and rest_a[pa:] == rest_b[pb:]:
                break  # the rest of both trees is the same
            ea = _entry(a, pa) if pa < len(a) else None
            eb = _entry(b, pb) if pb < len(b) else None
            # git orders a folder's entry as if its name ended with "/".
            if ea is not None and (eb is None or ea[0] < eb[0]):
                eb = None
            elif eb is not None and (ea is None or eb[0] < ea[0]):
                ea = None
            if ea is not None:
                pa = ea[3]
            if eb is not None:
                pb = eb[3]
            if ea is not None and eb is not None and ea[1:3] == eb[1:3]:
                continue
            either = ea if ea is not None else eb
            assert either is not None
            name = either[0].rstrip(b"/").decode("utf-8", "surrogateescape")
            sub_a = _oid(ea[2]) if ea is not None and ea[1] == _TREE_MODE else None
            sub_b = _oid(eb[2]) if eb is not None and eb[1] == _TREE_MODE else None
            if (sub_a is not None or sub_b is not None) and not walk(
                sub_a, sub_b, f"{prefix}{name}/"
            ):
                return False
            if sub_a is None and sub_b is None:
                found.append(prefix + name)
            if len(found) > limit:
                return False
        return True

    return found if walk(old, new, "") else None


def _first_difference(a: bytes, b: bytes) -> int:
    """The first offset at which ``a`` and ``b`` differ (the shorter one's length
    when it is the other's start), found by comparing halves."""
    ma, mb = memoryview(a), memoryview(b)
    lo, hi = 0, min(len(a), len(b))
    if ma[:hi] == mb[:hi]:
        return hi
    while hi - lo > 64:  # a[:lo] == b[:lo], a[:hi] != b[:hi]
        mid = (lo + hi) // 2
        if ma[lo:mid] == mb[lo:mid]:
            lo = mid
        else:
            hi = mid
    while a[lo] == b[lo]:
        lo += 1
    return lo


def _entry_at(raw: bytes, offset: int) -> int:
    """Where the entry holding ``offset`` starts (``len(raw)`` past the end).

    Entries are ``mode SP name NUL`` and a 20-byte id, so each one's end is
    found from its start; the entries before ``offset`` are the same on both
    sides, so the entry holding it starts at the same place on both."""
    pos = 0
    while pos < len(raw):
        end = raw.index(b"\0", pos) + 21
        if end > offset:
            return pos
        pos = end
    return pos


def _entry(raw: bytes, pos: int) -> tuple[bytes, bytes, bytes, int]:
    """The entry at ``pos``: its sort key (a folder's name ends with "/"), mode,
    object id (20 bytes) and where the next one starts."""
    space = raw.index(b" ", pos)
    nul = raw.index(b"\0", space)
    mode = raw[pos:space]
    name = raw[space + 1 : nul]
    return (name + b"/" if mode == _TREE_MODE else name), mode, raw[nul + 1 : nul + 21], nul + 21


def _oid(raw: bytes) -> pygit2.Oid:
    return pygit2.Oid(raw=raw)


def _raw_tree(repo: pygit2.Repository, oid: pygit2.Oid) -> bytes:
    """The tree's raw bytes; the newest few are kept (the next commit's old side)."""
    with _lock:
        data = _trees.get(oid)
        if data is not None:
            _trees.move_to_end(oid)
            return data
    kind, data = repo.odb.read(oid)
    if kind != ObjectType.TREE:
        raise ValueError(f"{oid} is not a tree")
    with _lock:
        _trees[oid] = data
        while len(_trees) > TREES_KEPT or (
            len(_trees) > 1 and sum(map(len, _trees.values())) > TREE_BYTES_KEPT
        ):
            _trees.popitem(last=False)
    return data
