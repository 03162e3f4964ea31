"""Across languages: the passage in another language that says what the question asks.

An English question and its note in Korean share no word, and e5's cosine
between them is barely above that of unrelated text: a translation is rarely
the semantic side's nearest passage, nor stands out of the question's
background. Part of what buries it is crowding ("hubness"): some passages sit
close to many others and so to any question (a short note in Spanish stood
nearest to "Who is Ruiz?", "hello" and "tell me a joke" alike), while a note
about one thing sits apart. Cross-domain similarity local scaling (CSLS,
from word translation) weighs that out:

    crossing(q, p) = 2 cos(q, p) - crowd(q) - crowd(p)

where ``crowd`` is the mean cosine to the ``NEIGHBOURS`` nearest passages
(the question's from its own ranking, a passage's from the store). Among the
semantic side's candidates written in another language than the question
(``floor.tongue``), the one of highest crossing is the question's
translation candidate; the floor lets it through above ``Floor.crossing``
(``floor.is_translation``), and the ranking makes room for it among the hits
(``ranking.hybrid_ranked``). Only candidates in another language are weighed
(the store is read once more for them), so a home in one language pays
nothing. A passage's crowding depends on the store alone, and the same
passages come back search after search: it is kept (``Crowds``) until the
store's rows change.

A question of a few unaccented words none of which the home holds
(``Tomaten``, ``jardin potager`` in a home written in English) may itself
be in another language than the home: ``floor.tongue`` cannot tell German
``Tomaten`` from English, so no passage is "in another language" for it.
For such a question (``unheld``) the candidate is also sought among every
passage with text, at the higher bar ``Floor.crossing_unheld`` and with no
rivals to stand above (all passages are candidates).
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from hearth.index import floor as floors

if TYPE_CHECKING:
    from hearth.index.floor import Floor
    from hearth.index.hits import Hit
    from hearth.index.vectors import VectorStore

#: The languages of passages read lately (the same ones come back search after search).
_tongue = functools.lru_cache(maxsize=4096)(floors.tongue)

#: Neighbours whose mean cosine is a passage's (or the question's) crowding.
NEIGHBOURS = 10
#: Passages in the question's language whose crossing the candidate is weighed
#: against (the nearest by cosine), and candidates in another language weighed.
RIVALS = 20
CANDIDATES = 30


class Crowds:
    """Passages' crowding, by digest, for one state of one store (the store
    itself is not kept alive for it: a compacted store replaces it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._store: weakref.ref[VectorStore] | None = None
        self._rows = -1
        self._known: dict[str, float] = {}

    def of(self, store: VectorStore, digests: Sequence[str]) -> dict[str, float]:
        rows = len(store)
        with self._lock:
            if self._store is None or self._store() is not store or self._rows != rows:
                self._store, self._rows, self._known = weakref.ref(store), rows, {}
            known = {d: self._known[d] for d in digests if d in self._known}
        missing = [d for d in digests if d not in known]
        if missing:
            found = dict(zip(missing, store.crowding(missing, NEIGHBOURS), strict=True))
            with self._lock:
                if self._store() is store and self._rows == rows:
                    if len(self._known) > MAX_KEPT:
                        self._known = {}
                    self._known.update(found)
            known.update(found)
        return {d: known[d] for d in digests}


#: Passages whose crowding is kept at most (a few searches' candidates each).
MAX_KEPT = 20_000
_crowds = Crowds()


class Crossing(NamedTuple):
    """A question's translation candidate."""

    key: tuple[str, int]
    #: ``2 cos - crowd(question) - crowd(passage)``...
    score: float
    #: ...and how far above the best crossing of a passage in the question's
    #: own language (or of no language told) among the nearest.
    margin: float
    #: Chosen among every passage: the question holds no word of the home and
    #: its language is not told (``candidate``'s ``unheld``).
    unheld: bool = False


def admitted(found: Crossing, floor: Floor) -> bool:
    """Whether ``floor`` lets the translation candidate ``found`` through."""
    if found.unheld:
        return floor.crossing_unheld is not None and found.score >= floor.crossing_unheld
    return (
        floor.crossing is not None
        and found.score >= floor.crossing
        and found.margin >= floor.crossing_margin
    )


def crowd(cosines: Sequence[float]) -> float:
    """The question's crowding: the mean of its ``NEIGHBOURS`` best cosines."""
    best = sorted(cosines, reverse=True)[:NEIGHBOURS]
    return sum(best) / len(best) if best else 0.0


def candidate(
    text: str,
    hits: Sequence[Hit],
    digests: Mapping[tuple[str, int], str],
    bodies: Mapping[tuple[str, int], str],
    cosines: Mapping[str, float],
    store: VectorStore,
    floor: Floor | None = None,
    *,
    unheld: bool = False,
    template: Collection[str] = (),
) -> Crossing | None:
    """Of the semantic side's ``hits`` (nearest first) with text, in another
    language than ``text``, the one of highest crossing (None: there is none);
    ``cosines``: the question's nearest passages, by digest. ``unheld``: the
    home holds none of the question's words; a question of unaccented words
    (``ascii``) whose candidate in another language ``floor`` does not admit
    then gets the best of every passage with text (``Crossing.unheld``) but
    the home template's (digests ``template``: scaffolding, nobody's words)."""
    asked_in = floors.tongue(text)
    if not asked_in:
        return None
    latin = asked_in in ("english", "ascii")
    foreign: list[tuple[tuple[str, int], str]] = []
    rivals: list[str] = []
    every: list[tuple[tuple[str, int], str]] = []
    for hit in hits:
        key = (hit.path, hit.start_line)
        body = bodies.get(key, "")
        digest = digests.get(key, "")
        if not body.strip() or digest not in cosines or digest not in store:
            continue
        if len(every) < CANDIDATES and digest not in template:
            every.append((key, digest))
        # Text of ASCII letters alone is never in another language than a
        # question in Latin letters (``floor.other_tongues``): not read again.
        if not (latin and body.isascii()) and floors.other_tongues(asked_in, _tongue(body)):
            if len(foreign) < CANDIDATES:
                foreign.append((key, digest))
        elif len(rivals) < RIVALS:
            rivals.append(digest)
    anywhere = (
        unheld and asked_in == "ascii" and floor is not None and floor.crossing_unheld is not None
    )
    if not foreign and not (anywhere and every):
        return None
    question = crowd(list(cosines.values()))
    weighed = [
        *dict.fromkeys([*(d for _, d in foreign), *rivals, *(d for _, d in every if anywhere)])
    ]
    crowding = _crowds.of(store, weighed)

    def crossing(digest: str) -> float:
        return 2 * cosines[digest] - question - crowding[digest]

    found = None
    if foreign:
        key, digest = max(foreign, key=lambda pair: crossing(pair[1]))
        score = crossing(digest)
        rival = max((crossing(d) for d in rivals), default=None)
        found = Crossing(key, score, score - rival if rival is not None else 0.0)
    if anywhere and floor is not None and (found is None or not admitted(found, floor)):
        key, digest = max(every, key=lambda pair: crossing(pair[1]))
        return Crossing(key, crossing(digest), 0.0, unheld=True)
    return found
