"""The conflict copies a sync leaves for a person to resolve, listed without
libgit2 (``hearth status``'s lean path reads them too)."""

from __future__ import annotations

from pathlib import Path

from hearth.domain import entry_merge, layout
from hearth.store import conflict_origin


def conflict_copies(root: Path) -> list[str]:
    """The conflict copies and records hearth's sync left for a person to resolve
    (``store/conflict_origin.py``: a forged one is not listed here), then the
    notes of entry conflicts a plain ``git pull`` left (``pulled_conflicts``)."""
    return conflict_origin.split(root, _all(root))[0] + pulled_conflicts(root)


def pulled_conflicts(root: Path) -> list[str]:
    """The notes (``.git/hearth/pulled-conflicts/<file>--<id>.md``) of entry
    conflicts the merge driver met under a plain ``git pull``, while the file
    still holds both versions (``entry_merge.still_open``)."""
    folder = root / ".git" / entry_merge.PULLED_DIR
    # hearth sync's merge runs the driver too, and commits a record of its own.
    synced = {name.rpartition("--")[2] for name in _all(root)}
    found = []
    for note in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        try:
            record = entry_merge.parse_pulled(note.name, note.read_text(encoding="utf-8"))
            text = (root / record.path).read_text(encoding="utf-8") if record else ""
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if (
            record is not None
            and f"{record.id}.md" not in synced
            and entry_merge.still_open(record, text)
        ):
            found.append(f".git/{entry_merge.PULLED_DIR}/{note.name}")
    return found


def _all(root: Path) -> list[str]:
    folder = root / layout.CONFLICTS_DIR
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file())
