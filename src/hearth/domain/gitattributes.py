"""The home's ``.gitattributes``: what hearth writes there (its merge drivers for
daily notes and entry files), what older hearths wrote, and what a line there
does that a person should hear about (``attention``: ACTIVE.md's Needs
attention, through sync's status)."""

from __future__ import annotations

from collections.abc import Collection

#: The git merge drivers (``hearth.mergedriver``), registered in the
#: repository's config by init and ``hooks install``: daily notes, and entry
#: files (USER.md, MEMORY.md, users/<id>.md). One command serves both.
MERGE_DRIVER = "hearth-daily"
ENTRY_MERGE_DRIVER = "hearth-entries"
MERGE_DRIVERS = (MERGE_DRIVER, ENTRY_MERGE_DRIVER)

GITATTRIBUTES = f"""\
# Written by hearth init. Daily notes and entry files merge entry by entry
# (hearth's merge drivers); every other file merges as git does, and sync
# keeps both sides.
memory/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md merge={MERGE_DRIVER}
continuity/daily/[0-9][0-9][0-9][0-9]/[0-9][0-9]/*.md merge={MERGE_DRIVER}
/USER.md merge={ENTRY_MERGE_DRIVER}
/MEMORY.md merge={ENTRY_MERGE_DRIVER}
users/*.md merge={ENTRY_MERGE_DRIVER}
"""


def foreign_attributes(line: str) -> str | None:
    """What a line of .gitattributes does that takes a file out of hearth's
    merges or changes what git checks out, said for a person; None for a line
    that does neither. A commit that arrives by sync may carry such a line:
    ``* merge=union`` has git splice SOUL.md line by line when two machines
    changed it (no conflict, no copy kept), ``*.md working-tree-encoding=UTF-16``
    has every note checked out as bytes no reader takes for text, and
    ``filter=NAME`` runs whatever this machine's git config names for NAME."""
    if line.lstrip().startswith("#") or not line.split():
        return None
    pattern, *attributes = line.split()
    for attribute in attributes:
        name, _, value = attribute.partition("=")
        if name == "merge" and value and value not in (*MERGE_DRIVERS, "text"):
            return f"has git merge {pattern} with the {value!r} merge, not hearth's"
        if name == "working-tree-encoding":
            return f"has git check {pattern} out as {value or 'another encoding'}, not UTF-8"
        if name == "filter" and value:
            return f"has git run the {value!r} filter on {pattern} as it checks it out"
    return None


#: What older hearth versions wrote to .gitattributes: union-merging every
#: file in memory/ spliced topic notes. ``init`` and ``hooks install`` drop it.
LEGACY_GITATTRIBUTES = (
    "# Written by hearth init. Daily notes are append-only: merge both sides' lines.",
    "memory/*.md merge=union",
)


def attention(lines: Collection[str]) -> list[str]:
    """What the person should hear about a ``.gitattributes`` of ``lines`` (each
    stripped): the union rule older hearths wrote, a hearth-written file without
    the entry files' driver, and every line that takes files out of hearth's
    merges or changes what git checks out (``foreign_attributes``)."""
    notes = []
    wanted = {line for line in GITATTRIBUTES.splitlines() if "merge=" in line}
    hearths = any(f"merge={MERGE_DRIVER}" in line for line in lines)
    if LEGACY_GITATTRIBUTES[1] in lines:
        notes.append(
            ".gitattributes still union-merges every file in memory/ (as older hearths "
            "wrote it), which splices topic notes changed on two machines; run "
            "'hearth hooks install' to move to the daily-note merge driver (one commit)"
        )
    elif hearths and not wanted <= set(lines):
        notes.append(
            ".gitattributes does not name the entry merge driver (an older hearth wrote "
            "it): run 'hearth hooks install' so USER.md and MEMORY.md merge entry by entry"
        )
    for line in sorted(lines):
        why = None if line in LEGACY_GITATTRIBUTES else foreign_attributes(line)
        if why:
            notes.append(
                f".gitattributes line {line!r} {why}; unless you wrote it on purpose, delete "
                "the line and commit ('git log -p .gitattributes' shows which commit added it)"
            )
    return notes
