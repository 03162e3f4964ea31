"""Turning file bytes into text: the one place that decides what counts as text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hearth.errors import InvalidInput

#: The characters that are not text in a home (docs/formats.md, "Plain text"),
#: spelled for inside a regex character class: the C0 controls but tab, newline and
#: carriage return, DEL, the C1 controls (U+0085, NEL, among them) and the line and
#: paragraph separators U+2028/U+2029. A carriage return is text only as half of a
#: CRLF line ending (editors on Windows write them); lone surrogates are not text
#: either (no UTF-8 spells them). Each of these makes git and ``file`` call a file
#: binary, or splits a line for some reader (``str.splitlines``, a markdown
#: renderer) where hearth's own parsers see none, which would let text open a
#: heading no one sees coming.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029"
_NOT_TEXT = re.compile(rf"[{CONTROL}\ud800-\udfff]|\r(?!\n)")
#: The same without the carriage return's branch, for text that holds none:
#: one character class is scanned three times faster than the alternation
#: (0.27 against 0.08 s over a 10,000-file home's 22 MB, a rebuild's biggest
#: single cost after sectioning).
_NOT_TEXT_CHAR = re.compile(rf"[{CONTROL}\ud800-\udfff]")

# Patterns for the schemas of every surface (ECMA-262 syntax, which Python's
# ``re`` reads the same way), beside the checks that enforce them.

#: White space as ``str.isspace`` sees it (so ``str.split`` and ``str.strip``, which
#: the checks of text input use), spelled for inside a regex character class.
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

#: One character of text (or a CRLF line ending), as a pattern.
_CHAR = rf"(?:[^{CONTROL}\r]|\r\n)"
#: Text: no character of ``CONTROL``, a carriage return only before a newline.
PLAIN = rf"^{_CHAR}*$"
#: The white space of ``SPACE`` that is text (``CONTROL`` taken out).
_TEXT_SPACE = r"\t\n\x20\xa0\u1680\u2000-\u200a\u202f\u205f\u3000"


def not_blank(space: str = SPACE) -> str:
    """A pattern for text that holds something besides the white space ``space``
    (a character class's contents): what ``text.split()`` finds a word in, and
    nothing that is not text."""
    return rf"^{_CHAR}*[^{space}{CONTROL}\r]{_CHAR}*$"


#: Text with something besides white space in it (checks: ``text.strip()`` is not empty).
NOT_BLANK = not_blank()
#: One line with something on it: white space (newlines too) may surround it, no
#: newline inside (the check of a memory entry, ``entries.clean_entry``).
ONE_LINE = (
    rf"^(?:[{_TEXT_SPACE}]|\r\n)*[^\n{CONTROL}\r]*[^{SPACE}{CONTROL}\r]"
    rf"[^\n{CONTROL}\r]*(?:[{_TEXT_SPACE}]|\r\n)*$"
)


def decode_text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not valid UTF-8 text") from exc


@dataclass(frozen=True)
class NotText:
    """Where a text first holds a character that is not text: 1-based line and
    column, and the character named as ``U+XXXX``."""

    line: int
    column: int
    character: str

    def describe(self) -> str:
        return f"line {self.line}, column {self.column} holds {self.character}"


def first_not_text(text: str) -> NotText | None:
    """The first character of ``text`` that is not text (see ``CONTROL``), or None."""
    match = (_NOT_TEXT if "\r" in text else _NOT_TEXT_CHAR).search(text)
    if match is None:
        return None
    start = match.start()
    line_start = text.rfind("\n", 0, start) + 1
    return NotText(
        text.count("\n", 0, start) + 1, start - line_start + 1, f"U+{ord(text[start]):04X}"
    )


def refuse_not_text(what: str, text: str) -> None:
    """Raise InvalidInput when ``text`` (what the caller calls ``what``) is not text."""
    found = first_not_text(text)
    if found is not None:
        raise InvalidInput(
            f"{what} holds a control character ({found.describe()}); hearth writes plain "
            "text only: tab and newline are the only control characters it takes (a "
            "carriage return only right before a newline)",
            detail={
                "field": what,
                "line": found.line,
                "column": found.column,
                "character": found.character,
            },
        )


def text_bytes(what: str, text: str) -> bytes:
    """``text`` (a whole file a caller sent as a string) as UTF-8, refused first
    when it is not text: a lone surrogate has no UTF-8 spelling at all."""
    refuse_not_text(what, text)
    return text.encode("utf-8")


def counted(count: int, one: str, many: str | None = None) -> str:
    """``count`` and the noun that agrees with it: ``1 entry``, ``2 entries``
    (``many`` defaults to ``one`` + "s")."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


def with_article(noun: str) -> str:
    """``noun`` after "a" or "an", by its first letter: "an AWS access key id",
    "a GitHub token" (hearth's nouns are read as written, letter by letter)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
