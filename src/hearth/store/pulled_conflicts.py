"""The entry conflicts a plain ``git pull`` left on this machine.

The merge driver (``mergedriver.py``) writes nothing into the work tree but the
merged file; each entry conflict it meets it notes in the repository's own
folder (``entry_merge.PULLED_DIR``: local, never committed), in the record's
words. Status, ``hearth memory conflicts`` and ACTIVE.md read those notes here,
while the entry file (as the work tree holds it) still holds both versions; a
conflict ``hearth sync`` recorded itself (its record under
``continuity/conflicts/entries/``) is named by that record, not twice.
"""

from __future__ import annotations

from pathlib import Path

from hearth.domain import entry_merge, layout


def open_notes(root: Path, *, every: bool = False) -> list[tuple[str, entry_merge.ConflictRecord]]:
    """(note path relative to ``root``, its conflict) of each note whose file
    still holds both versions (``every``: of each note), by file name."""
    folder = root / ".git" / entry_merge.PULLED_DIR
    records = root / layout.ENTRY_CONFLICTS_DIR
    synced = (
        {p.name.rpartition("--")[2] for p in records.rglob("*.md")} if records.is_dir() else set()
    )
    found = []
    for note in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        try:
            record = entry_merge.parse_pulled(note.name, note.read_text(encoding="utf-8"))
            text = (root / record.path).read_text(encoding="utf-8") if record else ""
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if record is None or f"{record.id}.md" in synced:
            continue
        if every or entry_merge.still_open(record, text):
            found.append((f".git/{entry_merge.PULLED_DIR}/{note.name}", record))
    return found
