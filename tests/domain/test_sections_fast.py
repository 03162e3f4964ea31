"""Sectioning by one regex search gives what the former per-line loop gave."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from hearth.domain import layout
from hearth.domain.front_matter import split_front_matter
from hearth.domain.sections import MAX_SECTION_CHARS, Section, _date, _title, split_sections
from hearth.errors import InvalidRecord
from tests.conftest import examples

# -- the reference: split_sections as it was, a Python loop over every line --------

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True)
class _Block:
    heading: str
    heading_line: int | None
    body_start: int
    body_end: int


def reference(path: str, text: str) -> list[Section]:
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    meta: dict[str, object] = {}
    first_body_line = 0
    if lines and lines[0].strip() == "---":
        try:
            meta, _body = split_front_matter(text)
            end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
            first_body_line = end + 1
        except InvalidRecord:
            meta = {}
    blocks: list[_Block] = []
    heading, heading_line, body_start = "", None, first_body_line
    fence: str | None = None
    for i in range(first_body_line, len(lines)):
        line = lines[i]
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
    blocks = [
        b
        for b in blocks
        if b.heading_line is not None
        or any(lines[i].strip() for i in range(b.body_start, b.body_end))
    ]
    title = _title(path, meta, [b.heading for b in blocks if b.heading_line is not None])
    kind, date = layout.kind_of(path), _date(path, meta)
    sections = [
        Section(path, kind, title, block.heading, body, date, start, end)
        for block in blocks
        for start, end, body in _chunks(block, lines)
    ]
    if not sections:
        line = min(first_body_line + 1, max(len(lines), 1))
        sections.append(Section(path, kind, title, "", "", date, line, line))
    return sections


def _chunks(block: _Block, lines: list[str]) -> list[tuple[int, int, str]]:
    end = block.body_end
    while end > block.body_start and not lines[end - 1].strip():
        end -= 1
    first = block.heading_line if block.heading_line is not None else block.body_start
    if end == block.body_start:
        return [(first + 1, first + 1, "")]
    pieces: list[list[int]] = [[]]
    size = 0
    for index in range(block.body_start, end):
        length = len(lines[index]) + 1
        if size + length - 1 > MAX_SECTION_CHARS and pieces[-1]:
            piece = pieces[-1]
            cut = next(
                (
                    i + 1
                    for i in range(len(piece) - 1, len(piece) // 2, -1)
                    if not lines[piece[i]].strip()
                ),
                len(piece),
            )
            carry = piece[cut:]
            pieces[-1] = piece[:cut]
            pieces.append(carry)
            size = sum(len(lines[i]) + 1 for i in carry)
        pieces[-1].append(index)
        size += length
    chunks = []
    for n, piece in enumerate(pieces):
        while len(piece) > 1 and not lines[piece[-1]].strip():
            piece.pop()
        start = first if n == 0 else piece[0]
        chunks.append((start + 1, piece[-1] + 1, "\n".join(lines[i] for i in piece).strip("\n")))
    return chunks


# -- the comparison ------------------------------------------------------------------

LINE = st.one_of(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
        max_size=40,
    ),
    st.sampled_from(
        [
            "# Title",
            "## Sub",
            "### Deep ###",
            "   # indented",
            "    # code",
            "#nospace",
            "```",
            "````",
            "~~~",
            "  ```python",
            "---",
            "",
            " ",
            "\t",
            "\r",
            "title: x",
            "## Heading\r",
            "\ufeff# bom",
            "x" * 1500,
            "word " * 200,
        ]
    ),
)


@settings(max_examples=examples(500))
@given(st.lists(LINE, max_size=50), st.booleans(), st.booleans())
def test_the_regex_search_matches_the_line_loop(
    lines: list[str], front_matter: bool, trailing_newline: bool
) -> None:
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    if front_matter:
        text = "---\ntitle: T\ncreated: 2026-01-02\n---\n" + text
    for path in ("memory/topics/x.md", "memory/2026-01-02.md"):
        assert split_sections(path, text) == reference(path, text)
