"""Snippets: the best fragment of each hit's body with the query's matches in
bold, through Tantivy's snippet generator (the hits and their query are
``query.py``'s)."""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence

import tantivy
from tantivy import Query

from hearth.domain.searching import MAX_QUERY_CHARS
from hearth.index.analysis import is_plain
from hearth.index.bodies import Bodies
from hearth.index.hits import Hit
from hearth.index.query import matched_query
from hearth.index.schema import SEARCH_FIELD
from hearth.index.terms import read_query

SNIPPET_CHARS = 200
_start = operator.itemgetter(0)


def run_snippets(
    index: tantivy.Index,
    schema: tantivy.Schema,
    hits: Sequence[Hit],
    bodies: Mapping[tuple[str, int], str],
    text: str,
    plain: tantivy.Index | None = None,
    matched: Query | None = None,
) -> list[Hit]:
    """``hits`` with their snippets for ``text``: the best fragment of each
    body with the query's matches in bold.

    ``matched``: the keyword ranking's ``Ranked.matched`` of ``text``, if there
    was one (else ``text`` is parsed again: the same query).

    ``plain``: the same index opened with the writer's fast analyzer
    (``analysis.py``), its searcher in step with ``index``'s
    (``SearchIndex._in_step``). A body the fast analyzer cuts as the search
    analyzer does (``is_plain``: most text) is highlighted through it, the same
    snippet in a fraction of the time; any other body through ``index``'s
    analyzer.
    """
    if not hits:
        return []
    if matched is None:
        matched = matched_query(index, schema, read_query(text[:MAX_QUERY_CHARS]))
    generators: dict[bool, tantivy.SnippetGenerator | None] = {}

    def generator(fast: bool) -> tantivy.SnippetGenerator | None:
        if fast not in generators:
            made = None
            if matched is not None:
                # ``body`` has no terms of its own (schema.py): the body is
                # highlighted with the terms of ``text``.
                searcher = (plain if fast and plain is not None else index).searcher()
                made = tantivy.SnippetGenerator.create(searcher, matched, schema, SEARCH_FIELD)
                made.set_max_num_chars(SNIPPET_CHARS)
            generators[fast] = made
        return generators[fast]

    # A search's bodies tell their plainness once for each kept section.
    plainness = bodies.plain if isinstance(bodies, Bodies) else None
    out = []
    for hit in hits:
        where = (hit.path, hit.start_line)
        body = bodies[where]
        fast = plain is not None and (plainness(where) if plainness else is_plain(body))
        made = generator(fast)
        found = made.snippet_from_doc(tantivy.Document(**{SEARCH_FIELD: body})) if made else None
        out.append(hit.with_snippet(_snippet(found, body)))
    return out


def _snippet(snippet: tantivy.Snippet | None, body: str) -> str:
    """The best fragment with its matches in ``**bold**``; else the body's first words."""
    fragment = snippet.fragment() if snippet is not None else ""
    if snippet is None or not fragment.strip():
        words = " ".join(body.split())
        return words if len(words) <= SNIPPET_CHARS else words[: SNIPPET_CHARS - 1] + "…"
    raw = fragment.encode("utf-8")
    out: list[bytes] = []
    cursor = 0
    # Each range's ends read once (an attribute of Tantivy's object is a call).
    spans = [(span.start, span.end) for span in snippet.highlighted()]
    spans.sort(key=_start)
    for start, end in spans:
        if start < cursor:
            continue
        out += [raw[cursor:start], b"**", raw[start:end], b"**"]
        cursor = end
    out.append(raw[cursor:])
    return " ".join(b"".join(out).decode("utf-8", "replace").split())
