"""Snippets: the best fragment of each hit's body with the query's matches in
bold, through Tantivy's snippet generator (the hits and their query are
``query.py``'s)."""

from __future__ import annotations

import bisect
import functools
import operator
from collections.abc import Mapping, Sequence

import tantivy
from tantivy import Occur, Query

from hearth.domain.searching import MAX_QUERY_CHARS
from hearth.index import folding, joined
from hearth.index.analysis import is_plain, term_set
from hearth.index.bodies import Bodies
from hearth.index.hits import Hit
from hearth.index.matching import matched_query
from hearth.index.schema import SEARCH_FIELD, shared_analyzer
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
    read = read_query(text[:MAX_QUERY_CHARS])
    if matched is None:
        matched = matched_query(index, schema, read)
    # A query word a body holds written joined (``wifi`` in ``Wi-Fi``) is
    # bold in its parts: their terms are highlighted too.
    wanted = _wanted(" ".join([read.parsed, *read.together]))
    parts = {t for hit in hits for t in _joined_parts(bodies[hit.path, hit.start_line], wanted)}
    if parts and matched is not None:
        extra = [(Occur.Should, Query.term_query(schema, SEARCH_FIELD, t)) for t in sorted(parts)]
        matched = Query.boolean_query([(Occur.Should, matched), *extra])
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
        if made is None:
            out.append(hit.with_snippet(_snippet(None, body)))
        elif not fast and folding.foldable(body):
            out.append(hit.with_snippet(_folded_snippet(made, body)))
        else:
            found = made.snippet_from_doc(tantivy.Document(**{SEARCH_FIELD: body}))
            out.append(hit.with_snippet(_snippet(found, body)))
    return out


@functools.lru_cache(maxsize=256)
def _wanted(parsed: str) -> frozenset[str]:
    """The terms of a query's words and their other spellings."""
    return frozenset(term_set(parsed))


def _joined_parts(body: str, wanted: frozenset[str]) -> set[str]:
    """The terms of the parts of ``body``'s runs written joined whose
    catenation is one of ``wanted`` (``wifi``: ``wi`` and ``fi`` of ``Wi-Fi``)."""
    held = _catenated(body)
    return {t for term in wanted.intersection(held) for t in held[term]} if held else set()


@functools.lru_cache(maxsize=1024)
def _catenated(body: str) -> dict[str, frozenset[str]]:
    """The terms of ``body``'s catenations (``joined.py``), each with the
    terms of the parts it was made of; remembered by body (a kept file's
    bodies come back search after search, ``bodies.Kept``)."""
    out: dict[str, frozenset[str]] = {}
    for run in joined.runs(body):
        parts = frozenset(t for part in run.parts for t in _terms(part))
        for word in run.words:
            for term in _terms(word):
                out[term] = out.get(term, frozenset()) | parts
    return out


@functools.lru_cache(maxsize=4096)
def _terms(word: str) -> tuple[str, ...]:
    return tuple(shared_analyzer().analyze(folding.fold(word)))


def _folded_snippet(made: tantivy.SnippetGenerator, body: str) -> str:
    """The snippet of a body the index holds in its folded spelling
    (``folding.py``: Greek accents, NFD, ...): made on the folded text, whose
    words the query's terms match, and shown as written, bold where the
    folded text is."""
    folded, starts, places = folding.aligned(body)
    found = made.snippet_from_doc(tantivy.Document(**{SEARCH_FIELD: folded}))
    fragment = found.fragment()
    at = folded.find(fragment) if fragment.strip() else -1
    if at < 0:
        return _snippet(None, body)
    starts.append(len(folded))
    places.append(len(body))
    raw = fragment.encode("utf-8")

    def written(offset: int) -> int:
        """The place in ``body`` of a byte offset of the fragment."""
        char = at + len(raw[:offset].decode("utf-8", "replace"))
        piece = bisect.bisect_right(starts, char) - 1
        return places[piece] if starts[piece] == char else places[piece + 1]

    begin = written(0)
    shown = body[begin : written(len(raw))]
    spans: list[tuple[int, int]] = []
    for span in found.highlighted():
        start, end = written(span.start), written(span.end)
        at_byte, end_byte = len(body[begin:start].encode()), len(body[begin:end].encode())
        if spans and spans[-1][1] == at_byte:  # one word cut in pieces (kana): one bold run
            spans[-1] = (spans[-1][0], end_byte)
        else:
            spans.append((at_byte, end_byte))
    return _bolded(shown.encode("utf-8"), spans)


def _snippet(snippet: tantivy.Snippet | None, body: str) -> str:
    """The best fragment with its matches in ``**bold**``; else the body's first words."""
    fragment = snippet.fragment() if snippet is not None else ""
    if snippet is None or not fragment.strip():
        words = " ".join(body.split())
        return words if len(words) <= SNIPPET_CHARS else words[: SNIPPET_CHARS - 1] + "…"
    # Each range's ends read once (an attribute of Tantivy's object is a call).
    spans = [(span.start, span.end) for span in snippet.highlighted()]
    return _bolded(fragment.encode("utf-8"), spans)


#: Bytes that join the parts of one word (``joined.py``): two bold parts with
#: only these between them are one bold word (``**Wi-Fi**``).
_JOINING = frozenset(b"-._',") | frozenset("\u2010\u2011\u2019".encode())


def _bolded(raw: bytes, spans: list[tuple[int, int]]) -> str:
    """``raw`` (UTF-8) with the byte ranges ``spans`` in ``**bold**``, a word's
    joined parts as one."""
    spans.sort(key=_start)
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start < merged[-1][1]:
            continue
        if merged and start > merged[-1][1] and _JOINING.issuperset(raw[merged[-1][1] : start]):
            merged[-1] = (merged[-1][0], end)
            continue
        merged.append((start, end))
    out: list[bytes] = []
    cursor = 0
    for start, end in merged:
        out += [raw[cursor:start], b"**", raw[start:end], b"**"]
        cursor = end
    out.append(raw[cursor:])
    return " ".join(b"".join(out).decode("utf-8", "replace").split())
