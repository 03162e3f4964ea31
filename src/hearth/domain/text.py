"""Turning file bytes into text: the one place that decides what counts as text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from hearth.errors import InvalidInput

#: Invisible format characters that no language's writing needs, spelled for
#: inside a regex character class: the zero-width space U+200B, the bidi
#: embeddings and overrides U+202A to U+202E, the word joiner and invisible
#: operators U+2060 to U+2064, the bidi isolates U+2066 to U+2069 and the
#: deprecated format characters up to U+206F, the Hangul fillers U+115F,
#: U+1160, U+3164 and U+FFA0, the Khmer vowels U+17B4 and U+17B5 that Unicode
#: advises against (they show nothing), the Mongolian vowel separator U+180E
#: (a format character since Unicode 6.3) and the interlinear annotation marks
#: U+FFF9 to U+FFFB. The marks that
#: right-to-left writing does use (U+200E, U+200F, U+061C) and the joiners of
#: emoji and of Arabic, Persian and Indic scripts (U+200C, U+200D) are text;
#: ``first_hidden`` judges the joiners, variation selectors and tag characters
#: by where they stand.
INVISIBLE = (
    r"\u115f\u1160\u17b4\u17b5\u180e\u200b\u202a-\u202e\u2060-\u206f\u3164\uffa0\ufff9-\ufffb"
)
#: The characters that are not text in a home (docs/formats.md, "Plain text"),
#: spelled for inside a regex character class: the C0 controls but tab, newline and
#: carriage return, DEL, the C1 controls (U+0085, NEL, among them) and the line and
#: paragraph separators U+2028/U+2029. A carriage return is text only as half of a
#: CRLF line ending (editors on Windows write them); lone surrogates are not text
#: either (no UTF-8 spells them). Each of these makes git and ``file`` call a file
#: binary, or splits a line for some reader (``str.splitlines``, a markdown
#: renderer) where hearth's own parsers see none, which would let text open a
#: heading no one sees coming.
#:
#: The invisible format characters of ``INVISIBLE`` count as control characters
#: too: a character that shows nothing yet changes what a reader sees (a
#: right-to-left override turns "aet neerg" into "green tea") hides what a text
#: says from the person who reviews it.
CONTROL = r"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029" + INVISIBLE
_NOT_TEXT = re.compile(rf"[{CONTROL}\ud800-\udfff]|\r(?!\n)")
#: The same without the carriage return's branch, for text that holds none:
#: one character class is scanned several times faster than the alternation
#: (a rebuild's biggest single cost after sectioning; docs/performance.md,
#: "Figures behind the code's comments").
_NOT_TEXT_CHAR = re.compile(rf"[{CONTROL}\ud800-\udfff]")
#: The ASCII characters that are text: tab, newline, carriage return (before
#: a newline) and the printable ones. Deleting them from ASCII text's bytes,
#: one pass in C, leaves nothing when it holds no control character: several
#: times faster than the class's scan (docs/performance.md, "The full build's
#: own work, done once").
_ASCII_TEXT = bytes(b for b in range(128) if b in (9, 10, 13) or 32 <= b < 127)

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
    if text.isascii() and "\r" not in text and not text.encode().translate(None, _ASCII_TEXT):
        return None
    match = (_NOT_TEXT if "\r" in text else _NOT_TEXT_CHAR).search(text)
    if match is None:
        return None
    start = match.start()
    line_start = text.rfind("\n", 0, start) + 1
    return NotText(
        text.count("\n", 0, start) + 1, start - line_start + 1, f"U+{ord(text[start]):04X}"
    )


#: What hides only by where it stands (``first_hidden``): a run of tag characters
#: (U+E0000 to U+E007F, which can spell a whole instruction no one sees) that is not
#: an emoji's subdivision flag, which the first alternative takes whole (one tag
#: character alone is hidden too: one after each visible letter spells an
#: instruction as well as a run does); a zero-width joiner or non-joiner at the
#: start, after a letter of ASCII (which it never joins) or beside another; two
#: variation selectors in a row (one is an emoji's or an ideograph's, a run carries
#: hidden bytes), or one at the start or after an ASCII character other than a
#: keycap's digit, ``#`` or ``*`` (no ASCII letter has a variant, so one after each
#: letter carries a byte apiece); a combining grapheme joiner before ASCII or at
#: the end (it is text only before a combining mark); a byte-order mark after the
#: start; the musical and shorthand format controls, which show nothing.
#: The characters ``_HIDDEN`` can start at, as a class (a file without one is
#: passed by one fast scan, and each match is tried only where one stands).
_HIDDEN_START = (
    "\U0001f3f4\u034f\u200c\u200d\ufe00-\ufe0f\ufeff\U000e0000-\U000e007f\U000e0100-\U000e01ef"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
)
_SUSPECT = re.compile(f"[{_HIDDEN_START}]")
_HIDDEN = re.compile(
    "(?:"
    "(?P<flag>\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,6}\U000e007f)"
    "|[\U000e0000-\U000e007f]+"
    "|(?:^|(?<=[\x00-\x7f]))[\u200c\u200d]|[\u200c\u200d]{2,}"
    "|[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}"
    "|(?:^|(?<=[\x00-\x22$-)+-/:-\x7f]))[\ufe00-\ufe0f\U000e0100-\U000e01ef]"
    "|\u034f(?=[\x00-\x7f]|$)"
    "|(?<!^)\ufeff"
    "|[\U0001bca0-\U0001bca3\U0001d173-\U0001d17a]+"
    ")"
)


def first_hidden(text: str) -> NotText | None:
    """The first character of ``text`` that hides by where it stands (see
    ``_HIDDEN``), or None. ``first_not_text`` judges the characters that are never
    text; this one the joiners, selectors and tags that legitimate text holds."""
    if text.isascii():
        return None
    position = 0
    while (suspect := _SUSPECT.search(text, position)) is not None:
        match = _HIDDEN.match(text, suspect.start())
        if match is None or match.group("flag"):
            position = match.end() if match is not None else suspect.start() + 1
            continue
        start = match.start()
        line_start = text.rfind("\n", 0, start) + 1
        return NotText(
            text.count("\n", 0, start) + 1, start - line_start + 1, f"U+{ord(text[start]):04X}"
        )
    return None


#: How ``shown`` spells what it replaces: the C0 controls and DEL as their Unicode
#: control pictures (ESC is U+241B), every other character as ``{U+XXXX}``.
_PICTURES = {c: chr(0x2400 + c) for c in range(0x20)} | {0x7F: "\u2421"}


def shown(text: str, keep: str = "\n\t") -> str:
    """``text`` made safe to print on a terminal or into a generated page: every
    character that is not text (``first_not_text``) or hides (``first_hidden``) is
    replaced by a visible stand-in, except those of ``keep``; a text with none is
    returned as it is."""
    # Newline and tab are text, shown as themselves only when ``keep`` says so.
    breaks = "".join(c for c in "\n\t" if c not in keep)
    if (
        first_not_text(text) is None
        and first_hidden(text) is None
        and not any(c in text for c in breaks)
    ):
        return text
    hiding = {
        index
        for match in _HIDDEN.finditer(text)
        if not match.group("flag")
        for index in range(match.start(), match.end())
    }
    out: list[str] = []
    for index, char in enumerate(text):
        lone_return = char == "\r" and text[index + 1 : index + 2] != "\n"
        if char not in keep and (
            index in hiding
            or lone_return
            or char in breaks
            or _NOT_TEXT_CHAR.match(char) is not None
        ):
            code = ord(char)
            out.append(_PICTURES.get(code) or f"{{U+{code:04X}}}")
        else:
            out.append(char)
    return "".join(out)


_INVISIBLE_CHAR = re.compile(f"[{INVISIBLE}]")


def first_hiding(text: str) -> NotText | None:
    """The first character of ``text`` that is not text or hides, whichever comes first."""
    found = [f for f in (first_not_text(text), first_hidden(text)) if f is not None]
    return min(found, key=lambda f: (f.line, f.column)) if found else None


def is_invisible(found: NotText) -> bool:
    """Whether ``found`` is an invisible character (format, joiner, tag) rather than
    a control character of the C0 or C1 sets or a line separator."""
    char = chr(int(found.character[2:], 16))
    if _INVISIBLE_CHAR.match(char):
        return True
    return _NOT_TEXT_CHAR.match(char) is None and char != "\r"


def refuse_not_text(what: str, text: str) -> None:
    """Raise InvalidInput when ``text`` (what the caller calls ``what``) is not text,
    or holds a character that hides what it says (``first_hidden``)."""
    found = first_hiding(text)
    if found is not None and is_invisible(found):
        raise InvalidInput(
            f"{what} holds an invisible character ({found.describe()}) that changes or "
            "hides what a reader sees; hearth takes text that shows what it says",
            detail={
                "field": what,
                "line": found.line,
                "column": found.column,
                "character": found.character,
            },
        )
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
