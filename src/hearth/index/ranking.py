"""One ranking pipeline, for keyword and hybrid search alike.

    the question -> the mode -> candidates -> fusion -> bonuses -> snippets

- **The question** (``Question``): the text, the filters, and what is read
  from the text once for every stage: the days and months it names
  (absolute, and relative to the clock's today: ``yesterday``, ``last week``;
  ``dates.named_dates``) and the names it says (``terms.names_in``).
- **The mode** is chosen here (``mode``): ``hybrid`` when there are vectors
  and the query is words, ``keyword`` for search syntax (quotes, ``+``/``-``,
  fields, prefixes: exact words asked for), for an empty query, and while no
  vector is stored yet.
- **Candidates.** The keyword side is BM25 over Tantivy, with the lifts that
  must decide which sections are candidates added inside the query
  (``matching.py``: a word in a heading or title, words side by side, a whole
  CJK run, a named day). The semantic side embeds the question (without the
  absolute dates and the headings' names it says, ``semantic_text``), takes
  the nearest passage vectors and asks the index which sections hold them
  now, under the same filters. In hybrid mode the keyword side runs on a
  pool thread while the question is embedded (ONNX Runtime releases the GIL).
- **Fusion** (hybrid): reciprocal rank, so neither side's raw scores need
  calibrating (``fuse``); the named day's share is added to the fused score.
- **Bonuses** over the ranking, in either mode: the daily entries next to the
  first hits gain a share of their score, and a heading holding a name the
  question says a share of the best score (``neighbour_bonuses.py``).
- **Snippets** are made for the hits returned only.

Every weight is ``weights.py``'s, taken as an argument by each stage (the bonuses'
test sets each to nothing). A search fuses the sections embedded so far, and says so.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from hearth.embedding import Embedder
from hearth.index import crossing, evidence, neighbour_bonuses, room
from hearth.index import floor as floors
from hearth.index.dates import without_dates
from hearth.index.evidence import Gathered
from hearth.index.floor import FLOOR, Floor
from hearth.index.fusion import fuse
from hearth.index.hits import Hit, Ranked
from hearth.index.ondisk import VectorCoverage
from hearth.index.passage_tongues import TONGUES
from hearth.index.question import Question
from hearth.index.terms import asks_in_words, wants_exact_words
from hearth.index.weights import WEIGHTS, Weights

if TYPE_CHECKING:
    from hearth.index.search_index import SearchIndex
    from hearth.index.vectors import VectorStore  # numpy: loaded only with vectors

Mode = Literal["keyword", "hybrid"]

#: Hits taken from each side before fusing.
DEPTH = 50
#: How far below the nearest passage's cosine similarity a passage may be and
#: still count on the semantic side: e5's similarities are bunched (unrelated
#: text scores about 0.8), so only passages near the best one count.
SEMANTIC_MARGIN = 0.05
#: Keyword sides of concurrent hybrid searches run at most this many at once.
KEYWORD_THREADS = 4

#: "on" / "in" / "of" left before the end by a date taken out.
_DANGLING = re.compile(r"\s+(?:on|in|of)\s*([?.!]?)$", re.I)


@dataclass(frozen=True)
class SearchResult:
    hits: list[Hit]
    #: ``keyword`` (semantic ranking off, or no vector yet) or ``hybrid``.
    ranking: Mode
    vectors: VectorCoverage | None = None
    #: Hits of the ranking's first ``limit`` below the relevance floor, left
    #: out (``floor.py``); 0 when everything was asked for.
    left_out: int = 0
    #: The best-ranked hit left out, and why (None: nothing was).
    nearest: evidence.LeftOut | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "ranking": self.ranking,
            "vectors": self.vectors.as_dict() if self.vectors else None,
            "left_out": self.left_out,
            "nearest": dataclasses.asdict(self.nearest) if self.nearest else None,
            "hits": [h.as_dict() for h in self.hits],
        }


class Vectors(Protocol):
    """The semantic side's parts (``semantic.SemanticRanking``)."""

    embedder: Embedder

    @property
    def store(self) -> VectorStore: ...

    def coverage(self, index: SearchIndex) -> VectorCoverage: ...


def mode(q: Question, stored: int) -> Mode:
    """Hybrid when ``stored`` vectors exist and the question is words."""
    if stored == 0 or not q.text.strip() or wants_exact_words(q.text):
        return "keyword"
    return "hybrid"


def search(
    index: SearchIndex,
    q: Question,
    vectors: Vectors | None = None,
    weights: Weights = WEIGHTS,
    *,
    parallel: bool = True,
    floor: Floor | None = FLOOR,
) -> SearchResult:
    """The ranking of ``q``: hybrid or keyword (``mode``), with snippets, and
    only the hits above the relevance ``floor`` (None: every hit, browsing).

    ``parallel``: in hybrid mode, the keyword side runs beside the embedding
    of the question (False: one after the other; both give the same hits).
    """
    coverage = None
    if vectors is not None:
        store = vectors.store
        store.refresh()
        coverage = vectors.coverage(index)
    if vectors is None or mode(q, len(store)) == "keyword":
        hits, gathered = keyword_ranked(index, q, weights)
        ranking: Mode = "keyword"
    else:
        hits, gathered = hybrid_ranked(index, store, vectors.embedder, q, weights, parallel)
        ranking = "hybrid"
    left_out = 0
    nearest = None
    # Search syntax (quotes, +/-, fields, prefixes) asked for exact words: every
    # hit matches them, so each is evidence.
    if floor is not None and not wants_exact_words(q.text):
        kept, nearest = evidence.passing(index, q, hits, gathered, floor)
        left_out = len(hits) - len(kept)
        hits = kept
        if not hits and ranking == "hybrid" and floor.searched:
            hits, gathered = _holding_every_word(index, q, weights, gathered)
    snippets = index.snippets(hits, gathered.bodies, q.text, gathered.matched)
    return SearchResult(snippets, ranking, coverage, left_out, nearest)


def _holding_every_word(
    index: SearchIndex, q: Question, weights: Weights, gathered: Gathered
) -> tuple[list[Hit], Gathered]:
    """The keyword side's hits that hold every content word of a search the
    hybrid page answered with nothing (and what was known of them), else none.

    Fused ranks are not the words: a page of sections near the question's meaning,
    holding none of its words, can push the one section that holds the word typed
    past the limit, and the floor then leaves everything out. A section holding
    every content word (in any spelling: ``evidence.holds_all``) is evidence
    (``floor.py``), so it is looked for before answering nothing."""
    wanted = set(evidence.content_terms(q.text))
    if not wanted:
        return [], gathered
    hits, found = keyword_ranked(index, q, weights, gathered.keyword)
    terms = found.bodies.terms  # a kept file's section's are found once (``Bodies.terms``)
    held = [
        h
        for h in hits
        if evidence.holds_all(terms((h.path, h.start_line), h.title, h.heading), wanted, q.text)
    ]
    return (held, found) if held else ([], gathered)


def keyword_search(index: SearchIndex, q: Question, weights: Weights = WEIGHTS) -> list[Hit]:
    """Keyword mode: the keyword candidates, their neighbours and names, snippets.

    Search syntax asks for exact words: only the sections that match, no
    neighbours. Otherwise the neighbours of the first hits are scored by the
    query too (0 when they do not match it); one that does not match is a hit
    only for a question in words.
    """
    hits, gathered = keyword_ranked(index, q, weights)
    return index.snippets(hits, gathered.bodies, q.text, gathered.matched)


def keyword_ranked(
    index: SearchIndex, q: Question, weights: Weights, deeper: Ranked | None = None
) -> tuple[list[Hit], Gathered]:
    """``keyword_search``'s hits without snippets, and what it knew of them.

    ``deeper``: ``index.ranked`` of the same question, filters and weights at
    a depth of at least ``max(q.limit, FLOW_FROM)`` (a hybrid search's keyword
    side, ``DEPTH`` deep), whose first sections are taken instead of asking the
    index again: a hybrid page the floor emptied then costs no second query."""
    if wants_exact_words(q.text):
        ranked = index.ranked(q.text, q.kind, q.path_prefix, q.limit, q.dates, weights)
        first = frozenset((h.path, h.start_line) for h in ranked.hits)
        bodies = index.bodies(ranked)
        return ranked.hits, Gathered(bodies, ranked.ordinals, first, matched=ranked.matched)
    depth = max(q.limit, neighbour_bonuses.FLOW_FROM)
    if deeper is not None:
        ranked = _first(deeper, depth)
    else:
        ranked = index.ranked(q.text, q.kind, q.path_prefix, depth, q.dates, weights, room.WIDER)
    near = index.neighbours(neighbour_bonuses.sources(ranked.hits, ranked.ordinals), ranked.query)
    neighbours = near.hits if asks_in_words(q.text) else [h for h in near.hits if h.score > 0]
    ordinals = {**near.ordinals, **ranked.ordinals}
    hits = neighbour_bonuses.spread(ranked.hits, neighbours, ordinals, q.limit, q.names, weights)
    first = frozenset((h.path, h.start_line) for h in ranked.hits if h.score > 0)
    bodies = index.bodies(near, ranked)
    # The page's files in one read (each folder opened once): the page is
    # judged for room, then by the floor, then given snippets.
    bodies.load((h.path, h.start_line) for h in hits)
    # A crowded page's room looks for sections holding every content word:
    # where the index holds none, its candidates are not read at all.
    if room.crowded(hits, bodies, q.limit) and evidence.held_together(index, q.text):
        hits = room.made(hits, room.waiting(ranked, bodies, ordinals), bodies, q.text)
    return hits, Gathered(bodies, ordinals, first, matched=ranked.matched)


def _first(ranked: Ranked, depth: int) -> Ranked:
    """The first ``depth`` sections of ``ranked``: what ``index.ranked`` of the
    same question answers at that depth (Tantivy orders its top documents by
    score, then by address, whatever their number)."""
    hits, rest = ranked.hits[:depth], ranked.hits[depth:]

    def further(size: int) -> Iterator[Ranked]:
        # A crowded page's room reads on (``room.waiting``): what is past ``depth``.
        for start in range(0, len(rest), size):
            yield _only(ranked, rest[start : start + size])
        if ranked.further is not None:
            yield from ranked.further(size)

    return dataclasses.replace(_only(ranked, hits), query=ranked.query, further=further)


def _only(ranked: Ranked, hits: list[Hit]) -> Ranked:
    """``ranked`` cut to ``hits`` (some of its own), with their ordinals and digests."""
    keys = {(h.path, h.start_line) for h in hits}
    return dataclasses.replace(
        ranked,
        hits=hits,
        ordinals={k: v for k, v in ranked.ordinals.items() if k in keys},
        digests={k: v for k, v in ranked.digests.items() if k in keys},
        stored={k: v for k, v in ranked.stored.items() if k in keys},
        further=None,
    )


def hybrid_search(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    q: Question,
    weights: Weights = WEIGHTS,
    *,
    parallel: bool = True,
) -> list[Hit]:
    """Hybrid mode: both sides' candidates fused, the neighbours (unscored:
    the fused scores are ranks) and names, snippets."""
    hits, gathered = hybrid_ranked(index, store, embedder, q, weights, parallel)
    return index.snippets(hits, gathered.bodies, q.text, gathered.matched)


def hybrid_ranked(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    q: Question,
    weights: Weights,
    parallel: bool,
) -> tuple[list[Hit], Gathered]:
    """``hybrid_search``'s hits without snippets, and what it knew of them."""
    depth = max(q.limit, DEPTH)
    # As deep as a keyword search finds (``deeper``: a page the floor empties).
    side = (q.text, q.kind, q.path_prefix, depth, q.dates, weights, room.WIDER)
    if parallel:
        keyword_side = _pool().submit(index.ranked, *side)
        try:
            semantic, meaning = _semantic(index, store, embedder, q, weights)
        except BaseException:
            keyword_side.cancel()
            raise
        keyword = keyword_side.result()
    else:
        keyword = index.ranked(*side)
        semantic, meaning = _semantic(index, store, embedder, q, weights)
    digests = {**semantic.digests, **keyword.digests}
    template = {key for key, d in digests.items() if d in index.template}
    fused = fuse(keyword.hits, semantic.hits, 2 * depth, q.dates, template, weights)
    # The neighbours of the first hits that are in neither list are fetched,
    # with a fused score of their own of 0.
    ordinals = {**semantic.ordinals, **keyword.ordinals}
    near = index.neighbours(neighbour_bonuses.sources(fused, ordinals))
    ordinals.update(near.ordinals)
    unscored = [h.scored(0.0) for h in near.hits]
    hits = neighbour_bonuses.spread(fused, unscored, ordinals, q.limit, q.names, weights)
    digests.update(near.digests)
    wide = meaning.wide
    digests.update(wide.digests)
    # Bodies are read only for the hits judged and returned, and the wide
    # side's (their language is told by their text).
    bodies = index.bodies(near, semantic, keyword, wide)
    bodies.load([(h.path, h.start_line) for h in [*wide.hits, *hits]])
    TONGUES.learn(wide.hits, wide.digests, bodies)
    if room.crowded(hits, bodies, q.limit):
        wider = index.ranked(q.text, q.kind, q.path_prefix, room.WIDER, q.dates, weights)
        digests.update(wider.digests)
        bodies = index.bodies(near, semantic, wider, wide)
        hits = room.made(hits, wider.hits, bodies, q.text)
        ordinals = {**wider.ordinals, **ordinals}
    across = crossing.candidate(
        q.text,
        wide.hits,
        wide.digests,
        bodies,
        dict(meaning.found.pairs),
        store,
        FLOOR,
        unheld=not keyword.hits and evidence.holds_none(index, q.text),
        template=index.template,
    )
    if across is not None and crossing.admitted(across, FLOOR):
        hits = _with(
            hits, next(h for h in wide.hits if (h.path, h.start_line) == across.key), q.limit
        )
        ordinals.update(wide.ordinals)
    first = FLOOR.both_depth
    keys = [digests.get((h.path, h.start_line), "") for h in hits]
    return hits, Gathered(
        bodies,
        ordinals,
        frozenset((h.path, h.start_line) for h in keyword.hits[:first]),
        frozenset((h.path, h.start_line) for h in semantic.hits[:first]),
        tuple((h.path, h.start_line) for h in semantic.hits[:first]),
        digests,
        evidence.meaning_of(store, meaning, keys),
        keyword.matched,
        across,
        keyword,
    )


def _with(hits: list[Hit], hit: Hit, limit: int) -> list[Hit]:
    """``hits`` holding ``hit`` (last, in the place of the last one at the limit)."""
    if any((h.path, h.start_line) == (hit.path, hit.start_line) for h in hits):
        return hits
    return [*hits[: max(limit - 1, 0)], hit.scored(0.0)]


def semantic_candidates(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    q: Question,
    weights: Weights = WEIGHTS,
) -> Ranked:
    """The sections nearest the question's meaning, under its filters."""
    return _semantic(index, store, embedder, q, weights)[0]


def _may_be_unheld(index: SearchIndex, text: str) -> bool:
    """Whether crossing may take the best of every passage for ``text``: a
    question of unaccented words (its language untold) the home holds none of."""
    if FLOOR.crossing_unheld is None:
        return False
    return floors.tongue(text) == "ascii" and evidence.holds_none(index, text)


def _semantic(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    q: Question,
    weights: Weights,
) -> tuple[Ranked, evidence.Asked]:
    """``semantic_candidates``, and the question's vector and background."""
    names = index.in_headings(q.names)
    vector = embedder.query(semantic_text(q.text, names))
    found = store.nearest_in(vector, 2 * DEPTH)
    nearest = found.pairs
    if nearest:
        lowest = nearest[0][1] - SEMANTIC_MARGIN
        nearest = [(d, score) for d, score in nearest if score >= lowest]
    everything = [d for d, _ in found.pairs]
    if not TONGUES.may_cross(q.text, everything) and not _may_be_unheld(index, q.text):
        # No nearest passage holds text in another language, and the question
        # is not one of unaccented words the home holds none of (which may be
        # in another language than the home's: ``crossing.candidate``'s
        # ``unheld``): crossing can find no candidate, so only the semantic
        # side's sections are read (the nearest digests come first: the same
        # sections as the wide read's).
        narrow = index.ranked_digests(
            [d for d, _ in nearest], q.kind, q.path_prefix, DEPTH, weights
        )
        return narrow, evidence.Asked(vector, found, Ranked([]))
    # The sections of all the nearest passages, past the margin, are read at
    # once: where a note in another language saying what the question asks
    # stands (``crossing.py``); the semantic side is those within it.
    wide = index.ranked_digests(everything, q.kind, q.path_prefix, 2 * DEPTH, weights)
    within = {d for d, _ in nearest}
    hits = [h for h in wide.hits if wide.digests[h.path, h.start_line] in within][:DEPTH]
    keys = {(h.path, h.start_line) for h in hits}
    ranked = Ranked(
        hits,
        {k: v for k, v in wide.ordinals.items() if k in keys},
        {k: v for k, v in wide.digests.items() if k in keys},
        {k: v for k, v in wide.stored.items() if k in keys},
    )
    return ranked, evidence.Asked(vector, found, wide)


def semantic_text(text: str, names: Collection[str] = ()) -> str:
    """The question as the semantic side embeds it: without the absolute dates
    it names, nor the ``names`` (lower-cased) it says that are in some
    section's heading.

    A named day or month is the keyword side's ``day`` lift and its fused
    share; in the embedded text it only pulled toward passages that mention
    dates (questions naming a date, semantic ranking alone: 0.26 with, 0.33
    without). Relative dates (``yesterday``) stay: not measured. A name in
    headings (a daily entry's speaker) is weighed by ``Weights.name``; in the
    embedded text it pulled toward that speaker's passages whatever they were
    about (hybrid any-hit@5 0.750 with it, 0.762 without, docs/search.md).
    """
    cut = without_dates(text)
    for name in names:
        cut = re.sub(rf"\b{re.escape(name)}(?:['’]s)?\b", " ", cut, flags=re.IGNORECASE)
    if cut == text:
        return text
    cut = _DANGLING.sub(r"\1", " ".join(cut.split()))
    return cut.strip() or text


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _POOL  # noqa: PLW0603  (one pool per process, made on first use)
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(KEYWORD_THREADS, thread_name_prefix="hearth-keyword")
        return _POOL
