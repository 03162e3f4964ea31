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

The driver writes only the merged file (%A), nothing else: no record, no
copy, so git's own verbs (a rebase, a cherry-pick, the virtual base of a
criss-cross merge) see nothing in the work tree they did not expect. An entry
changed two different ways is not a failed merge: both versions stay in the
file, side by side, where the assistant and the person see them; ``hearth
sync`` names them as entry conflicts (records it commits with the merge).
Exit 1 means frame lines (the text around the entries, or a daily note's title
lines) changed two different ways: the file then holds git's conflict markers
around both versions, as git's own line merge leaves them, and git stops as it
does for any conflict. A clone where the driver is not registered falls back
to git's ordinary line merge, and so does the registered command when its
interpreter is gone (``hooks/install.py``).

This module imports only the pure merges, so a merge does not pay for the
rest of hearth's start-up.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hearth.domain.daily_merge import merge_daily
from hearth.domain.entry_merge import merge_entry_files
from hearth.domain.layout import is_daily_note


def _line_merge(base: Path, ours: Path, theirs: Path) -> int:
    """git's own line merge into ``ours`` (markers where the sides differ): what a
    merge this driver cannot make leaves, never ours alone in silence."""
    labels = ("-L", "ours", "-L", "base", "-L", "theirs")
    done = subprocess.run(
        ["git", "merge-file", *labels, str(ours), str(base), str(theirs)], check=False
    )
    return 0 if done.returncode == 0 else 1


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
        return _line_merge(base, ours, theirs)
    if len(argv) < 4 or is_daily_note(shown):
        merged = merge_daily(*texts)
        if merged is None:
            print(
                f"hearth: {shown}: both sides changed the note's title lines",
                file=sys.stderr,
            )
            return _line_merge(base, ours, theirs)
    else:
        result = merge_entry_files(*texts)
        merged = result.text
        for conflict in result.conflicts:
            print(
                f"hearth: {shown}: an entry changed two ways; both versions are in the file: "
                f"«{conflict.kept}» and «{conflict.other or '(removed)'}»",
                file=sys.stderr,
            )
        if result.frame_conflict:
            ours.write_bytes(merged.encode("utf-8"))
            print(
                f"hearth: {shown}: both sides changed the text around the entries; "
                "resolve the conflict markers",
                file=sys.stderr,
            )
            return 1
    if merged != texts[1]:
        ours.write_bytes(merged.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
