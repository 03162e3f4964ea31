"""git's merge driver for daily notes and entry files: ``python -m hearth.mergedriver %O %A %B %P``.

``hearth init`` and ``hearth hooks install`` register it in the repository's
config as ``merge.hearth-daily`` and ``merge.hearth-entries``
(``gitattributes.MERGE_DRIVERS``), and ``.gitattributes`` names them for daily notes
and for USER.md, MEMORY.md and ``users/<id>.md``, so a plain ``git merge`` or
``git pull`` merges them exactly as ``hearth sync`` does: daily notes entry by
entry (``domain/daily_merge.py``), entry files entry by entry three-way
(``domain/entry_merge.py``). git hands over three temporary files (base, ours,
theirs) and the path (``%P``), which says which merge applies; the result
replaces ours.

The driver writes only the merged file (%A) into the work tree: no record,
no copy, so git's own verbs (a rebase, a cherry-pick, the virtual base of a
criss-cross merge) see nothing in the work tree they did not expect. An entry
changed two different ways is not a failed merge: both versions stay in the
file, side by side, where the assistant and the person see them; ``hearth
sync`` names them as entry conflicts (records it commits with the merge).
Under a plain ``git pull`` the driver names each on git's output (the entry,
both versions, how to settle it) and notes it in the repository's own folder
(``.git/hearth/pulled-conflicts/``), where ``hearth memory conflicts``,
``hearth status`` and ``hearth memory settle`` find it until it is settled.
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
from hearth.domain.entry_merge import (
    PULLED_DIR,
    EntryConflict,
    conflict_id,
    merge_entry_files,
    pulled_name,
    render_record,
)
from hearth.domain.layout import is_daily_note


def _noted(path: str, conflict: EntryConflict) -> None:
    """Note the conflict in the repository's own folder (``entry_merge.PULLED_DIR``),
    for ``hearth memory conflicts`` and ``hearth status``: git runs the driver
    at the top of the work tree. Nothing noted is no failure of the merge."""
    done = subprocess.run(
        ["git", "rev-parse", "--absolute-git-dir"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0 or not done.stdout.strip():
        return
    folder = Path(done.stdout.strip()) / PULLED_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / pulled_name(path, conflict)).write_text(render_record(path, conflict)[1])
    except OSError:
        return


def _said(path: str, conflict: EntryConflict) -> str:
    """What the person running git is told of one entry conflict: which entry,
    both versions, and how to settle it."""
    named = conflict_id(path, conflict)
    versions = (
        f"both versions are in the file: «{conflict.kept}» and «{conflict.other}»"
        if conflict.other is not None
        else f"«{conflict.kept}» is in the file, removed on the other side"
    )
    return (
        f"hearth: {path}: entry conflict {named}: «{conflict.base}» was changed two ways; "
        f"{versions}. Settle it with 'hearth memory settle {named} --keep file' (the "
        "first) or '--keep other' ('hearth memory conflicts' lists it)"
    )


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
            _noted(shown, conflict)
            print(_said(shown, conflict), file=sys.stderr)
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
