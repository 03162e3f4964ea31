"""A listing of the work tree kept between status snapshots as its differences
from the manifest's file map.

A served home's status snapshot patches the one before (``app/status/snapshot.py``):
it lists again only the paths the passes since looked at. It needs the rest
of the last listing for that, and on a settled home nearly every listed file
has the signature the manifest holds for it. So what is kept is only what
differs: files listed with another signature than the manifest's (or not in
it), and the manifest's files that were not listed: far fewer bytes a file
than keeping the listing (docs/performance.md). Passes change the
map only for the paths they look at, so for every other path the map
still holds what it held when the differences were taken: ``patch`` lists
those paths again, and ``Reconciler.status_of`` compares only what differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hearth.reconcile.filemap import FileMap
from hearth.reconcile.manifest import ParkedFile
from hearth.reconcile.scan import Listing, Signature, is_inside, scan_tree, stat_paths


@dataclass
class ListingDelta:
    #: Listed with a signature the map does not hold for the path (or not in the map).
    files: dict[str, Signature] = field(default_factory=dict)
    #: In the map, not listed.
    missing: set[str] = field(default_factory=set)
    refused: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    ignore_files: list[tuple[str, int, int]] = field(default_factory=list)


def differences(listing: Listing, files: FileMap) -> ListingDelta:
    """``listing`` as what differs from ``files``."""
    differ = {p: sig for p, sig in listing.files.items() if files.signature(p) != sig}
    missing = {p for p in files if p not in listing.files}
    return ListingDelta(
        differ, missing, dict(listing.refused), list(listing.errors), list(listing.ignore_files)
    )


def relisted(delta: ListingDelta, files: FileMap) -> Listing:
    """The listing ``differences`` was given, from ``files`` as it is now."""
    listed: dict[str, Signature] = {}
    for path in files:
        if path not in delta.missing:
            sig = files.signature(path)
            if sig is not None:
                listed[path] = sig
    listed.update(delta.files)
    return Listing(listed, dict(delta.refused), list(delta.errors), list(delta.ignore_files))


def compare(
    delta: ListingDelta, files: FileMap, parked: Mapping[str, ParkedFile], present: set[str]
) -> tuple[list[str], int]:
    """What ``Reconciler.status`` finds comparing the listing ``delta`` stands for
    with the manifest (``files``, ``parked``), from the paths ``delta`` names
    alone (``present``: those of them git does not ignore): the paths that
    moved, and how many files are on disk to be indexed."""
    on_disk = {p: sig for p, sig in delta.files.items() if p in present and p not in parked}
    missing = [p for p in delta.missing if p in files]
    # The manifest's files neither missing nor named: listed as they are indexed.
    unnamed = len(files) - len(missing) - sum(1 for p in delta.files if p in files)
    unnamed_parked = [
        p for p in parked if p in files and p not in delta.missing and p not in delta.files
    ]
    moved = [p for p, sig in on_disk.items() if files.signature(p) != sig]
    moved += missing + unnamed_parked
    moved += [p for p in delta.files if p in files and p not in on_disk]
    for path, (sig, _reason) in delta.refused.items():
        entry = parked.get(path)
        if path in present and (entry is None or (entry.size, entry.mtime_ns) != sig):
            moved.append(path)
    return moved, unnamed - len(unnamed_parked) + len(on_disk)


def patch(delta: ListingDelta, files: FileMap, root: Path, touched: Iterable[str]) -> bool:
    """List the ``touched`` paths again into ``delta`` (against ``files`` as it is
    now, after the passes that looked at them); a folder (named ``name/``) is
    listed whole, and what was listed under a folder now gone goes. False,
    changing nothing, when a path cannot be listed (a folder it may not enter)."""
    paths = {p for p in touched if not p.endswith("/")}
    fresh = stat_paths(root, paths)
    inside: list[str] = []
    for folder in sorted({p for p in touched if p.endswith("/")}):
        base = folder[:-1]
        if is_inside(root, base) and (root / base).is_dir():
            sub = scan_tree(root, base)
            fresh.files.update(sub.files)
            fresh.refused.update(sub.refused)
            fresh.errors += sub.errors
            paths.update(p for p in files if p.startswith(folder))
        inside.append(folder)
    if fresh.errors:
        return False
    if inside:
        prefixes = tuple(inside)
        for known in (delta.files, delta.refused, delta.missing):
            paths.update(p for p in known if p.startswith(prefixes))
        paths.update(fresh.files)
        paths.update(fresh.refused)
    for path in paths:
        delta.files.pop(path, None)
        delta.refused.pop(path, None)
        delta.missing.discard(path)
        if path in fresh.files:
            if files.signature(path) != fresh.files[path]:
                delta.files[path] = fresh.files[path]
        elif path in files:
            delta.missing.add(path)
    delta.refused.update(fresh.refused)
    return True
