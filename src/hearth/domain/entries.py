"""Entries of a memory file: the ``- `` lines of its ``## Entries`` section.

USER.md, MEMORY.md and any markdown file with an ``## Entries`` section keep
their durable facts as one line each there. A runtime changes them one entry
at a time (add, replace, remove), each its own commit, instead of rewriting
the whole file; an entry is named by its exact text or by its number
(``#3``, counting from 1 in file order), which ``list_entries`` shows.

Pure functions: text in, text out. A file without the section gets one at
its end on the first add; replacing or removing an entry that is not there
is a conflict (someone else changed the file since it was read).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hearth.domain.notes import ENTRIES_HEADING, add_entries
from hearth.errors import Conflict, EntryMissing, InvalidInput

#: Longest entry, in characters: an entry is a line, detail goes to a topic note.
MAX_ENTRY_CHARS = 2000
_NUMBER = re.compile(r"^#(\d{1,6})$")


@dataclass(frozen=True)
class Entry:
    number: int
    text: str
    line: int  # 1-based line number in the file

    def as_dict(self) -> dict[str, object]:
        return {"number": self.number, "text": self.text, "line": self.line}


def clean_entry(text: str) -> str:
    """An entry as stored: one line, no leading ``- ``, within the bound."""
    if "\n" in text.strip():
        raise InvalidInput(
            "an entry is one line; put longer notes in memory/topics/<topic>.md "
            "and leave a one-line pointer here"
        )
    one = " ".join(text.split())
    if one.startswith("- "):
        one = one[2:].strip()
    if not one:
        raise InvalidInput("the entry is empty; give the text of the entry")
    if len(one) > MAX_ENTRY_CHARS:
        raise InvalidInput(f"an entry is at most {MAX_ENTRY_CHARS} characters ({len(one)} given)")
    return one


def _section(lines: list[str]) -> tuple[int, int] | None:
    """(heading line index, end index) of the ``## Entries`` section, or None."""
    start = next((i for i, line in enumerate(lines) if line.strip() == ENTRIES_HEADING), None)
    if start is None:
        return None
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith(("# ", "## "))),
        len(lines),
    )
    return start, end


def list_entries(text: str) -> list[Entry]:
    lines = text.split("\n")
    found = _section(lines)
    if found is None:
        return []
    start, end = found
    entries: list[Entry] = []
    for i in range(start + 1, end):
        stripped = lines[i].strip()
        if stripped.startswith("- ") and stripped[2:].strip():
            entries.append(Entry(len(entries) + 1, stripped[2:].strip(), i + 1))
    return entries


def find_entry(text: str, ref: str) -> Entry:
    """The entry ``ref`` names: ``#N``, or its exact text (spaces collapsed)."""
    entries = list_entries(text)
    number = _NUMBER.match(ref.strip())
    if number:
        n = int(number.group(1))
        if 1 <= n <= len(entries):
            return entries[n - 1]
        raise EntryMissing(
            f"there is no entry #{n}; the file has {len(entries)} entries "
            "(list them to see their numbers)"
        )
    # The entry's own text first: an entry that itself starts with "- " (stored
    # as "- - a", listed as "- a") is named by what the listing shows.
    exact = " ".join(ref.split())
    wanted = clean_entry(ref)
    for named in dict.fromkeys((exact, wanted)):
        for entry in entries:
            if entry.text == named:
                return entry
    raise EntryMissing(
        f"no entry reads {wanted!r}; it may have been changed or removed since you read it "
        "(list the entries and try again)"
    )


def add_entry(text: str, entry: str) -> str:
    """``text`` with ``entry`` appended to its ``## Entries`` section."""
    new, added = add_entries(text, [clean_entry(entry)])
    if not added:
        raise Conflict(f"the entry {clean_entry(entry)!r} is already there")
    return new


def replace_entry(text: str, ref: str, new_entry: str) -> str:
    entry = find_entry(text, ref)
    replacement = clean_entry(new_entry)
    if replacement != entry.text and any(e.text == replacement for e in list_entries(text)):
        raise Conflict(f"the entry {replacement!r} is already there")
    lines = text.split("\n")
    line = lines[entry.line - 1]
    indent = line[: len(line) - len(line.lstrip())]
    lines[entry.line - 1] = f"{indent}- {replacement}"
    return "\n".join(lines)


def remove_entry(text: str, ref: str) -> str:
    entry = find_entry(text, ref)
    lines = text.split("\n")
    del lines[entry.line - 1]
    return "\n".join(lines)
