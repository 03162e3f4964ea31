"""Entries of a memory file: one bullet each.

USER.md, MEMORY.md, ``users/<id>.md`` and any markdown file with an
``## Entries`` section keep their durable facts as entries: a bullet (``- ``, or
``* `` and ``+ ``, which markdown reads alike and a person's editor may
write), with the lines a person wrapped it onto (indented or not, as markdown
reads a list item) and its sub-bullets (``entry_blocks``). Where the file has
an ``## Entries`` section, its bullets are the entries; a file without one (a
workspace adopted from OpenClaw or Lemon, whose MEMORY.md is plain bullets)
has every bullet at the margin outside a code fence as an entry. A bullet's
marker is how it is written, not what it says: an entry is known by its text,
and hearth writes new entries with the marker the file already uses
(``bullet_of``). ``hearth memory``, proposal merges, supersession,
consolidation, likeness and the sync merge (``entry_merge.py``) all read
entries through ``entry_blocks`` here, so they see the same ones.

A runtime changes them one entry at a time (add, replace, remove), each its
own commit, instead of rewriting the whole file; an entry is named by its
exact text or by its number (``#3``, counting from 1 in file order), which
``list_entries`` shows.

Pure functions: text in, text out. An add goes at the end of the section, or
after the last adopted bullet; a file with neither gets an ``## Entries``
section at its end. Replacing or removing an entry that is not there is a
conflict (someone else changed the file since it was read).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from hearth.domain.blocks import continues, unfenced
from hearth.errors import Conflict, EntryMissing, InvalidInput

ENTRIES_HEADING = "## Entries"
#: Where an entry goes in a file of named sections when none is named: USER.md
#: keeps "## Preferences" and "## Context" (hearth's template), and an add went
#: under Context before sections could be named.
DEFAULT_SECTIONS = {"USER.md": "Context"}
#: The placeholder bullets of older home templates' USER.md: instructions to the
#: person, not entries (today's template writes them as comments).
TEMPLATE_PLACEHOLDERS = frozenset(
    {
        "(how they like answers: brief or detailed, formal or casual)",
        "(work, projects, people and places that come up often)",
    }
)

#: Longest entry, in characters: an entry is a line, detail goes to a topic note.
MAX_ENTRY_CHARS = 2000
_NUMBER = re.compile(r"^#(\d{1,6})$")
#: The bullet markers markdown reads as one: a marker, then a space.
BULLETS = ("- ", "* ", "+ ")
#: A line of three or more ``*`` (spaces between allowed) is a thematic break,
#: a rule across the page, not a bullet. (``- - -`` is one too in markdown, but
#: hearth has always read it as an entry, and an entry reading ``- -`` is
#: written so: it stays one.)
_BREAK = re.compile(r"^\*(?:[ \t]*\*){2,}[ \t]*$")


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


def _section(lines: Sequence[str], outside: Sequence[bool]) -> tuple[int, int] | None:
    """(heading line index, end index) of the ``## Entries`` section, or None."""
    start = next(
        (i for i, line in enumerate(lines) if outside[i] and line.strip() == ENTRIES_HEADING),
        None,
    )
    if start is None:
        return None
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if outside[i] and lines[i].startswith(("# ", "## "))
        ),
        len(lines),
    )
    return start, end


def is_bullet(line: str) -> bool:
    """Whether ``line`` (leading spaces aside) is a bullet: ``- ``, ``* `` or ``+ ``
    then text (a thematic break such as ``* * *`` is not)."""
    stripped = line.strip()
    return (
        stripped.startswith(BULLETS) and bool(stripped[2:].strip()) and not _BREAK.match(stripped)
    )


def bullet_of(lines: Sequence[str], near: int | None = None) -> str:
    """The marker hearth writes a new entry with: that of the entry at or before
    line index ``near`` (else of the file's last entry), ``-`` in a file with none."""
    held = [b for b in entry_blocks(lines) if near is None or b.start <= near]
    return lines[held[-1].start].lstrip()[0] if held else "-"


def bulleted(marker: str, entry: str) -> str:
    """``entry``'s line with ``marker``; with ``-`` when the marker would make
    it a thematic break (an entry reading ``* *``), so it is read back."""
    line = f"{marker} {entry}"
    return line if not _BREAK.match(line) else f"- {entry}"


def _entry_text(line: str) -> str | None:
    stripped = line.strip()
    if is_bullet(stripped):
        text = stripped[2:].strip()
        return None if text in TEMPLATE_PLACEHOLDERS else text
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@dataclass(frozen=True)
class Block:
    """One entry as written: its bullet line, the continuation lines that wrap
    it, and its sub-bullets (with their own continuations), lines
    ``start``..``end`` (end excluded) of the file."""

    start: int
    #: End of the bullet's own text (bullet line and its continuation lines).
    head_end: int
    end: int
    #: The bullet's text, wrapped lines joined by one space.
    text: str
    #: What the entry says, whatever its indentation, wrapping, line endings or
    #: Unicode form (composed, NFC: an accent typed on one machine and saved
    #: decomposed on another is the same letter): its text, then each
    #: sub-bullet's as ``\n- sub``. Entries are known by it.
    key: str


def entry_blocks(lines: Sequence[str], *, adopted: bool = False) -> list[Block]:
    """Every entry among ``lines`` (a file split on "\\n"), as blocks.

    The bullets of the ``## Entries`` section when there is one; else (or with
    ``adopted``) the adopted form: every ``- `` line that starts at the margin,
    outside code fences. A line after an entry's bullet, with no blank line
    before it, belongs to that entry: indented deeper, a continuation of its
    text or a sub-bullet; at the bullet's depth or less, a lazy continuation of
    the text it follows (the entry's, or its last sub-bullet's), as markdown
    reads it, unless it starts a block of its own (``blocks.continues``). A bullet no
    deeper than the entry's starts the next one.
    """
    outside = unfenced(lines)
    found = None if adopted else _section(lines, outside)
    start, end = (found[0] + 1, found[1]) if found is not None else (0, len(lines))
    blocks: list[Block] = []
    i = start
    while i < end:
        line = lines[i]
        text = _entry_text(line) if outside[i] else None
        if text is None or (found is None and not line.startswith(BULLETS)):
            i += 1
            continue
        depth = _indent(line)
        parts = [text]
        subs: list[str] = []
        j = i + 1
        head_end = None
        while j < end and outside[j] and continues(lines[j], depth):
            sub = _entry_text(lines[j])
            if sub is not None:
                head_end = j if head_end is None else head_end
                subs.append(sub)
            elif subs:
                subs[-1] += " " + lines[j].strip()
            else:
                parts.append(lines[j].strip())
            j += 1
        joined = " ".join(" ".join(parts).split())
        key = joined + "".join("\n- " + " ".join(s.split()) for s in subs)
        key = _nfc(key)
        blocks.append(Block(i, j if head_end is None else head_end, j, joined, key))
        i = j
    return blocks


def entry_lines(lines: Sequence[str]) -> list[tuple[int, str]]:
    """(line index, entry text) of every entry among ``lines`` (``entry_blocks``)."""
    return [(b.start, b.text) for b in entry_blocks(lines)]


def has_entries_section(text: str) -> bool:
    lines = text.split("\n")
    return _section(lines, unfenced(lines)) is not None


def list_entries(text: str) -> list[Entry]:
    return [
        Entry(number, entry, i + 1)
        for number, (i, entry) in enumerate(entry_lines(text.split("\n")), start=1)
    ]


def add_entries(target: str, new: Sequence[str]) -> tuple[str, list[str]]:
    """Append ``- entry`` lines after the target's last entry.

    That is the end of its ``## Entries`` section, or, in an adopted file of
    plain bullets, the line after its last entry; a file with neither gets an
    ``## Entries`` section at its end. Exact duplicates of an entry already
    there (or repeated within ``new``) are skipped. Returns the new text and
    the entries added.
    """
    crlf, target = _lf(target)
    lines = target.split("\n")
    while len(lines) > 1 and not lines[-1].strip():
        lines.pop()
    if lines == [""]:
        lines = []
    outside = unfenced(lines)
    present = {_nfc(text) for _i, text in entry_lines(lines)}
    added: list[str] = []
    for entry in new:
        said = _nfc(" ".join(entry.split()))  # as entries are read back: spaces collapsed
        if said not in present:
            present.add(said)
            added.append(entry)
    if not added:
        return _styled(target, crlf), []
    found = _section(lines, outside)
    held = entry_blocks(lines)
    marker = bullet_of(lines)
    new_lines = [bulleted(marker, e) for e in added]
    if found is not None:
        start, end = found
        insert_at = end
        while insert_at > start + 1 and not lines[insert_at - 1].strip():
            insert_at -= 1
        if insert_at == start + 1:
            new_lines = ["", *new_lines]
        if end < len(lines):
            new_lines.append("")
        lines[insert_at:end] = new_lines
    elif held:
        after = held[-1].end
        lines[after:after] = new_lines
    else:
        lines += [*([""] if lines else []), ENTRIES_HEADING, "", *new_lines]
    return _styled("\n".join(lines).rstrip("\n") + "\n", crlf), added


def find_entry(text: str, ref: str) -> Entry:
    """The entry ``ref`` names: ``#N``, or its exact text (spaces collapsed, in
    either Unicode form)."""
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
            if _nfc(entry.text) == _nfc(named):
                return entry
    raise EntryMissing(
        f"no entry reads {wanted!r}; it may have been changed or removed since you read it "
        "(list the entries and try again)"
    )


def add_entry(text: str, entry: str, section: str | None = None) -> str:
    """``text`` with ``entry`` appended to its ``## Entries`` section, or (a file
    of plain bullets under named sections, as USER.md) to the end of
    ``## <section>``."""
    cleaned = clean_entry(entry)
    if section is not None and section.strip().lower() != ENTRIES_HEADING[3:].lower():
        return _add_to_section(text, cleaned, section.strip())
    new, added = add_entries(text, [cleaned])
    if not added:
        raise Conflict(f"the entry {cleaned!r} is already there")
    return new


def sections_of(text: str) -> list[str]:
    """The names of the file's ``## `` sections, in order (outside code fences)."""
    lines = text.split("\n")
    outside = unfenced(lines)
    return [
        line[3:].strip() for i, line in enumerate(lines) if outside[i] and line.startswith("## ")
    ]


def _add_to_section(text: str, entry: str, section: str) -> str:
    lines = text.split("\n")
    outside = unfenced(lines)
    if _section(lines, outside) is not None:
        # The file as it is now, not the request: 409, as for a file without
        # an entries section.
        raise Conflict(
            f"this file keeps its entries under '{ENTRIES_HEADING}': add without a section"
        )
    start = next(
        (
            i
            for i, line in enumerate(lines)
            if outside[i] and line.startswith("## ") and line[3:].strip().lower() == section.lower()
        ),
        None,
    )
    if start is None:
        named = ", ".join(sections_of(text)) or "none"
        raise Conflict(f"there is no '## {section}' section here (its sections: {named})")
    if any(_nfc(e.text) == _nfc(entry) for e in list_entries(text)):
        raise Conflict(f"the entry {entry!r} is already there")
    end = next(
        (
            i
            for i in range(start + 1, len(lines))
            if outside[i] and lines[i].startswith(("# ", "## "))
        ),
        len(lines),
    )
    marker = bullet_of(lines, end - 1)
    # An older template's placeholder gives way to the section's first entry.
    body = [
        line
        for line in lines[start + 1 : end]
        if line.strip()[2:].strip() not in TEMPLATE_PLACEHOLDERS
        or not line.strip().startswith(BULLETS)
    ]
    while body and not body[-1].strip():
        body.pop()
    body.append(bulleted(marker, entry))
    if end < len(lines):
        body.append("")
    lines[start + 1 : end] = body
    return "\n".join(lines).rstrip("\n") + "\n"


def replace_entry(text: str, ref: str, new_entry: str) -> str:
    """``text`` with the entry ``ref`` names reading ``new_entry`` (its wrapped
    lines replaced by the one line; its sub-bullets stay)."""
    crlf, text = _lf(text)
    entry = find_entry(text, ref)
    replacement = clean_entry(new_entry)
    if _nfc(replacement) != _nfc(entry.text) and any(
        _nfc(e.text) == _nfc(replacement) for e in list_entries(text)
    ):
        raise Conflict(f"the entry {replacement!r} is already there")
    lines = text.split("\n")
    line = lines[entry.line - 1]
    indent = line[: len(line) - len(line.lstrip())]
    block = _block_at(lines, entry.line - 1)
    # The entry keeps the marker it was written with.
    lines[block.start : block.head_end] = [indent + bulleted(line.lstrip()[0], replacement)]
    return _styled("\n".join(lines), crlf)


def remove_entry(text: str, ref: str) -> str:
    """``text`` without the entry ``ref`` names: its bullet, wrapped lines and sub-bullets."""
    crlf, text = _lf(text)
    entry = find_entry(text, ref)
    lines = text.split("\n")
    block = _block_at(lines, entry.line - 1)
    del lines[block.start : block.end]
    return _styled("\n".join(lines), crlf)


def _block_at(lines: Sequence[str], start: int) -> Block:
    return next(b for b in entry_blocks(lines) if b.start == start)


def _nfc(text: str) -> str:
    """An accent typed composed and one saved decomposed are the same letter."""
    return unicodedata.normalize("NFC", text)


def is_crlf(text: str) -> bool:
    """Whether most of ``text``'s lines end with CRLF (its line-ending style)."""
    ends = text.count("\n")
    return ends > 0 and text.count("\r\n") * 2 > ends


def _lf(text: str) -> tuple[bool, str]:
    crlf = is_crlf(text)
    return crlf, text.replace("\r\n", "\n") if crlf else text


def _styled(text: str, crlf: bool) -> str:
    """hearth's own writes keep the file's line endings."""
    return text.replace("\n", "\r\n") if crlf else text
