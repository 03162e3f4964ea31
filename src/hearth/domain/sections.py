"""Markdown files cut into heading-delimited sections: the documents of the index.

Every section carries the line range it came from, so a search hit can point
at the lines to read. A section runs from its heading line to the line before
the next heading of any level; text before the first heading is a section
with an empty heading. Headings inside fenced code blocks are not headings.
Long sections are cut at line boundaries (preferring blank lines) so a hit
points at a readable stretch rather than a whole file.

The title of every section is the file's title: the ``title`` of its front
matter, else its first ``# `` heading, else its file name.

Front matter is not body text, but the fields of it a person reads (a loop's
next step, a decision's why, a record's reason: ``READ_FIELDS``) are a
section of their own, over the front matter's lines and headed by the title:
a loop whose next step says "meet the landlord" is found by ``landlord``
(issue 48).
"""

from __future__ import annotations

import itertools
import re
from typing import NamedTuple

from hearth.domain import layout
from hearth.errors import InvalidRecord

#: Sections longer than this many characters are cut into chunks.
MAX_SECTION_CHARS = 3000

#: A line that may open or close a fenced code block (group 2: its fence) or be
#: a heading (group 3: its text, when it has any); group 1 is the line (up to
#: the fence for a fence, whole for a heading). One regex for both, so each
#: such line costs one match and every other line none.
_LINE = r"( {0,3}(?:(`{3,}|~{3,})|#{1,6}(?:[ \t]+([^\n]*?))?(?:[ \t]+#+)?[ \t]*(?=\n|\Z)))"
_FIRST_LINE = re.compile(_LINE)
#: The same after a newline: a search for it starts with the newline, which
#: ``re`` finds fast, rather than trying ``^`` at every character.
_NEXT_LINE = re.compile(r"\n" + _LINE)
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")
#: Front-matter fields written for a person to read (the records' free text,
#: ``domain/records.py``), in the order their section holds them.
READ_FIELDS: tuple[str, ...] = ("next_step", "why", "rationale", "resolution", "reason")


class Section(NamedTuple):
    """One document of the index (a named tuple: 40,000 of them are made per
    10,000-file build, and a frozen dataclass costs several times as much)."""

    path: str
    kind: layout.Kind
    title: str
    heading: str
    body: str
    date: str
    start_line: int
    end_line: int


#: A block of lines: ``(heading, heading_line, body_start, body_end,
#: start_offset, end_offset)``: the heading's text, the 0-based index of its
#: line (None before the first heading), the body's lines (0-based, end
#: exclusive), where line ``body_start`` begins in the text, and where the body
#: ends (before the newline ending line ``body_end - 1``). A plain tuple: made
#: once a section, a named tuple cost more than the rest of the loop.
_Block = tuple[str, int | None, int, int, int, int]


class _Lines:
    """The text's lines, split only when a long block needs them."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _split_lines(self.text)
        return self._lines


def _split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def split_sections(path: str, text: str) -> list[Section]:
    """The sections of one markdown file, in file order."""
    if text.startswith("\ufeff"):
        text = text[1:]
    meta: dict[str, object] = {}
    first_body_line, body_offset = 0, 0
    if text.split("\n", 1)[0].strip() == "---":
        lines = _split_lines(text)
        meta, first_body_line = _front_matter(text, lines)
        body_offset = sum(len(line) + 1 for line in lines[:first_body_line])
    blocks = _blocks(text, first_body_line, body_offset)
    title = _title(path, meta, [b[0] for b in blocks if b[1] is not None])
    kind = layout.kind_of(path)
    date = _date(path, meta)
    sections: list[Section] = []
    read = [" ".join(v.split()) for f in READ_FIELDS if isinstance(v := meta.get(f), str)]
    if any(read) and first_body_line > 1:
        # The front matter's lines, from ``---`` to ``---``: where the fields are.
        lead = "\n".join(v for v in read if v)
        # Headed by the title: its vector is of "Holiday: Sam's friend lives
        # there", not of a short phrase that stands near any question.
        sections.append(Section(path, kind, title, title, lead, date, 1, first_body_line))
    split = _Lines(text)
    for block in blocks:
        heading, heading_line, body_start, body_end, start_offset, end_offset = block
        first = (heading_line if heading_line is not None else body_start) + 1
        region = text[start_offset:end_offset] if body_end > body_start else ""
        # Trailing blank lines are not part of the section: it ends with the line
        # holding the last character that is not white space.
        last = len(region.rstrip())
        if last == 0:
            sections.append(Section(path, kind, title, heading, "", date, first, first))
            continue
        line_end = region.find("\n", last)
        kept = region if line_end < 0 else region[:line_end]
        end = body_start + kept.count("\n") + 1
        if len(kept) + 1 <= MAX_SECTION_CHARS:  # the common case: one piece
            sections.append(Section(path, kind, title, heading, kept.strip("\n"), date, first, end))
            continue
        for start, last_line, body in _chunks(first - 1, body_start, end, split.lines):
            sections.append(Section(path, kind, title, heading, body, date, start, last_line))
    if not sections:
        # An empty file (or only front matter) still exists and is findable by title.
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        line = min(first_body_line + 1, max(count, 1))
        sections.append(Section(path, kind, title, "", "", date, line, line))
    return sections


def _front_matter(text: str, lines: list[str]) -> tuple[dict[str, object], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    # Imported here, not at the top: front_matter brings YAML, which a reader worker
    # (``reconcile/prepare.py``) needs only once it meets a file with front matter.
    from hearth.domain import front_matter  # noqa: PLC0415

    try:
        data, _body = front_matter.split_front_matter(text)
    except InvalidRecord:
        return {}, 0
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    return data, end + 1


def _blocks(text: str, start: int, offset: int) -> list[_Block]:
    """Heading-delimited blocks of lines from line ``start`` (at ``offset``) on,
    without a first block before any heading that holds only white space.

    Only lines that open or close a fence or are headings are looked at, found
    by one regex search over the text rather than a Python loop over every line.
    """
    blocks: list[_Block] = []
    heading, heading_line, body_start, start_offset = "", None, start, offset
    fence: str | None = None
    # Line ``start`` begins at ``offset``: lines are counted from there, and
    # only up to the headings.
    line_number, scanned = start, offset
    first = _FIRST_LINE.match(text, offset)
    found = _NEXT_LINE.finditer(text, offset)
    for match in itertools.chain((first,), found) if first is not None else found:
        marker = match.group(2)
        if fence is not None:
            if marker is not None and marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if marker is not None:
            fence = marker
            continue
        at = match.start(1)
        line_number += text.count("\n", scanned, at)
        scanned = at
        end_offset = max(at - 1, start_offset)
        # Only the first block can have no heading.
        if heading_line is not None or text[start_offset:end_offset].strip():
            blocks.append(
                (heading, heading_line, body_start, line_number, start_offset, end_offset)
            )
        heading, heading_line = (match.group(3) or "").strip(), line_number
        body_start, start_offset = line_number + 1, match.end() + 1
    size = len(text) - 1 if text.endswith("\n") else len(text)
    if heading_line is not None or text[start_offset:size].strip():
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        blocks.append((heading, heading_line, body_start, count, start_offset, size))
    return blocks


def _title(path: str, meta: dict[str, object], headings: list[str]) -> str:
    """The file's title; ``headings`` are the texts of its heading lines, in order."""
    value = meta.get("title")
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    for heading in headings:
        if heading:
            return heading
    stem = path.rsplit("/", 1)[-1]
    return stem[: -len(".md")] if stem.endswith(".md") else stem


def _date(path: str, meta: dict[str, object]) -> str:
    name = path.rsplit("/", 1)[-1]
    match = _DATE.match(name)
    if match:
        return match.group(1)
    created = meta.get("created")
    if created is not None:
        found = _DATE.match(str(created))
        if found:
            return found.group(1)
    return ""


def _chunks(first: int, body_start: int, end: int, lines: list[str]) -> list[tuple[int, int, str]]:
    """``(start_line, end_line, body)`` pieces of a block too long for one section, lines
    1-based and inclusive: its heading at line index ``first``, its body lines from
    ``body_start`` to ``end`` (exclusive, trailing blank lines left out)."""
    pieces: list[list[int]] = [[]]
    size = 0
    for index in range(body_start, end):
        length = len(lines[index]) + 1
        if size + length - 1 > MAX_SECTION_CHARS and pieces[-1]:
            cut = _cut_point(pieces[-1], lines)
            carry = pieces[-1][cut:]
            pieces[-1] = pieces[-1][:cut]
            pieces.append(carry)
            size = sum(len(lines[i]) + 1 for i in carry)
        pieces[-1].append(index)
        size += length
    chunks = []
    for n, piece in enumerate(pieces):
        while len(piece) > 1 and not lines[piece[-1]].strip():
            piece.pop()
        start = first if n == 0 else piece[0]
        body = "\n".join(lines[i] for i in piece).strip("\n")
        chunks.append((start + 1, piece[-1] + 1, body))
    return chunks


def _cut_point(piece: list[int], lines: list[str]) -> int:
    """Where to end a full chunk: after its last blank line in the second half, else at its end."""
    for i in range(len(piece) - 1, len(piece) // 2, -1):
        if not lines[piece[i]].strip():
            return i + 1
    return len(piece)
