"""The conflict copies a sync leaves for a person to resolve, listed without
libgit2 (``hearth status``'s lean path reads them too)."""

from __future__ import annotations

from pathlib import Path

from hearth.domain import layout


def conflict_copies(root: Path) -> list[str]:
    """The conflict copies a sync left for a person to resolve."""
    folder = root / layout.CONFLICTS_DIR
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(root)) for p in folder.rglob("*") if p.is_file())
