"""A new tree from a base tree and the paths a commit changes, folder by folder
through libgit2's TreeBuilder (the commit protocol's step that writes trees,
``git.py``)."""

from __future__ import annotations

import pygit2
from pygit2.enums import FileMode

from hearth.errors import Conflict


def build_tree(
    repo: pygit2.Repository,
    base: pygit2.Tree | None,
    changes: dict[str, tuple[pygit2.Oid | None, FileMode]],
) -> tuple[pygit2.Oid, int]:
    """The new tree's id and how many entries it holds: ``base`` with ``changes``
    (a path's new blob and mode, or None to remove it). A folder left empty
    goes; its entries are counted on the builder, not read back from the tree
    just written (a large folder's tree would be parsed again at every write)."""
    builder = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    nested: dict[str, dict[str, tuple[pygit2.Oid | None, FileMode]]] = {}
    for path, (oid, mode) in changes.items():
        first, _, rest = path.partition("/")
        if rest:
            nested.setdefault(first, {})[rest] = (oid, mode)
        elif oid is None:
            if builder.get(first) is not None:
                builder.remove(first)
        else:
            existing = builder.get(first)
            if existing is not None and existing.type == pygit2.enums.ObjectType.TREE:
                raise Conflict(f"{path!r} is a folder in HEAD; it cannot become a file")
            builder.insert(first, oid, mode)
    for name, sub_changes in nested.items():
        existing = builder.get(name)
        sub_base = None
        if existing is not None:
            if existing.type != pygit2.enums.ObjectType.TREE:
                raise Conflict(f"{name!r} is a file in HEAD; it cannot hold other files")
            sub_base = repo[existing.id]
            assert isinstance(sub_base, pygit2.Tree)
        sub_id, entries = build_tree(repo, sub_base, sub_changes)
        if entries == 0:
            if existing is not None:
                builder.remove(name)
        else:
            builder.insert(name, sub_id, FileMode.TREE)
    return builder.write(), len(builder)
