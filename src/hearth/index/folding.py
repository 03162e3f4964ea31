"""Writing variants that people type one way and notes hold another.

Tantivy's ``ascii_fold`` folds Latin accents (``café`` and ``cafe``), and
nothing else. A person searching their own notes types:

- ``café`` for text pasted in decomposed form (NFD: ``e`` and a combining
  accent, as some macOS apps and PDFs hand it over), and ``김치`` for Hangul
  stored as jamo;
- Greek without its accents (``αθηνα`` for ``Αθήνα``), as Greek keyboards
  and search habits drop the tonos;
- Russian ``е`` for ``ё`` (``елка`` for ``ёлка``), as most Russian text does;
- Arabic and Hebrew without their vowel points and Arabic without its
  stretching (``السوق`` for ``السُّوق``, ``שלום`` for ``שָׁלוֹם``);
- full-width katakana for half-width (``カレー`` for ``ｶﾚｰ``);
- ``istanbul`` for ``İstanbul`` (lower-casing ``İ`` keeps a combining dot).

``fold`` maps a text to one spelling of each: the index is given the terms
of the folded text (``analysis.py``), and a search folds its question
(``question.py``), so both sides meet. It changes nothing in a text that
holds none of these (``foldable``): ASCII, composed Latin, CJK, and most
text, keep the writer's fast path and the same terms as before.

Letters with marks that are letters of their own (Russian ``й``, Ukrainian
``ї``, Hindi's vowel signs) are left alone: only the marks above, which
readers of those languages treat as optional, are folded.
"""

from __future__ import annotations

import functools
import re
import unicodedata


def _greek() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in [*range(0x0370, 0x0400), *range(0x1F00, 0x2000)]:
        char = chr(code)
        marks = unicodedata.normalize("NFD", char)
        base = unicodedata.normalize(
            "NFC", "".join(c for c in marks if not unicodedata.combining(c))
        )
        if base != char and base.isalpha():
            table[code] = base
    return table


def _half_width() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in [*range(0xFF61, 0xFFDD), *range(0xFFE8, 0xFFEF)]:
        wide = unicodedata.normalize("NFKC", chr(code))
        if wide != chr(code):
            table[code] = wide
    return table


#: Marks dropped: Arabic harakat, superscript alef and tatweel; Hebrew
#: points and cantillation (not its punctuation).
_DROPPED = "\u064b-\u065f\u0670\u0640\u0591-\u05bd\u05bf\u05c1-\u05c2\u05c4-\u05c5\u05c7"


@functools.cache
def _table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    table.update(_greek())
    table.update(_half_width())
    table.update({ord("ё"): "е", ord("Ё"): "Е", ord("İ"): "I"})
    for char in re.findall(f"[{_DROPPED}]", "".join(chr(c) for c in range(0x0590, 0x0680))):
        table[ord(char)] = None
    return table


@functools.cache
def _changed() -> re.Pattern[str]:
    """The characters ``_table`` maps, as one class of ranges (built on first
    use: a command that never analyzes text does not pay for it)."""
    codes = sorted(_table())
    spans: list[list[int]] = []
    for code in codes:
        if spans and spans[-1][1] == code - 1:
            spans[-1][1] = code
        else:
            spans.append([code, code])
    parts = (re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in spans)
    return re.compile(f"[{''.join(parts)}]")


#: Runs of characters outside ASCII (every character ``_table`` maps is one).
_NOT_ASCII = re.compile(r"[^\x00-\x7f]+")


def foldable(text: str, outside_ascii: str | None = None) -> bool:
    """Whether ``fold`` changes ``text`` (ASCII never). ``outside_ascii``:
    the characters of ``text`` outside ASCII, if the caller has them: only
    they are looked up for the characters ``fold`` maps (a daily note's
    ``—`` then costs one look at the ``—``)."""
    if text.isascii():
        return False
    if not unicodedata.is_normalized("NFC", text):
        return True
    rest = "".join(_NOT_ASCII.findall(text)) if outside_ascii is None else outside_ascii
    return _changed().search(rest) is not None


def fold(text: str) -> str:
    """``text`` in the one spelling the index holds (the module's docstring)."""
    if not foldable(text):
        return text
    composed = unicodedata.normalize("NFC", text)
    return unicodedata.normalize("NFC", composed.translate(_table()))


def _joins_before(char: str) -> bool:
    """Whether ``char`` may compose with the character before it (a mark, a
    Hangul vowel or final jamo, a half-width sound mark): no piece of its own."""
    code = ord(char)
    return (
        unicodedata.category(char)[0] == "M" or 0x1160 <= code <= 0x11FF or code in (0xFF9E, 0xFF9F)
    )


def aligned(text: str) -> tuple[str, list[int], list[int]]:
    """``fold(text)`` made piece by piece (a character and the marks that
    compose with it), and where each piece starts in the folded text and in
    ``text``: a place found in the folded text (a snippet's bold word) is a
    place of ``text`` as written."""
    pieces: list[int] = []
    for i, char in enumerate(text):
        if not (pieces and not char.isascii() and _joins_before(char)):
            pieces.append(i)
    folded: list[str] = []
    starts: list[int] = []
    at = 0
    for n, start in enumerate(pieces):
        piece = text[start : pieces[n + 1] if n + 1 < len(pieces) else len(text)]
        made = piece if piece.isascii() else fold(piece)
        starts.append(at)
        folded.append(made)
        at += len(made)
    return "".join(folded), starts, pieces
