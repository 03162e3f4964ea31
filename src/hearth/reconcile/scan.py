"""Listing the markdown files of a work tree, with their ``lstat`` signatures.

Only ``lstat`` here, never a read: a pass over an unchanged home costs one
directory walk. What the walk cannot take (a symlink, a FIFO, a name hearth
refuses, a folder it may not enter) is reported with a reason instead of
being followed or silently dropped.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hearth.domain import layout
from hearth.domain.paths import is_temporary, normalize
from hearth.errors import PathRefused

Signature = tuple[int, int]  # size, mtime_ns


@dataclass
class Listing:
    files: dict[str, Signature] = field(default_factory=dict)
    refused: dict[str, tuple[Signature, str]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    ignore_files: list[tuple[str, int, int]] = field(default_factory=list)


def is_candidate(name: str) -> bool:
    return name.endswith(".md") and not is_temporary(name)


def scan_tree(root: Path, folder: str = "") -> Listing:
    """Every candidate markdown file under ``root`` (or its sub-folder ``folder``),
    outside ``.git``; paths are relative to ``root``."""
    listing = Listing()
    _walk(root / folder if folder else root, f"{folder}/" if folder else "", listing)
    return listing


def is_inside(root: Path, path: str) -> bool:
    """True when no component of ``path`` below ``root`` is a symlink (or missing)."""
    current = root
    for part in path.split("/"):
        current = current / part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True


def _walk(folder: Path, prefix: str, listing: Listing) -> None:
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return  # removed while we walked: its files are gone
    except OSError as exc:
        listing.errors.append(f"{prefix or './'}: cannot list the folder ({exc.strerror})")
        return
    for entry in entries:
        rel = prefix + entry.name
        try:
            st = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        except OSError as exc:
            listing.errors.append(f"{rel}: cannot stat ({exc.strerror})")
            continue
        if stat.S_ISDIR(st.st_mode):
            if entry.name != ".git":
                _walk(Path(entry.path), rel + "/", listing)
            continue
        if entry.name == ".gitignore":
            listing.ignore_files.append((rel, st.st_size, st.st_mtime_ns))
            continue
        if stat.S_ISLNK(st.st_mode):
            if is_candidate(entry.name) or _points_to_folder(entry):
                listing.refused[rel] = (
                    (st.st_size, st.st_mtime_ns),
                    "a symlink; hearth does not follow symlinks inside the home",
                )
            continue
        if not is_candidate(entry.name) or rel == layout.ACTIVE_PATH:
            continue
        _add(listing, rel, st)


def _points_to_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _add(listing: Listing, rel: str, st: os.stat_result) -> None:
    signature = (st.st_size, st.st_mtime_ns)
    if not stat.S_ISREG(st.st_mode):
        listing.refused[rel] = (signature, "not a regular file (a FIFO, socket or device)")
        return
    try:
        normalize(rel)
    except PathRefused as exc:
        listing.refused[rel] = (signature, exc.message)
        return
    listing.files[rel] = signature


def stat_paths(root: Path, paths: Iterable[str]) -> Listing:
    """Like ``scan_tree`` for just ``paths`` (which are home-relative and normalized)."""
    listing = Listing()
    for rel in paths:
        name = rel.rsplit("/", 1)[-1]
        if not is_candidate(name) or rel == layout.ACTIVE_PATH:
            continue
        try:
            st = os.lstat(root / rel)
        except FileNotFoundError:
            continue
        except OSError as exc:
            listing.errors.append(f"{rel}: cannot stat ({exc.strerror})")
            continue
        if stat.S_ISLNK(st.st_mode):
            listing.refused[rel] = (
                (st.st_size, st.st_mtime_ns),
                "a symlink; hearth does not follow symlinks inside the home",
            )
            continue
        _add(listing, rel, st)
    return listing
