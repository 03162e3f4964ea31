"""Listing the markdown files of a work tree, with their ``lstat`` signatures.

Only ``lstat`` here, never a read: a pass over an unchanged home costs one
directory walk. What the walk cannot take (a symlink, a FIFO, a name hearth
refuses, a folder it may not enter) is reported with a reason instead of
being followed or silently dropped.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from hearth.domain import layout
from hearth.domain.paths import is_temporary, name_problem, normalize
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


#: A markdown name that is surely a candidate and that hearth surely accepts: ASCII
#: letters, digits, ``_``, ``.``, ``-`` and spaces, not starting with ``.`` or
#: ``#`` (so no temporary or swap name, whose names start so or do not end in
#: ``.md``), at most 200 bytes (``name_problem``'s limit is 255). Nearly every
#: file of a home matches, and skips ``is_temporary`` and ``name_problem``: a
#: third of a listing's Python time at 100,000 files.
_PLAIN_MD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_. -]{0,196}\.md")


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
    plain = _PLAIN_MD.fullmatch
    files = listing.files
    # Taken from the end, so that each entry, and the stat result it keeps,
    # goes as soon as it is read: a large folder's entries held at once were
    # the peak of a pass (docs/performance.md).
    entries.reverse()
    while entries:
        entry = entries.pop()
        name = entry.name
        rel = prefix + name
        try:
            # d_type answers these without a system call on most file systems.
            is_dir = entry.is_dir(follow_symlinks=False)
            is_link = not is_dir and entry.is_symlink()
        except OSError:
            continue
        if not is_dir and not is_link and plain(name) is not None and rel != layout.ACTIVE_PATH:
            # The common case: one lstat, nothing else to check but its type.
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                listing.errors.append(f"{rel}: cannot stat ({exc.strerror})")
                continue
            if stat.S_ISREG(st.st_mode):
                files[rel] = (st.st_size, st.st_mtime_ns)
            else:
                _add(listing, rel, st, check_name=name)
            continue
        if is_dir:
            if name == ".git":
                continue
            problem = name_problem(name)
            if problem is not None:
                _refuse(listing, rel, entry, f"a folder hearth cannot name: {problem}")
                continue
            _walk(Path(entry.path), rel + "/", listing)
            continue
        if name == ".gitignore":
            _stat_into(listing, rel, entry, ignore=True)
            continue
        if is_link:
            if is_candidate(name) or _points_to_folder(entry):
                _refuse(listing, rel, entry, SYMLINK_REASON)
            continue
        if not is_candidate(name) or rel == layout.ACTIVE_PATH:
            continue
        _stat_into(listing, rel, entry)


SYMLINK_REASON = (
    "a symlink; hearth never follows one (one that came by sync can point outside the home):"
    " replace it with a regular file, or remove it with 'git rm'"
)


def _refuse(listing: Listing, rel: str, entry: os.DirEntry[str], reason: str) -> None:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return
    listing.refused[rel] = ((st.st_size, st.st_mtime_ns), reason)


def _stat_into(
    listing: Listing, rel: str, entry: os.DirEntry[str], *, ignore: bool = False
) -> None:
    try:
        st = entry.stat(follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        listing.errors.append(f"{rel}: cannot stat ({exc.strerror})")
        return
    if ignore:
        listing.ignore_files.append((rel, st.st_size, st.st_mtime_ns))
    else:
        _add(listing, rel, st, check_name=entry.name)


def _points_to_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def _add(listing: Listing, rel: str, st: os.stat_result, check_name: str | None = None) -> None:
    """Record a listed file; ``check_name`` checks just the name (its folders passed already)."""
    signature = (st.st_size, st.st_mtime_ns)
    if not stat.S_ISREG(st.st_mode):
        listing.refused[rel] = (signature, "not a regular file (a FIFO, socket or device)")
        return
    try:
        if check_name is None:
            normalize(rel)
        elif (problem := name_problem(check_name)) is not None:
            raise PathRefused(problem)
    except PathRefused as exc:
        listing.refused[rel] = (signature, exc.message)
        return
    listing.files[rel] = signature


def stat_paths(root: Path, paths: Iterable[str]) -> Listing:
    """Like ``scan_tree`` for just ``paths`` (which are home-relative and normalized)."""
    listing = Listing()
    for rel in paths:
        name = rel.rsplit("/", 1)[-1]
        if rel == layout.ACTIVE_PATH:
            continue
        candidate = is_candidate(name)
        try:
            st = os.lstat(root / rel)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if candidate:
                listing.errors.append(f"{rel}: cannot stat ({exc.strerror})")
            continue
        if stat.S_ISLNK(st.st_mode):
            # Refused as the full walk refuses it (a markdown name, or a link to a
            # folder), so a targeted pass parks what a full one would: status and
            # search then agree on it.
            if candidate or (root / rel).is_dir():
                listing.refused[rel] = ((st.st_size, st.st_mtime_ns), SYMLINK_REASON)
            continue
        if not candidate:
            continue
        _add(listing, rel, st)
    return listing
