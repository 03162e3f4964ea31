"""Markdown files cut into heading-delimited sections: the documents of the index.

Every section carries the line range it came from, so a search hit can point
at the lines to read. A section runs from its heading line to the line before
the next heading of any level; text before the first heading is a section
with an empty heading. Headings inside fenced code blocks are not headings.
Long sections are cut at line boundaries (preferring blank lines) so a hit
points at a readable stretch rather than a whole file.

The title of every section is the file's title: the ``title`` of its front
matter, else its first ``# `` heading, else its file name.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from hearth.domain import layout, records
from hearth.errors import InvalidRecord

#: Sections longer than this many characters are cut into chunks.
MAX_SECTION_CHARS = 3000

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: A line that may be a heading or a fence: up to 3 spaces, then one of ``#`~``.
_CANDIDATE = re.compile(r" {0,3}[#`~][^\n]*")
#: The same after a newline: a search for it starts with the newline, which
#: ``re`` finds fast, rather than trying ``^`` at every character.
_NEXT_CANDIDATE = re.compile(r"\n( {0,3}[#`~][^\n]*)")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


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


class _Block(NamedTuple):
    heading: str
    heading_line: int | None  # 0-based index of the heading line
    body_start: int  # 0-based line index, inclusive
    body_end: int  # 0-based line index, exclusive
    start_offset: int  # where line body_start begins in the text
    end_offset: int  # where the body ends: before the newline ending line body_end - 1


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
    title = _title(path, meta, blocks)
    kind = layout.kind_of(path)
    date = _date(path, meta)
    sections: list[Section] = []
    split = _Lines(text)
    for block in blocks:
        for start, end, body in _chunks(block, split):
            sections.append(Section(path, kind, title, block.heading, body, date, start, end))
    if not sections:
        # An empty file (or only front matter) still exists and is findable by title.
        count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        line = min(first_body_line + 1, max(count, 1))
        sections.append(Section(path, kind, title, "", "", date, line, line))
    return sections


def _front_matter(text: str, lines: list[str]) -> tuple[dict[str, object], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    try:
        data, _body = records.split_front_matter(text)
    except InvalidRecord:
        return {}, 0
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    return data, end + 1


def _blocks(text: str, start: int, offset: int) -> list[_Block]:
    """Heading-delimited blocks of lines from line ``start`` (at ``offset``) on.

    Only lines that may open a fence or be a heading (up to three spaces, then
    ``#``, a backtick or a tilde) are looked at, found by one regex search
    over the text rather than a Python loop over every line.
    """
    size = len(text) - 1 if text.endswith("\n") else len(text)
    count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    blocks: list[_Block] = []
    heading, heading_line, body_start, start_offset = "", None, start, offset
    fence: str | None = None
    line_number, scanned = 0, 0
    for at, line in _candidates(text, offset):
        line_number += text.count("\n", scanned, at)
        scanned = at
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1)[0] == fence[0] and len(opener.group(1)) >= len(fence):
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        match = _HEADING.match(line)
        if match:
            blocks.append(
                _Block(
                    heading,
                    heading_line,
                    body_start,
                    line_number,
                    start_offset,
                    max(at - 1, start_offset),
                )
            )
            heading, heading_line = (match.group(2) or "").strip(), line_number
            body_start, start_offset = line_number + 1, at + len(line) + 1
    blocks.append(_Block(heading, heading_line, body_start, count, start_offset, size))
    return [
        b
        for b in blocks
        if b.heading_line is not None or text[b.start_offset : b.end_offset].strip()
    ]


def _candidates(text: str, offset: int) -> Iterator[tuple[int, str]]:
    """``(offset, line)`` of the lines from ``offset`` on that may be headings or fences."""
    first = _CANDIDATE.match(text, offset)
    if first is not None:
        yield offset, first.group(0)
    for found in _NEXT_CANDIDATE.finditer(text, offset):
        yield found.start(1), found.group(1)


def _title(path: str, meta: dict[str, object], blocks: list[_Block]) -> str:
    value = meta.get("title")
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    for block in blocks:
        if block.heading_line is not None and block.heading:
            return block.heading
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


def _chunks(block: _Block, split: _Lines) -> list[tuple[int, int, str]]:
    """``(start_line, end_line, body)`` pieces of a block, lines 1-based and inclusive."""
    first = block.heading_line if block.heading_line is not None else block.body_start
    text = split.text
    region = (
        text[block.start_offset : block.end_offset] if block.body_end > block.body_start else ""
    )
    # Trailing blank lines are not part of the section: it ends with the line
    # holding the last character that is not white space.
    last = len(region.rstrip())
    if last == 0:
        return [(first + 1, first + 1, "")]
    line_end = region.find("\n", last)
    kept = region if line_end < 0 else region[:line_end]
    end = block.body_start + kept.count("\n") + 1
    if len(kept) + 1 <= MAX_SECTION_CHARS:  # the common case: one piece
        return [(first + 1, end, kept.strip("\n"))]
    lines = split.lines
    pieces: list[list[int]] = [[]]
    size = 0
    for index in range(block.body_start, end):
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
