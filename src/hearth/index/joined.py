"""Words written joined by punctuation, and the one word they make.

A person writes ``Wi-Fi``, ``e-mail``, ``node.js``, ``re-index``, ``U.S.``,
``open_loops`` or ``COVID-19`` in a note and searches ``wifi``, ``email``,
``nodejs``, ``reindex``, ``usa``, ``openloops``, ``covid19`` (or the other way
round). The analyzer cuts at the punctuation (``wi`` and ``fi``), so the
word typed whole was "no matches". Each such run is also the word of its
parts put together (its *catenation*):

- the index holds the catenations of its text besides its terms
  (``catenations``: the analyzer's terms of the catenated words);
- a query word holding joins also asks for its catenation (``Wi-Fi`` finds
  ``wifi``), a query word in camel case also asks for its parts as a phrase
  (``WiFi`` finds ``wi fi``), and two query words side by side also ask for
  the word they make together (``wi fi`` finds ``wifi``; ``open loops`` finds
  ``openLoops``);
- the relevance floor counts a question's words as held when their
  catenation is (``Alternative``).

Joins are ``-`` (and the Unicode hyphens), ``.``, ``_`` and apostrophes
between letters or digits, with no space. Not joined: a possessive or a
contraction (``Sam's``, ``she'll``, ``we're``: ``shell`` and ``were`` would
find them), but ``n't`` is (``dont`` finds ``don't``); digits joined by
``.``, ``,`` or ``-`` (``3.5`` is not ``35``, ``2023-05-03`` not a number),
but thousands are (``1,000`` and ``1.000`` are ``1000``). Slashes, ``@`` and
``#`` separate (``#garden`` is ``garden``).

Pure string work: the caller analyzes what is returned.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Container, Sequence
from dataclasses import dataclass

from hearth.index import charsets

#: Joiners between parts: hyphens, a dot, an underscore, apostrophes, a comma.
_JOINERS = "-\u2010\u2011._'\u2019,"
#: A joiner before a letter or digit: the places a run may be joined (``re``
#: finds them fast, its scan led by the rare joiners; a pattern of whole runs
#: tried at every character cost more than the analyzer).
_JOIN = re.compile(f"[{_JOINERS}](?=[^\\W_])")
#: Each ASCII byte's class: ``a`` a letter or digit, ``J`` a joiner, else a
#: space. ASCII text holds a run written joined only where ``aJa`` stands in
#: its classes: one pass in C, faster than ``_JOIN``'s scan of a section body
#: that holds none (most; docs/performance.md, "The full build's own work,
#: done once").
_ASCII_CLASSES = (
    bytes(
        ord("a") if chr(b).isalnum() else ord("J") if chr(b) in _JOINERS else ord(" ")
        for b in range(128)
    )
    + b" " * 128
)
#: What follows an apostrophe in a possessive or a contraction: not joined.
_CONTRACTED = frozenset({"s", "ll", "re", "ve", "d", "m"})
#: Most parts of one run whose whole catenation is kept (besides each pair).
_MOST_PARTS = 5
#: A camel-case word's inner boundaries (``parseConfig``, ``HTTPServer``).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@functools.cache
def _cut() -> re.Pattern[str]:
    """A character of the scripts cut per character (compiled on first use)."""
    return re.compile(f"[{charsets.CUT_CHARS}]")


def _in_part(char: str) -> bool:
    """A letter, a digit or a mark: part of a word (not ``_``)."""
    return char.isalnum() or unicodedata.category(char)[0] == "M"


def _joins(left: str, joiner: str, right: str) -> bool:
    """Whether ``left`` + ``joiner`` + ``right`` is one word written in parts."""
    if left[-1].isdigit() and right[0].isdigit():
        # Thousands (1,000 and 1.000): the group after is three digits.
        return joiner in ".," and len(right) == 3 and right.isdigit()
    if joiner == ",":
        return False
    if joiner in "'\u2019":
        low = right.lower()
        if low == "t":
            return left[-1:].lower() == "n"  # don't, can't, isn't
        return low not in _CONTRACTED
    return True


def spans(count: int) -> list[tuple[int, int]]:
    """The parts (``start``, ``stop``) of ``count`` parts joined that make a
    word: each pair, and all of them (up to ``_MOST_PARTS``)."""
    found = [(i, i + 2) for i in range(count - 1)]
    if 2 < count <= _MOST_PARTS:
        found.append((0, count))
    return found


def words_of(parts: Sequence[str]) -> list[str]:
    """The catenated words of parts joined (``spans``)."""
    return ["".join(parts[i:j]) for i, j in spans(len(parts))]


@dataclass(frozen=True)
class Joined:
    """One run of parts joined, and its catenated words."""

    parts: tuple[str, ...]
    words: tuple[str, ...]


def runs(text: str) -> list[Joined]:
    """Every run of ``text`` written joined, with its catenated words."""
    if text.isascii() and b"aJa" not in text.encode("ascii").translate(_ASCII_CLASSES):
        return []
    chains: list[list[str]] = []
    end = -1  # where the last chain's last part ends
    size = len(text)
    for match in _JOIN.finditer(text):
        at = match.start()
        if at == 0 or not _in_part(text[at - 1]):
            continue
        start = at
        while start > 0 and _in_part(text[start - 1]):
            start -= 1
        stop = at + 1
        while stop < size and _in_part(text[stop]):
            stop += 1
        left, right = text[start:at], text[at + 1 : stop]
        if not _joins(left, text[at], right):
            continue
        if end == at and chains:
            chains[-1].append(right)
        else:
            chains.append([left, right])
        end = stop
    out = []
    for parts in chains:
        if not all(map(str.isascii, parts)) and any(_cut().search(p) for p in parts):
            # Parts in the scripts cut per character are tokens of one
            # character however written: joined, the same characters.
            continue
        out.append(Joined(tuple(parts), tuple(words_of(parts))))
    return out


def catenations(text: str) -> str:
    """The catenated words of ``text``'s joined runs, one line ("" for none):
    what the index holds of ``text`` besides its own words."""
    return " ".join(w for joined in runs(text) for w in joined.words)


def with_catenations(text: str) -> str:
    """``text`` and, after it, its catenated words (``catenations``)."""
    extra = catenations(text)
    return f"{text}\n{extra}" if extra else text


def camel_parts(word: str) -> list[str]:
    """The parts of a camel-case word (``WiFi``: ``Wi``, ``Fi``), else none."""
    if word.isupper() or word.islower():
        return []
    parts = [p for p in _CAMEL.split(word) if p]
    return parts if len(parts) > 1 else []


@dataclass(frozen=True)
class Alternative:
    """Terms a question asks for that a section holds in another spelling:
    holding every term of ``holds``, it holds ``covers`` (``Wi-Fi``'s ``wi``
    and ``fi`` by ``wifi``; ``WiFi``'s ``wifi`` by ``wi`` and ``fi``)."""

    covers: frozenset[str]
    holds: frozenset[str]


def covered(held: Container[str], alternatives: Sequence[Alternative]) -> Container[str]:
    """``held`` and the terms its alternatives cover (``held`` itself when
    they cover none it lacks: a hit's terms are not copied, and a kept
    section's are asked only what they hold: ``bodies.Held``)."""
    extra = {t for alt in alternatives if all(h in held for h in alt.holds) for t in alt.covers}
    if all(t in held for t in extra):
        return held
    return _Both(held, frozenset(extra))


class _Both:
    """Terms held in either of two containers."""

    __slots__ = ("_one", "_other")

    def __init__(self, one: Container[str], other: frozenset[str]) -> None:
        self._one, self._other = one, other

    def __contains__(self, term: object) -> bool:
        return term in self._other or term in self._one


@functools.lru_cache(maxsize=4096)
def query_words(word: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A query word's other spellings: its catenated words (``Wi-Fi``:
    ``WiFi``) and its camel-case parts (``WiFi``: ``Wi``, ``Fi``)."""
    joined = tuple(w for run in runs(word) for w in run.words)
    return joined, tuple(camel_parts(word))
