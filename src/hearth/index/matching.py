"""The Tantivy queries of user text: what a section must hold to match
(``matched_query``), the bonuses a match's score gains (``user_query``:
a query word in the heading or title, words side by side, a whole CJK run,
the day or month the query names), and the pieces the keyword side builds
its other queries of (a word's terms, filters, escapes). ``query.py`` runs
them.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence

import tantivy
from tantivy import Occur, Query

from hearth.index.schema import (
    DIGEST_KEY,
    SEARCH_FIELD,
    digest_key,
    shared_analyzer,
)
from hearth.index.terms import QueryText, char_run_tokens
from hearth.index.weights import Weights

_ANALYZER = shared_analyzer()


@functools.lru_cache(maxsize=8192)
def word_terms(word: str) -> tuple[str, ...]:
    """The search analyzer's terms of one query word, remembered: a call into
    Tantivy's analyzer was a large share of building a query."""
    return tuple(_ANALYZER.analyze(word))


_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


def user_query(
    schema: tantivy.Schema,
    searcher: tantivy.Searcher,
    read: QueryText,
    matched: Query,
    dates: Sequence[str],
    weights: Weights,
) -> Query:
    """The scored query: what a section must match (``matched``), and the lifts."""
    bonus = _bonus(schema, searcher, read, dates, weights)
    return Query.boolean_query([(Occur.Must, matched), *bonus]) if bonus else matched


def matched_query(index: tantivy.Index, schema: tantivy.Schema, read: QueryText) -> Query | None:
    """What a section must match (any word, phrase or prefix of the query)."""
    parts: list[tuple[Occur, Query]] = []
    if read.parsed.strip():
        parsed, _errors = index.parse_query_lenient(read.parsed, [SEARCH_FIELD])
        parts.append((Occur.Should, parsed))
    for prefix in read.prefixes:
        pattern = escape(prefix) + ".*"
        parts.append((Occur.Should, Query.regex_query(schema, SEARCH_FIELD, pattern)))
    if read.together:
        # The word words side by side make (``wi fi``: ``wifi``), when some
        # section holds it (most pairs of a question make no word).
        searcher = index.searcher()
        for word in read.together:
            terms = word_terms(word)
            if len(terms) == 1 and searcher.doc_freq(SEARCH_FIELD, terms[0]):
                parts.append((Occur.Should, Query.term_query(schema, SEARCH_FIELD, terms[0])))
    if not parts:
        return None
    return Query.boolean_query(parts)


def _bonus(
    schema: tantivy.Schema,
    searcher: tantivy.Searcher,
    read: QueryText,
    dates: Sequence[str],
    weights: Weights,
) -> list[tuple[Occur, Query]]:
    """Extra score for a section that holds the query's words in its heading or
    title, or its runs of CJK characters whole; never a match on its own.

    The heading and title bonus of a word is proportional to the word's
    inverse document frequency over whole sections, so a rare word in a
    heading lifts its section and a filler word (``what``, ``did``) or a name
    in every entry's heading (a daily note's speaker) barely does.
    """
    out: list[tuple[Occur, Query]] = []
    fields = {"title": weights.title, "heading": weights.heading}
    total = max(1, int(searcher.num_docs))
    seen: set[str] = set()
    df_of: dict[str, int] = {}
    for word in read.words:
        for token in word_terms(word):
            if token in seen:
                continue
            seen.add(token)
            df = int(searcher.doc_freq(SEARCH_FIELD, token))
            if df == 0:
                continue
            df_of[token] = df
            idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
            for field, weight in fields.items():
                if weight > 0:
                    term = Query.term_query(schema, field, token)
                    out.append((Occur.Should, Query.const_score_query(term, weight * idf)))
    order = [t for w in read.words for t in word_terms(w) if t in seen]
    if weights.pair > 0:
        common = max(weights.pair_common * total, weights.pair_cheap)
        everywhere = max(weights.pair_everywhere * total, weights.pair_cheap)
        for first, second in itertools.pairwise(order):
            fewer, more = sorted((df_of.get(first, 0), df_of.get(second, 0)))
            if fewer > common or more > everywhere:
                continue  # nearly everywhere: costly, and the pair says little
            pair = Query.phrase_query(schema, SEARCH_FIELD, [first, second])
            out.append((Occur.Should, Query.boost_query(pair, weights.pair)))
    for day in dict.fromkeys(dates) if weights.day > 0 else ():
        # A month lifts every day of it, by half as much as a named day.
        if len(day) == 7:
            month = Query.regex_query(schema, "date", escape(day) + "-.*")
            out.append((Occur.Should, Query.const_score_query(month, weights.day / 2)))
            continue
        exact = Query.term_query(schema, "date", day)
        out.append((Occur.Should, Query.const_score_query(exact, weights.day)))
    for run in read.runs if weights.run > 0 else ():
        phrase = Query.phrase_query(
            schema, SEARCH_FIELD, list[str | tuple[int, str]](char_run_tokens(run))
        )
        out.append((Occur.Should, Query.boost_query(phrase, weights.run)))
    return out


def any_of(schema: tantivy.Schema, field: str, values: Sequence[int | str]) -> Query:
    """A section whose ``field`` is one of ``values``: term queries joined,
    not ``term_set_query``, which builds an automaton at every search (far
    dearer than a term query)."""
    return Query.boolean_query([(Occur.Should, Query.term_query(schema, field, v)) for v in values])


#: The filter of the template's sections, by the template's digests: built
#: once, not at every search (a term query a digest, a noticeable share of a
#: small home's keyword search).
_TEMPLATE_FILTERS: dict[frozenset[str], Query] = {}


def template_filter(schema: tantivy.Schema, template: frozenset[str]) -> Query:
    found = _TEMPLATE_FILTERS.get(template)
    if found is None:
        keys = [digest_key(d) for d in sorted(template)]
        found = as_filter(any_of(schema, DIGEST_KEY, keys))
        if len(_TEMPLATE_FILTERS) >= 4:  # a process has one home, tests a few
            _TEMPLATE_FILTERS.clear()
        _TEMPLATE_FILTERS[template] = found
    return found


def as_filter(query: Query) -> Query:
    """Match like ``query`` but add nothing to the score."""
    return Query.const_score_query(query, 0.0)


def escape(text: str) -> str:
    return "".join("\\" + ch if ch in _REGEX_META else ch for ch in text)
