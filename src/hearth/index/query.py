"""The keyword side of search on Tantivy: from user text to ranked sections
and their neighbours (their snippets are ``snippets.py``'s; the pipeline that
puts them together is ``ranking.py``; the weights are ``weights.py``'s).

User text goes through Tantivy's lenient parser, so no input makes a search
fail: what does not parse is searched as words. A word ending in ``*``
(``garde*``) becomes a prefix match on the indexed terms. English function
words are left out of a question that has other words (``terms.py``), and
runs of CJK characters are searched as their character pairs.

The score is BM25 over a section's whole text (``schema.py`` says why not per
field), plus bonuses that never make a match on their own: a query word in
the section's heading or title (weighted by the word's rarity), two query
words side by side as in the query, a whole CJK run, and the day or month the
query names (a daily note's date). Kind and path filters add nothing to the
score; archived records keep matching at a fraction of their score, so they
rank below active ones.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator, Sequence
from typing import Any

import tantivy
from tantivy import Occur, Query

from hearth.domain import layout
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS
from hearth.errors import InvalidInput
from hearth.index import stored_docs
from hearth.index.hits import Ranked
from hearth.index.matching import (
    any_of,
    as_filter,
    escape,
    matched_query,
    template_filter,
    user_query,
    word_terms,
)
from hearth.index.schema import (
    DIGEST_KEY,
    ORDINAL,
    SEARCH_FIELD,
    digest_key,
)
from hearth.index.stored_docs import Doc
from hearth.index.terms import read_query
from hearth.index.weights import WEIGHTS, Weights


def run_ranked(
    index: tantivy.Index,
    schema: tantivy.Schema,
    text: str,
    kind: str | None,
    path_prefix: str | None,
    limit: int,
    template: frozenset[str] = frozenset(),
    dates: Sequence[str] = (),
    weights: Weights = WEIGHTS,
    more: int = 0,
) -> Ranked:
    """The keyword candidates of ``text``, BM25 plus the keyword lifts (the
    days and months of ``dates`` among them), best first, without snippets;
    with ``more``, the first ``more`` candidates are found, and those past
    ``limit`` are read from the index only when asked for (``Ranked.further``)."""
    searcher = index.searcher()
    read = read_query(text[:MAX_QUERY_CHARS])
    matched = matched_query(index, schema, read)
    if matched is None:
        return Ranked([], {})
    scored = user_query(schema, searcher, read, matched, dates, weights)
    query = _ranked(schema, searcher, scored, kind, path_prefix, template, weights)
    wanted = _bounded(max(limit, more))
    found = searcher.search(query, wanted, count=False).hits
    page = _bounded(limit)
    if len(found) == wanted < MAX_LIMIT and found[-1][0] == found[min(page, wanted) - 1][0]:
        # The page's last ties with every candidate found: which of its ties
        # are found at all is the index's order. Once deeper (a common word
        # in many sections of one length may tie in hundreds).
        found = searcher.search(query, MAX_LIMIT, count=False).hits
    docs, rest = _in_order(searcher, found, page)
    first = stored_docs.ranked(docs[:page])
    further = _Further(searcher, rest, docs[page:]).chunks
    return dataclasses.replace(first, query=scored, matched=matched, further=further)


def _in_order(
    searcher: tantivy.Searcher, found: Sequence[tuple[float, Any]], limit: int
) -> tuple[list[tuple[float, Doc]], Sequence[tuple[float, Any]]]:
    """The first ``limit`` of ``found`` read, and those tied with the last of
    them, equal scores in the order of their path and first line; and the
    rest, not read. Tantivy orders equal scores by their documents' places
    in the index, which its indexing threads decide: the same home built
    twice ranked its ties in another order."""
    end = min(limit, len(found))
    while 0 < end < len(found) and found[end][0] == found[end - 1][0]:
        end += 1
    read = _documents(searcher, found[:end])
    if any(a[0] == b[0] for a, b in itertools.pairwise(found[:end])):  # most pages: no tie
        read.sort(key=stored_docs.tie_order)
    return read, found[end:]


def _documents(
    searcher: tantivy.Searcher, found: Sequence[tuple[float, Any]]
) -> list[tuple[float, Doc]]:
    """The documents of ``found``, with their scores (kept ones not read again)."""
    return stored_docs.read(searcher, found)


@dataclasses.dataclass(frozen=True)
class _Further:
    """Candidates found and not yet read: a document is most of a candidate's
    cost, and a crowded page's room (``room.py``) mostly needs only the first
    few past the page. ``read``: those read already (ties of the page's last)."""

    searcher: tantivy.Searcher
    found: Sequence[tuple[float, Any]]
    read: Sequence[tuple[float, Doc]] = ()

    def chunks(self, size: int) -> Iterator[Ranked]:
        for start in range(0, len(self.read), size):
            yield stored_docs.ranked(self.read[start : start + size])
        # Further down (read only when a crowded page makes room), ties keep
        # the index's order: the same candidates whatever the chunks' size.
        for start in range(0, len(self.found), size):
            yield stored_docs.ranked(_documents(self.searcher, self.found[start : start + size]))


def run_digest_ranked(
    index: tantivy.Index,
    schema: tantivy.Schema,
    digests: Sequence[str],
    kind: str | None,
    path_prefix: str | None,
    limit: int,
    template: frozenset[str] = frozenset(),
    weights: Weights = WEIGHTS,
) -> Ranked:
    """The sections holding ``digests`` (passing the filters), in the order of
    ``digests``, without snippets: the semantic candidates."""
    searcher = index.searcher()
    limit = _bounded(limit)
    digests = list(dict.fromkeys(digests))
    order = {d: i for i, d in enumerate(digests)}
    docs: list[tuple[float, Doc]] = []
    # The nearest digests first, ``limit`` at a time, until ``limit`` sections
    # are found: the digests further down (there for sections the filters
    # leave out, or vectors of text no longer in the index) are mostly not read.
    for start in range(0, len(digests), limit):
        chunk = list(digests[start : start + limit])
        held = any_of(schema, DIGEST_KEY, [digest_key(d) for d in chunk])
        found = searcher.search(
            _ranked(schema, searcher, held, kind, path_prefix, template, weights),
            4 * len(chunk),
            count=False,
        ).hits
        # Each document is read once: for its digest (the order) and for its hit.
        # The key is part of a digest: a section whose whole digest is not one of
        # this chunk's (two digests sharing 60 bits) is left out.
        asked = set(chunk)
        more = [(score, doc) for score, doc in _documents(searcher, found) if doc.digest in asked]
        # Sections of one passage (the same text in two places) by path and line.
        more.sort(key=lambda pair: (order[pair[1].digest], stored_docs.tie_order(pair)[1:]))
        docs += more
        if len(docs) >= limit:
            break
    return stored_docs.ranked(docs[:limit])


def run_neighbours(
    index: tantivy.Index,
    schema: tantivy.Schema,
    around: Sequence[tuple[str, int]],
    words: Query | None = None,
) -> Ranked:
    """The sections just before and after each ``(path, ordinal)`` of
    ``around``, without snippets, scored by ``words`` (a keyword ranking's
    ``query``; 0 when they do not match it, or without it).

    They are sections of the files of hits that passed the search's filters,
    daily notes (``context.sources``): neither archived records nor template
    text, so none of ``_ranked``'s filters and weights apply (each weight
    class would evaluate the query once more)."""
    searcher = index.searcher()
    wanted: dict[str, set[int]] = {}
    asked = set(around)
    for path, n in around:
        for near in (n - 1, n + 1):
            if near >= 0 and (path, near) not in asked:
                wanted.setdefault(path, set()).add(near)
    if not wanted:
        return Ranked([], {})
    places = [
        (
            Occur.Should,
            Query.boolean_query(
                [
                    (Occur.Must, Query.term_query(schema, "path", path)),
                    (Occur.Must, any_of(schema, ORDINAL, sorted(ordinals))),
                ]
            ),
        )
        for path, ordinals in sorted(wanted.items())
    ]
    held: list[tuple[Occur, Query]] = [(Occur.Must, as_filter(Query.boolean_query(places)))]
    if words is not None:
        held.append((Occur.Should, words))
    count = sum(len(ordinals) for ordinals in wanted.values())
    found = searcher.search(Query.boolean_query(held), count, count=False).hits
    return stored_docs.ranked(_in_order(searcher, found, len(found))[0])


def run_holding_all(
    index: tantivy.Index, schema: tantivy.Schema, groups: Sequence[Sequence[str]]
) -> bool:
    """Whether some section's text holds a term of each of ``groups``
    (analyzed terms); False for no group. One search for a single document."""
    if not groups:
        return False
    held = Query.boolean_query(
        [(Occur.Must, any_of(schema, SEARCH_FIELD, list(group))) for group in groups]
    )
    return bool(index.searcher().search(held, 1, count=False).hits)


def run_in_headings(index: tantivy.Index, words: Sequence[str]) -> list[str]:
    """Those of ``words`` whose terms are all in some section's heading."""
    if not words:
        return []
    searcher = index.searcher()
    return [
        word
        for word in words
        if (terms := word_terms(word)) and all(searcher.doc_freq("heading", t) > 0 for t in terms)
    ]


def _bounded(limit: int) -> int:
    return max(1, min(limit, MAX_LIMIT))


def _ranked(
    schema: tantivy.Schema,
    searcher: tantivy.Searcher,
    words: Query,
    kind: str | None,
    path_prefix: str | None,
    template: frozenset[str],
    weights: Weights,
) -> Query:
    """``words`` within the filters; archived records and sections still holding
    the home template's text (their digests: ``template``) at a fraction of
    their score."""
    base = _within(schema, searcher, words, kind, path_prefix)
    archive = as_filter(Query.term_query(schema, "kind", "archive"))
    # Each lowered set adds its score times (weight - 1) to the score every
    # section gets: the query is evaluated once for every section and again
    # for the lowered ones only. (Three clauses, each section in exactly one,
    # evaluated it three times, slower on the 10,000-file home.)
    lowered: list[tuple[list[tuple[Occur, Query]], float]] = []
    # A lowered set no section of the index is in adds nothing to any score:
    # its clause is left out (the same scores; each clause evaluates the query).
    if searcher.doc_freq("kind", "archive"):
        lowered.append(([(Occur.Must, archive)], weights.archive))
    if template:
        held = template_filter(schema, template)
        lowered.append(([(Occur.Must, held), (Occur.MustNot, archive)], weights.template))
    parts = [(Occur.Should, base)]
    for which, weight in lowered:
        if weight != 1:
            held_query = Query.boolean_query([(Occur.Must, base), *which])
            parts.append((Occur.Should, Query.boost_query(held_query, weight - 1)))
    return Query.boolean_query(parts)


def _within(
    schema: tantivy.Schema,
    searcher: tantivy.Searcher,
    words: Query,
    kind: str | None,
    path_prefix: str | None,
) -> Query:
    """``words`` within the kind and path filters (which add nothing to the
    score), as ``searcher`` sees the index."""
    filters = [(Occur.Must, words)]
    if kind:
        filters.append((Occur.Must, as_filter(Query.term_query(schema, "kind", kind))))
    if path_prefix:
        if len(path_prefix) > MAX_PREFIX_CHARS:
            raise InvalidInput(f"a path prefix is at most {MAX_PREFIX_CHARS} characters")
        pattern = escape(path_prefix) + ".*"
        filters.append((Occur.Must, as_filter(Query.regex_query(schema, "path", pattern))))
    if not layout.asks_for_set_aside(kind, path_prefix):
        # Merged and rejected proposals, withdrawn decisions, replaced entries: not memory.
        filters += [(Occur.MustNot, aside) for aside in _set_aside(schema, searcher)]
    return Query.boolean_query(filters)


#: Each set-aside folder's path query, by schema (``_set_aside``).
_SET_ASIDE: dict[int, tuple[tantivy.Schema, tuple[tuple[str, Query], ...]]] = {}


def _set_aside(schema: tantivy.Schema, searcher: tantivy.Searcher) -> list[Query]:
    """The path query of each of ``layout.SET_ASIDE_FOLDERS`` that holds a
    path term in ``searcher``'s index: a folder that holds none has no
    section to leave out, and its filter, evaluated with every clause of the
    ranking that holds it, was a large share of a keyword search; the same
    sections are found either way (docs/performance.md, "Keyword search,
    part by part").

    The queries are built once a schema: a regex query compiles its
    automaton when it is made, and Tantivy clones an immutable query into
    each boolean query, so one serves every search."""
    held = _SET_ASIDE.get(id(schema))
    if held is None or held[0] is not schema:
        made = tuple(
            (folder, Query.regex_query(schema, "path", escape(folder) + ".*"))
            for folder in layout.SET_ASIDE_FOLDERS
        )
        if len(_SET_ASIDE) >= 4:  # a process has one schema, tests a few
            _SET_ASIDE.clear()
        held = _SET_ASIDE[id(schema)] = (schema, made)
    return [q for folder, q in held[1] if searcher.terms_with_prefix("path", folder, limit=1)]
