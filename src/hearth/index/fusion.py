"""Reciprocal-rank fusion of the keyword and semantic sides (``ranking.py``).

Neither side's raw scores need calibrating: each section gains its side's
share by its rank there, and the days a question names their own share.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from hearth.index.hits import Hit
from hearth.index.weights import WEIGHTS, Weights


def fuse(
    keyword: Sequence[Hit],
    semantic: Sequence[Hit],
    limit: int,
    dates: Sequence[str] = (),
    template: Collection[tuple[str, int]] = (),
    weights: Weights = WEIGHTS,
) -> list[Hit]:
    """Reciprocal-rank fusion of two rankings of sections; scores are the fused ones.

    ``dates`` (``YYYY-MM-DD`` or ``YYYY-MM``) add ``weights.day_share`` to the
    sections of those days; archived records and the sections ``template``
    names by ``(path, start_line)`` (still the home template's text) count at
    their factor.
    """
    scores: dict[tuple[str, int], float] = {}
    chosen: dict[tuple[str, int], Hit] = {}
    sides = ((weights.keyword_side, keyword), (weights.semantic_side, semantic))
    for side, ranking in sides:
        for rank, hit in enumerate(ranking, start=1):
            key = (hit.path, hit.start_line)
            share = side / (weights.rrf_k + rank)
            if hit.kind == "archive":
                share *= weights.archive
            elif key in template:
                share *= weights.template
            scores[key] = scores.get(key, 0.0) + share
            chosen.setdefault(key, hit)  # the keyword hit first: its snippet has matches
    for key, hit in chosen.items():
        if hit.date and any(hit.date.startswith(day) for day in dates):
            scores[key] += weights.day_share
    ordered = sorted(scores, key=lambda key: (-scores[key], key))
    return [chosen[k].scored(round(scores[k], 6)) for k in ordered[:limit]]
