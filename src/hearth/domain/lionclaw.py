"""LionClaw's own record format, read and written as LionClaw writes it.

LionClaw (crates/lionclaw/src/kernel/continuity.rs) writes a memory proposal as

    # Memory Proposal: <title>

    - Status: proposed
    - Key: <key>.md
    - Proposed: 2026-04-03T09:30:00.123456789+00:00 UTC
    - Source: <source>            (only when given)
    - Rationale: <rationale>      (only when given)

    ## Candidate Entries
    - <entry>

and an open loop as ``# <title>`` followed by ``- Status: open``, ``- Key:``,
``- Updated:``, and optional ``- Source:``, ``- Summary:``, ``- Next Step:``
bullets. A metadata value is the first line, anywhere in the file, that starts
with ``- <Name>:`` once trimmed. Archiving (merge, reject, resolve) rewrites
the metadata block, the lines before the first ``## `` heading: the
``Status`` line and the time line (``Proposed`` for proposals, ``Updated`` for
loops) are taken out and appended with their new values, every other line
kept. hearth archives a LionClaw record the same way, so the archive reads
the same whoever made it; what hearth adds (a rejection reason, a
resolution note, a target other than MEMORY.md) are ordinary ``- Name:``
bullets in the metadata block, which LionClaw ignores.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable

from hearth.domain.keys import WHITE_SPACE

PROPOSAL_PREFIX = "Memory Proposal: "
CANDIDATE_ENTRIES = "## Candidate Entries"
#: LionClaw's status word for a pending proposal (hearth says ``pending``).
PROPOSED = "proposed"

_HEADING = re.compile(r"^#(?:[ \t]+(.*?))?[ \t]*$")


def lines_of(text: str) -> list[str]:
    """Lines as Rust's ``str::lines`` gives them: split on ``\\n`` only, a final
    empty line dropped, a trailing ``\\r`` removed."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text:
        return []
    parts = text.removesuffix("\n").split("\n")
    return [part.removesuffix("\r") for part in parts]


def _trim(line: str) -> str:
    return line.strip(WHITE_SPACE)


def looks_like_record(text: str) -> bool:
    """A LionClaw record: a ``# `` heading and a ``- Key:`` or ``- Status:`` bullet."""
    return heading(text) is not None and (
        metadata_value(text, "Key") is not None or metadata_value(text, "Status") is not None
    )


def heading(text: str) -> str | None:
    """The text of the first level-one heading (``""`` for a bare ``#``), or None."""
    for line in lines_of(text):
        match = _HEADING.match(_trim(line))
        if match:
            return _trim(match.group(1) or "")
    return None


def metadata_value(text: str, name: str) -> str | None:
    """The value of the first ``- <name>:`` line (trimmed), or None when absent or empty."""
    prefix = f"- {name}:"
    for line in lines_of(text):
        stripped = _trim(line)
        if stripped.startswith(prefix):
            value = _trim(stripped[len(prefix) :])
            return value or None
    return None


def bullet_section(text: str, marker: str) -> list[str]:
    """The ``- `` items under the heading ``marker``, up to the next ``## ``."""
    lines = lines_of(text)
    start = next((i for i, line in enumerate(lines) if _trim(line).startswith(marker)), None)
    if start is None:
        return []
    values = []
    for line in lines[start + 1 :]:
        stripped = _trim(line)
        if stripped.startswith("## "):
            break
        if stripped.startswith("- ") and _trim(stripped[2:]):
            values.append(_trim(stripped[2:]))
    return values


def proposal_title(text: str) -> str | None:
    title = heading(text)
    if title is None:
        return None
    return _trim(title.removeprefix(PROPOSAL_PREFIX.rstrip()))


def timestamp(moment: dt.datetime) -> str:
    """A time as LionClaw writes it: RFC 3339 in UTC followed by `` UTC``."""
    utc = moment.astimezone(dt.UTC)
    # chrono's to_rfc3339 shows as many fraction digits as needed (0, 3, 6 or 9).
    if not utc.microsecond:
        spec = "seconds"
    elif utc.microsecond % 1000 == 0:
        spec = "milliseconds"
    else:
        spec = "microseconds"
    text = utc.isoformat(timespec=spec)
    return f"{text} UTC"


def as_lionclaw_time(stamp: str) -> str:
    """hearth's ``...Z`` stamp in LionClaw's spelling; anything else unchanged."""
    if not stamp.endswith("Z"):
        return stamp
    try:
        return timestamp(dt.datetime.fromisoformat(stamp))
    except ValueError:
        return stamp


def _bullets(fields: Iterable[tuple[str, str]]) -> str:
    # One line each: a value's line break would start a bullet of its own, a
    # ``- Status:`` the record never had.
    return "".join(
        f"- {name}: {' '.join(value.split())}\n" for name, value in fields if value.strip()
    )


def render_proposal(
    title: str,
    key: str,
    status: str,
    proposed: str,
    entries: Iterable[str],
    extra: Iterable[tuple[str, str]] = (),
) -> str:
    """A proposal file byte for byte as LionClaw's renderer writes it.

    ``extra`` are (name, value) bullets after the ones LionClaw writes
    (``Source`` and ``Rationale`` go here, in that order, as LionClaw orders them).
    """
    head = f"# {PROPOSAL_PREFIX}{title.strip()}\n\n"
    meta = _bullets([("Status", status), ("Key", f"{key}.md"), ("Proposed", proposed), *extra])
    body = "".join(f"- {entry}\n" for entry in entries)
    return f"{head}{meta}\n{CANDIDATE_ENTRIES}\n{body}\n"


def render_loop(
    title: str, key: str, status: str, updated: str, extra: Iterable[tuple[str, str]] = ()
) -> str:
    """An open-loop file as LionClaw writes it (``Source``, ``Summary``, ``Next Step`` in extra)."""
    meta = _bullets([("Status", status), ("Key", f"{key}.md"), ("Updated", updated), *extra])
    return f"# {title.strip()}\n\n{meta}\n"


def archive(
    text: str,
    status: str,
    time_field: str,
    time_value: str,
    extra: Iterable[tuple[str, str]] = (),
) -> str:
    """The record as LionClaw archives it: new ``Status`` and time lines at the end of
    the metadata block (the lines before the first ``## `` heading); ``extra``
    bullets replace lines of the same name, or are added, just before them."""
    lines = lines_of(text)
    end = next((i for i, line in enumerate(lines) if _trim(line).startswith("## ")), len(lines))
    added = [(name, value) for name, value in extra if value.strip()]
    replaced = tuple(f"- {name}:" for name in ("Status", time_field, *(n for n, _ in added)))
    kept = [line for line in lines[:end] if not _trim(line).startswith(replaced)]
    kept += [f"- {name}: {' '.join(value.split())}" for name, value in added]
    kept += [f"- Status: {status}", f"- {time_field}: {time_value}"]
    rendered = "\n".join([*kept, *lines[end:]])
    return rendered if rendered.endswith("\n") else rendered + "\n"


def set_key_line(text: str, old: str, new: str) -> str:
    """``text`` with its first ``- Key: <old>`` line naming ``new`` instead."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _trim(line).startswith("- Key:") and _trim(_trim(line)[len("- Key:") :]) == old:
            lines[i] = line.replace(old, new, 1)
            break
    return "\n".join(lines)
