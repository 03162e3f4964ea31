"""The conflict copies a sync leaves for a person to resolve, listed without
libgit2 (``hearth status``'s lean path reads them too)."""

from __future__ import annotations

from pathlib import Path

from hearth.domain import layout
from hearth.store import conflict_origin
from hearth.store import pulled_conflicts as pulled


def conflict_copies(root: Path) -> list[str]:
    """The conflict copies and records hearth's sync left for a person to resolve
    (``store/conflict_origin.py``: a forged one is not listed here), then the
    notes of entry conflicts a plain ``git pull`` left (``pulled_conflicts``)."""
    return conflict_origin.split(root, _all(root))[0] + pulled_conflicts(root)


def pulled_conflicts(root: Path) -> list[str]:
    """The notes of entry conflicts a plain ``git pull`` left and not yet settled
    (``store/pulled_conflicts.py``)."""
    return [path for path, _record in pulled.open_notes(root)]


def _all(root: Path) -> list[str]:
    folder = root / layout.CONFLICTS_DIR
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file())
