"""The lines of a recalled passage that answer the prompt.

A hit is a section: a person note's ``## Entries`` with fifty entries, a topic
note, or one turn of a daily note. Handing the whole section spends a
runtime's small recall budget on entries the prompt is not about, and a cut
section (head and tail) may lose the one entry it was recalled for. So a
section longer than ``WHOLE_CHARS`` is read as its units (an entry with its
continuation lines and sub-bullets, a paragraph, a heading) and only the
units that hold the prompt's words are handed, each with its own line range.

A unit is kept when it holds a word of the prompt, and weighed by the words
it holds, each by how rare it is among the section's units (a name that every
entry of a person's note holds weighs little; the one entry that says
``adoption`` weighs much): the heaviest come first, so a small budget hands
the entries the prompt is about and a larger one the rest of what it touches.
A section in which no unit holds a word of the prompt (found by meaning, or by
its heading or path) is handed from its head, as before. A heading is never a
unit that answers: handed alone, it says nothing.

Pure: the words of a text come from the caller (the search analyzer's terms,
so ``research`` finds ``researched`` as search does).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

#: A section at most this long is handed whole: its lines are all near the hit.
WHOLE_CHARS = 700

_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+\S")
_HEADING = re.compile(r"^#{1,6}\s")
_POINTER = re.compile(r":\s+see\s+(?:memory/topics|users)/\S+\.md\s*$")

Terms = Callable[[str], Iterable[str]]


@dataclass(frozen=True)
class Unit:
    """Lines ``start``..``end`` (1-based, in the file) of a section and their text."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Answering:
    """A unit that answers, and its weight (the prompt's words it holds)."""

    unit: Unit
    weight: float


def units(text: str, first_line: int) -> list[Unit]:
    """``text`` (a section's lines from ``first_line``) as its units: a heading
    line, an entry (a bullet with its deeper-indented or wrapped lines), or a
    paragraph (lines up to a blank one)."""
    lines = text.split("\n")
    found: list[Unit] = []
    at = 0
    while at < len(lines):
        line = lines[at]
        if not line.strip():
            at += 1
            continue
        end = at + 1
        bullet = _BULLET.match(line)
        if not _HEADING.match(line):
            indent = len(bullet.group(1)) if bullet else -1
            while end < len(lines) and lines[end].strip() and not _HEADING.match(lines[end]):
                nested = _BULLET.match(lines[end])
                if nested and len(nested.group(1)) <= indent:
                    break  # the next entry of the same list
                if nested and not bullet:
                    break  # a list after a paragraph
                end += 1
        found.append(Unit(first_line + at, first_line + end - 1, "\n".join(lines[at:end])))
        at = end
    return found


def answering(
    text: str, first_line: int, wanted: Collection[str], terms: Terms, *, named: bool = False
) -> list[Answering] | None:
    """The units of ``text`` that answer a prompt whose words are ``wanted``
    (terms as ``terms`` gives them), best first; None when the section is
    handed whole (short, or no unit holds a word of the prompt). A ``named``
    note (one the prompt names, not one search found) is never whole: only
    its units that hold a word of the prompt, none when none does."""
    if not wanted or (len(text) <= WHOLE_CHARS and not named):
        return [] if named else None
    # A heading says what its lines are about, not what they say: handed alone
    # it answers nothing, so a section only whose heading holds the prompt's
    # words is handed from its head (the heading, then what is under it).
    found = [u for u in units(text, first_line) if not _HEADING.match(u.text)]
    held = [set(terms(u.text)) & set(wanted) for u in found]
    if not found or not any(held):
        return [] if named else None
    count = len(found)
    rarity = {w: math.log(1 + count / sum(w in h for h in held)) for w in set().union(*held)}
    weights = [sum(rarity[w] for w in h) for h in held]
    kept = [Answering(u, round(w, 6)) for u, w in zip(found, weights, strict=True) if w > 0]
    return sorted(kept, key=lambda a: (-a.weight, a.unit.start))


def entries_besides(text: str, first_line: int, taken: Iterable[Answering]) -> list[Unit]:
    """The entries of ``text`` (from ``first_line``) that are not ``taken``, in
    file order: bullets only, no pointer line (the note it names comes itself)
    and no heading."""
    held = {a.unit.start for a in taken}
    return [
        u
        for u in units(text, first_line)
        if u.start not in held and _BULLET.match(u.text) and not _POINTER.search(u.text)
    ]


def in_turns(per_hit: list[list[Unit]]) -> list[tuple[int, Unit]]:
    """Each hit's units (best first) taken in turns: every hit's best unit in
    the hits' order, then every hit's second, and so on, with the hit's place:
    a budget that runs out leaves out the weakest units, not the later hits."""
    out: list[tuple[int, Unit]] = []
    depth = max((len(u) for u in per_hit), default=0)
    for turn in range(depth):
        out += [(i, found[turn]) for i, found in enumerate(per_hit) if turn < len(found)]
    return out
