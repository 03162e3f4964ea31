"""git's merge driver for daily notes and entry files: ``python -m hearth.mergedriver %O %A %B %P``.

``hearth init`` and ``hearth hooks install`` register it in the repository's
config as ``merge.hearth-daily`` and ``merge.hearth-entries``
(``layout.MERGE_DRIVERS``), and ``.gitattributes`` names them for daily notes
and for USER.md, MEMORY.md and ``users/<id>.md``, so a plain ``git merge`` or
``git pull`` merges them exactly as ``hearth sync`` does: daily notes entry by
entry (``domain/daily_merge.py``), entry files entry by entry three-way
(``domain/entry_merge.py``). git hands over three temporary files (base, ours,
theirs) and the path (``%P``), which says which merge applies; the result
replaces ours.

Exit 0 means merged. An entry changed two different ways is not a failed
merge: the file keeps one version, and the other is written as a record under
``continuity/conflicts/entries/`` in the work tree (git runs drivers at its
top), which ``hearth sync`` commits with the merge and a person settles.
Exit 1 (the text around the entries, or a daily note's title lines, changed
two ways) leaves ours in place and git reports a conflict, which ``hearth
sync`` turns into a whole-file copy. A clone where the driver is not
registered falls back to git's ordinary line merge.

This module imports only the pure merges, so a merge does not pay for the
rest of hearth's start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hearth.domain.daily_merge import merge_daily
from hearth.domain.entry_merge import merge_entry_files, render_record
from hearth.domain.layout import is_daily_note


def _write_records(shown: str, conflicts: list[tuple[str, str]]) -> None:
    for record, text in conflicts:
        target = Path(record)
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(f".{target.name}.tmp")
        temp.write_text(text, encoding="utf-8")
        temp.replace(target)
        print(f"hearth: {shown}: an entry changed two ways; see {record}", file=sys.stderr)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: python -m hearth.mergedriver BASE OURS THEIRS [PATH]", file=sys.stderr)
        return 2
    base, ours, theirs = (Path(arg) for arg in argv[:3])
    shown = argv[3] if len(argv) > 3 else str(ours)
    try:
        texts = [p.read_bytes().decode("utf-8") for p in (base, ours, theirs)]
    except (OSError, UnicodeDecodeError) as exc:
        print(f"hearth: {shown}: cannot merge entry by entry ({exc})", file=sys.stderr)
        return 1
    if len(argv) < 4 or is_daily_note(shown):
        merged = merge_daily(*texts)
        if merged is None:
            print(
                f"hearth: {shown}: both sides changed the note's title lines; kept ours",
                file=sys.stderr,
            )
            return 1
    else:
        result = merge_entry_files(*texts)
        if result is None:
            print(
                f"hearth: {shown}: both sides changed the text around the entries; kept ours",
                file=sys.stderr,
            )
            return 1
        merged = result.text
        try:
            _write_records(shown, [render_record(shown, c) for c in result.conflicts])
        except OSError as exc:
            print(f"hearth: {shown}: cannot keep an entry conflict ({exc})", file=sys.stderr)
            return 1
    if merged != texts[1]:
        ours.write_bytes(merged.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
