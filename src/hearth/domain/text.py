"""Turning file bytes into text: the one place that decides what counts as text."""

from __future__ import annotations

from hearth.errors import InvalidInput

# Patterns for the schemas of every surface (ECMA-262 syntax, which Python's
# ``re`` reads the same way), beside the checks that enforce them.

#: White space as ``str.isspace`` sees it (so ``str.split`` and ``str.strip``, which
#: the checks of text input use), spelled for inside a regex character class.
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"


def not_blank(space: str = SPACE) -> str:
    """A pattern for text that holds something besides the white space ``space``
    (a character class's contents): what ``text.split()`` finds a word in."""
    return f"[^{space}]"


#: Text with something besides white space in it (checks: ``text.strip()`` is not empty).
NOT_BLANK = not_blank()
#: One line with something on it: white space (newlines too) may surround it, no
#: newline inside (the check of a memory entry, ``entries.clean_entry``).
ONE_LINE = rf"^[{SPACE}]*[^\n]*{NOT_BLANK}[^\n]*[{SPACE}]*$"


def decode_text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not valid UTF-8 text") from exc
