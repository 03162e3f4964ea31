"""Room on a full page for the sections that hold the question's words in their text.

A bare heading (a topic's title line, nothing under it) that holds the
question's words points at its note, and BM25 ranks it high: its field is
short and says the word twice (title and heading). Every section of that
topic holds the title's words too. A home with a series of topics of one
title ("Recipes", "Recipes 2", ...) then fills the whole page, and the
keyword side's depth, with them, and the daily entry that says "Ruth asked
for the recipe" is cut before the floor ever sees it, though it holds every
word of ``recipe`` (issue 48: a section holding every content word must not
be trimmed away). So bare headings take at most ``BARE_SHARE`` of a full
page when sections holding every content word in their own heading or body
are waiting: the keyword side's first ``WIDER`` candidates are read for
them (only for such a page). Of those, the ones holding each word as the
person typed it (``neighbour``, not only ``neighbours``: the analyzer stems
both to one term) come first: in a home where a passing daily line says
"the neighbours had a party" in forty notes, the one entry that says "the
neighbour, Mrs. Okafor" is what ``neighbour`` asks for, and BM25 ranks it
last of them when it sits in a long section.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from hearth.index import floor as floors
from hearth.index.dates import without_dates
from hearth.index.evidence import content_terms, holds_all
from hearth.index.schema import digest, passage
from hearth.index.terms import fold, read_query

if TYPE_CHECKING:
    from hearth.index.bodies import Bodies as Read
    from hearth.index.hits import Hit, Ranked

#: The share of a full page bare headings may take while text waits below.
BARE_SHARE = 0.5
#: The keyword side's candidates read for them.
WIDER = 200
#: Candidates past the ranking's own read from the index at a time.
CHUNK = 16

Bodies = Mapping[tuple[str, int], str]


def crowded(hits: Sequence[Hit], bodies: Bodies, limit: int) -> int:
    """How many of a full page's bare headings are beyond ``BARE_SHARE`` of it."""
    if limit <= 0 or len(hits) < limit:
        return 0
    bare = sum(1 for h in hits if not bodies.get((h.path, h.start_line), "").strip())
    return max(bare - int(limit * BARE_SHARE), 0)


def waiting(ranked: Ranked, bodies: Read, ordinals: dict[tuple[str, int], int]) -> Iterator[Hit]:
    """The keyword side's first ``WIDER`` candidates, best first: ``ranked``'s
    hits, then those it found further (``ranked.further``, asked for with
    ``more=WIDER``), read from the index a ``CHUNK`` at a time only as
    ``made`` goes on (most pages find their text in the first few), each
    chunk's places added to ``bodies`` and its ordinals to ``ordinals``.

    Those the index holds bare (a title line: their passage's digest is their
    heading's alone) are passed over without reading their files: ``made``
    never takes a bare heading, and a body written under one since waits for
    the pass that follows the change, as its ranking does."""
    yield from (h for h in ranked.hits[:WIDER] if not _bare(h, ranked.digests))
    if ranked.further is None or len(ranked.hits) >= WIDER:
        return
    for chunk in ranked.further(CHUNK):
        bodies.add(chunk)
        some = [h for h in chunk.hits if not _bare(h, chunk.digests)]
        bodies.load((h.path, h.start_line) for h in some)
        for where, ordinal in chunk.ordinals.items():
            ordinals.setdefault(where, ordinal)
        yield from some


def _bare(hit: Hit, digests: Mapping[tuple[str, int], str]) -> bool:
    return digests.get((hit.path, hit.start_line)) == digest(passage(hit.heading, ""))


def made(hits: Sequence[Hit], waiting: Iterable[Hit], bodies: Read, text: str) -> list[Hit]:
    """``hits`` with its last bare headings beyond ``BARE_SHARE`` (``crowded``)
    replaced by the first of ``waiting`` (the keyword side's candidates, best
    first) holding every content term of the question ``text`` in their own
    heading and body (not only in their file's title)."""
    extra = crowded(hits, bodies, len(hits))
    wanted = set(content_terms(text))
    if not extra or not wanted:
        return list(hits)
    shown = {(h.path, h.start_line) for h in hits}
    typed = typed_words(text)
    # Those holding the words as typed first, each group in the keyword side's order.
    as_typed: list[Hit] = []
    others: list[Hit] = []
    for hit in waiting:
        key = (hit.path, hit.start_line)
        if key in shown or hit.score <= 0:
            continue
        body = bodies.get(key, "")
        if not body.strip():
            continue
        # The terms of an empty title, the heading and the body: those of the
        # heading and body, kept with the file for the floor's next look.
        if holds_all(bodies.terms(key, "", hit.heading), wanted, text):
            text_of = f"{hit.heading}\n{body}"
            (as_typed if holds_typed(typed, text_of) else others).append(hit)
            shown.add(key)
            if len(as_typed) == extra or (not typed and len(others) == extra):
                break
    found = [*as_typed, *others][:extra]
    if not found:
        return list(hits)
    bare = [h for h in hits if not bodies.get((h.path, h.start_line), "").strip()]
    dropped = {(h.path, h.start_line) for h in bare[len(bare) - len(found) :]}
    kept = [h for h in hits if (h.path, h.start_line) not in dropped]
    return [*kept, *(h.scored(0.0) for h in found)]


_WORD = re.compile(r"\w+")


def typed_words(text: str) -> frozenset[str]:
    """The question's content words as typed (lower-cased, accents folded),
    those of letters and digits only (a CJK run is matched by its pairs, not
    as a word)."""
    words = floors.content_words(read_query(without_dates(text)).words)
    folded = (fold(w) for w in words)
    return frozenset(w for w in folded if w.isascii() and _WORD.fullmatch(w))


def holds_typed(typed: frozenset[str], text: str) -> bool:
    """Whether ``text`` holds every one of ``typed`` as a whole word."""
    if not typed:
        return False
    if text.isascii():  # folding an ASCII word is lower-casing it
        return typed <= set(_WORD.findall(text.lower()))
    return typed <= {fold(w) for w in _WORD.findall(text)}
