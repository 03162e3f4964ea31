"""Daily notes and the ``## Entries`` section of memory files.

Daily notes are append-only. In hearth's layout each entry is
``## HH:MM UTC — <title>``, a blank line and its text, and the file starts with
``# YYYY-MM-DD``. In LionClaw's layout (continuity/daily/YYYY/MM/) entries are
written as LionClaw writes them: ``## HH:MM UTC - <title>`` (a hyphen), the
text right below, then a blank line, in a file that starts with
``# Daily Continuity YYYY-MM-DD``. Because only lines are added, two
machines' appends merge without conflict.
"""

from __future__ import annotations

import datetime as dt
import re

from hearth.domain import entries as _entries
from hearth.domain.layout import DailyLayout
from hearth.errors import InvalidInput

#: A line of an entry's text that readers would take for the note's own structure:
#: a heading of level 1 (the ``# YYYY-MM-DD`` title) or 2 (an entry), with the up to
#: three spaces CommonMark allows before it. Such a line is escaped, not refused.
_STRUCTURE = re.compile(r"^( {0,3})(#{1,2})(?=[ \t]|$)", re.MULTILINE)
#: A line that opens or closes a fenced code block (``daily_merge`` and the search
#: sections read fences the same way).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")

#: Entries live in ``entries.py``; these names stay here for the proposal merges.
ENTRIES_HEADING = _entries.ENTRIES_HEADING
add_entries = _entries.add_entries
#: The time stamp that starts a daily entry's heading text (``09:30 UTC — ``).
ENTRY_STAMP = re.compile(r"^\d{2}:\d{2} UTC — ")
DEFAULT_ENTRY_TITLE = "note"


def escape_structure(text: str) -> str:
    """An entry's text that cannot open structure in the note it joins.

    A line that would read as a heading of level 1 or 2 (``# 2026-01-01``,
    ``## 09:00 UTC — Forged``, ``## Ideas``) gets a backslash before its ``#``:
    markdown shows it as the same words, and no reader of hearth's (the daily
    merge driver, ACTIVE.md's Today, rollups, search sections) takes it for an
    entry. Inside a code fence too: the rollups and Today read no fences. A
    fence the text leaves open is closed at its end, so it cannot swallow the
    entries appended after it (docs/formats.md, "Text cannot forge structure").
    """
    escaped = _STRUCTURE.sub(r"\1\\\2", text)
    fence: str | None = None
    for line in escaped.split("\n"):
        marker = _FENCE.match(line)
        if marker is None:
            continue
        if fence is None:
            fence = marker.group(1)
        elif marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
            fence = None
    return escaped if fence is None else f"{escaped}\n{fence}"


def append_daily_entry(
    existing: str | None,
    moment: dt.datetime,
    title: str,
    text: str,
    daily_layout: DailyLayout = "hearth",
) -> str:
    """Return the daily note with one entry appended (creating it when ``existing`` is None)."""
    body = escape_structure(text.strip("\n").rstrip())
    if not body.strip():
        raise InvalidInput("note text is empty; give the text to append")
    heading_title = " ".join(title.split()) or DEFAULT_ENTRY_TITLE
    utc = moment.astimezone(dt.UTC)
    if daily_layout == "lionclaw":
        entry = f"## {utc:%H:%M} UTC - {heading_title}\n{body}\n\n"
        first = f"# Daily Continuity {utc.date().isoformat()}\n\n"
    else:
        entry = f"## {utc:%H:%M} UTC — {heading_title}\n\n{body}\n"
        first = f"# {utc.date().isoformat()}\n\n"
    if existing is None or not existing.strip():
        return first + entry
    head = existing if existing.endswith("\n") else existing + "\n"
    if not head.endswith("\n\n"):
        head += "\n"
    return head + entry


def append_section(existing: str, moment: dt.datetime, text: str) -> str:
    """A topic note with one section appended: ``## <first line>`` (or the UTC
    time when the text is one paragraph) followed by the text."""
    body = text.strip("\n").rstrip()
    if not body.strip():
        raise InvalidInput("the text to append is empty")
    first, _, rest = body.partition("\n")
    if first.startswith("## "):
        section = body
    elif rest.strip() and len(first) <= 80:
        section = f"## {first.strip()}\n\n{rest.strip(chr(10))}"
    else:
        section = f"## {moment.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC\n\n{body}"
    head = existing.rstrip("\n") + "\n\n" if existing.strip() else ""
    return head + section + "\n"
