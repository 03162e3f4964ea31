"""Neighbouring entries of a daily note as each other's context.

A daily note is a sequence: a conversation, a day's log. The entry that
answers a question is often the one right after the entry that asks it
("What genre is your screenplay?" then "It's a mix of drama and romance!"):
the answer shares no word with a question about it, and its meaning alone
(a genre) does not say whose screenplay. So a search lets a daily entry's
score flow to its neighbours: the entry after one of the first ``FLOW_FROM``
hits gains a share of that hit's score (``Weights.after``), the entry before
it a smaller one (``Weights.before``). Neighbours that did not match at all are fetched from the
index (by ``ordinal``, a section's place in its file) and ranked by what
flowed to them. Only daily notes: the sections of a topic note are chapters,
not turns of one exchange.

A question's names weigh here too: a hit whose heading holds a name the
question says (a daily entry's speaker) gains a share of the best score
(``Weights.name``). The weights are ``weights.py``'s.

Measured on the LoCoMo development split (docs/search.md), any-hit@5: the
neighbours took keyword ranking from 0.622 to 0.697 and hybrid from 0.675 to
0.724; the names (with the template's text ranked low) to 0.734 and 0.750.
Pure: hits in, hits out; the fetching is ``query.py``'s.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from hearth.index.weights import WEIGHTS, Weights

if TYPE_CHECKING:
    from hearth.index.hits import Hit  # query.py ranks with this module

#: Hits whose score flows to their neighbours (the first of the ranking).
FLOW_FROM = 10
#: The kind of section whose neighbours are its context.
SEQUENCE_KIND = "daily"

_WORD = re.compile(r"\w+")

#: A section's key in a ranking: ``(path, start_line)``.
Key = tuple[str, int]


def sources(hits: Sequence[Hit], ordinals: Mapping[Key, int]) -> list[tuple[str, int]]:
    """``(path, ordinal)`` of the hits whose neighbours a search needs."""
    out = []
    for hit in hits[:FLOW_FROM]:
        ordinal = ordinals.get((hit.path, hit.start_line))
        if hit.kind == SEQUENCE_KIND and ordinal is not None:
            out.append((hit.path, ordinal))
    return out


def spread(
    hits: Sequence[Hit],
    neighbours: Sequence[Hit],
    ordinals: Mapping[Key, int],
    limit: int,
    names: Collection[str] = (),
    weights: Weights = WEIGHTS,
) -> list[Hit]:
    """``hits`` (best first) and ``neighbours`` (their own scores, 0 when they
    did not match) ranked by their scores plus what flowed from the first
    ``FLOW_FROM`` hits, and ``weights.name`` of the best score for a heading
    holding one of ``names`` (lower-cased); the first ``limit``, scores rounded."""
    chosen: dict[Key, Hit] = {}
    for hit in (*hits, *neighbours):
        chosen.setdefault((hit.path, hit.start_line), hit)
    scores = {key: hit.score for key, hit in chosen.items()}
    at = {(key[0], ordinals[key]): key for key in chosen if key in ordinals}
    for hit in hits[:FLOW_FROM]:
        key = (hit.path, hit.start_line)
        ordinal = ordinals.get(key)
        if hit.kind != SEQUENCE_KIND or ordinal is None:
            continue
        for step, share in ((1, weights.after), (-1, weights.before)):
            near = at.get((hit.path, ordinal + step))
            if near is not None:
                scores[near] += share * hit.score
    wanted = frozenset(names)
    if wanted and hits:
        lift = weights.name * max(hit.score for hit in hits)
        for key, hit in chosen.items():
            if not wanted.isdisjoint(_WORD.findall(hit.heading.lower())):
                scores[key] += lift
    ordered = sorted(scores, key=lambda key: (-scores[key], key))[:limit]
    return [chosen[k].scored(round(scores[k], 6)) for k in ordered]
