"""git's merge driver for daily notes: ``python -m hearth.mergedriver %O %A %B %P``.

``hearth init`` and ``hearth hooks install`` register it in the repository's
config as ``merge.hearth-daily`` (``layout.MERGE_DRIVER``) and ``.gitattributes`` names it for daily
notes only, so a plain ``git merge`` or ``git pull`` merges them entry by
entry (``domain/daily_merge.py``) exactly as ``hearth sync`` does. git hands
over three temporary files (base, ours, theirs); the result replaces ours.
Exit 0 means merged; exit 1 leaves ours in place and git reports a
conflict, which ``hearth sync`` turns into a conflict copy. A clone where the
driver is not registered falls back to git's ordinary line merge.

This module imports only the pure merge, so a merge does not pay for the
rest of hearth's start-up.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hearth.domain.daily_merge import merge_daily


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
    merged = merge_daily(*texts)
    if merged is None:
        print(
            f"hearth: {shown}: both sides changed the note's title lines; kept ours",
            file=sys.stderr,
        )
        return 1
    if merged != texts[1]:
        ours.write_bytes(merged.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
