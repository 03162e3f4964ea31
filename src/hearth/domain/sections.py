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
from dataclasses import dataclass

from hearth.domain import layout, records
from hearth.errors import InvalidRecord

#: Sections longer than this many characters are cut into chunks.
MAX_SECTION_CHARS = 3000

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: First characters a heading or fence line can start with (up to 3 spaces of indent).
_MARKUP_STARTS = frozenset(" #`~")
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class Section:
    path: str
    kind: layout.Kind
    title: str
    heading: str
    body: str
    date: str
    start_line: int
    end_line: int


@dataclass(frozen=True)
class _Block:
    heading: str
    heading_line: int | None  # 0-based index of the heading line
    body_start: int  # 0-based, inclusive
    body_end: int  # 0-based, exclusive


def split_sections(path: str, text: str) -> list[Section]:
    """The sections of one markdown file, in file order."""
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    meta, first_body_line = _front_matter(text, lines)
    blocks = _blocks(lines, first_body_line)
    title = _title(path, meta, blocks)
    kind = layout.kind_of(path)
    date = _date(path, meta)
    sections: list[Section] = []
    for block in blocks:
        for start, end, body in _chunks(block, lines):
            sections.append(Section(path, kind, title, block.heading, body, date, start, end))
    if not sections:
        # An empty file (or only front matter) still exists and is findable by title.
        line = min(first_body_line + 1, max(len(lines), 1))
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


def _blocks(lines: list[str], start: int) -> list[_Block]:
    blocks: list[_Block] = []
    heading, heading_line, body_start = "", None, start
    fence: str | None = None
    for i in range(start, len(lines)):
        line = lines[i]
        if line[:1] not in _MARKUP_STARTS:
            continue  # the common case: neither a fence nor a heading
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
            blocks.append(_Block(heading, heading_line, body_start, i))
            heading, heading_line, body_start = (match.group(2) or "").strip(), i, i + 1
    blocks.append(_Block(heading, heading_line, body_start, len(lines)))
    return [
        b
        for b in blocks
        if b.heading_line is not None
        or any(lines[i].strip() for i in range(b.body_start, b.body_end))
    ]


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


def _chunks(block: _Block, lines: list[str]) -> list[tuple[int, int, str]]:
    """``(start_line, end_line, body)`` pieces of a block, lines 1-based and inclusive."""
    end = block.body_end
    while end > block.body_start and not lines[end - 1].strip():
        end -= 1
    if end == block.body_start:
        first = block.heading_line if block.heading_line is not None else block.body_start
        return [(first + 1, first + 1, "")]
    first = block.heading_line if block.heading_line is not None else block.body_start
    size = sum(len(lines[i]) + 1 for i in range(block.body_start, end))
    if size <= MAX_SECTION_CHARS:  # the common case: one piece
        return [(first + 1, end, "\n".join(lines[block.body_start : end]).strip("\n"))]
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
        text = "\n".join(lines[i] for i in piece).strip("\n")
        chunks.append((start + 1, piece[-1] + 1, text))
    return chunks


def _cut_point(piece: list[int], lines: list[str]) -> int:
    """Where to end a full chunk: after its last blank line in the second half, else at its end."""
    for i in range(len(piece) - 1, len(piece) // 2, -1):
        if not lines[piece[i]].strip():
            return i + 1
    return len(piece)
