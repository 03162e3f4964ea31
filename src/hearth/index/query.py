"""From user text to ranked hits with snippets.

User text goes through Tantivy's lenient parser, so no input makes a search
fail: what does not parse is searched as words. A word ending in ``*``
(``garde*``) becomes a prefix match on the indexed terms. The score is BM25
with the title and heading weighted above the body; kind and path filters add
nothing to the score; archived records keep matching at a fraction of their
score, so they rank below active ones.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass

import tantivy
from tantivy import Occur, Query

from hearth.errors import InvalidInput
from hearth.index.schema import ARCHIVE_WEIGHT, FIELD_BOOSTS, TEXT_FIELDS

MAX_QUERY_CHARS = 1000
#: Longer prefixes would make the path regex exceed Tantivy's automaton limit.
MAX_PREFIX_CHARS = 256
MAX_LIMIT = 200
SNIPPET_CHARS = 200
_PREFIX = re.compile(r"^(\w{2,64})\*$")
_REGEX_META = set("\\.+*?()|[]{}^$#&-~")


@dataclass(frozen=True)
class Hit:
    path: str
    start_line: int
    end_line: int
    title: str
    heading: str
    kind: str
    date: str
    score: float
    snippet: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def run_search(
    index: tantivy.Index,
    schema: tantivy.Schema,
    text: str,
    kind: str | None,
    path_prefix: str | None,
    limit: int,
) -> list[Hit]:
    words = _user_query(index, schema, text[:MAX_QUERY_CHARS])
    if words is None:
        return []
    filters = [(Occur.Must, words)]
    if kind:
        filters.append((Occur.Must, _filter(Query.term_query(schema, "kind", kind))))
    if path_prefix:
        if len(path_prefix) > MAX_PREFIX_CHARS:
            raise InvalidInput(f"a path prefix is at most {MAX_PREFIX_CHARS} characters")
        pattern = _escape(path_prefix) + ".*"
        filters.append((Occur.Must, _filter(Query.regex_query(schema, "path", pattern))))
    base = Query.boolean_query(filters)
    archived = _filter(Query.term_query(schema, "kind", "archive"))
    ranked = Query.boolean_query(
        [
            (Occur.Should, Query.boolean_query([(Occur.Must, base), (Occur.MustNot, archived)])),
            (
                Occur.Should,
                Query.boost_query(
                    Query.boolean_query([(Occur.Must, base), (Occur.Must, archived)]),
                    ARCHIVE_WEIGHT,
                ),
            ),
        ]
    )
    searcher = index.searcher()
    found = searcher.search(ranked, max(1, min(limit, MAX_LIMIT))).hits
    if not found:
        return []
    snippets = tantivy.SnippetGenerator.create(searcher, words, schema, "body")
    snippets.set_max_num_chars(SNIPPET_CHARS)
    hits = []
    for score, address in found:
        doc = searcher.doc(address)
        body = str(doc.get_first("body") or "")
        hits.append(
            Hit(
                path=str(doc.get_first("path")),
                start_line=int(doc.get_first("start_line") or 0),
                end_line=int(doc.get_first("end_line") or 0),
                title=str(doc.get_first("title") or ""),
                heading=str(doc.get_first("heading") or ""),
                kind=str(doc.get_first("kind")),
                date=str(doc.get_first("date") or ""),
                score=round(float(score), 4),
                snippet=_snippet(snippets.snippet_from_doc(doc), body),
            )
        )
    return hits


def _user_query(index: tantivy.Index, schema: tantivy.Schema, text: str) -> Query | None:
    prefixes: list[str] = []
    rest: list[str] = []
    for token in text.split():
        match = _PREFIX.match(token)
        if match:
            prefixes.append(_fold(match.group(1)))
        else:
            rest.append(token)
    parts: list[tuple[Occur, Query]] = []
    if rest:
        parsed, _errors = index.parse_query_lenient(
            " ".join(rest), list(TEXT_FIELDS), field_boosts=FIELD_BOOSTS
        )
        parts.append((Occur.Should, parsed))
    for prefix in prefixes:
        for field in TEXT_FIELDS:
            regex = Query.regex_query(schema, field, _escape(prefix) + ".*")
            parts.append((Occur.Should, Query.boost_query(regex, FIELD_BOOSTS[field])))
    if not parts:
        return None
    return Query.boolean_query(parts)


def _filter(query: Query) -> Query:
    """Match like ``query`` but add nothing to the score."""
    return Query.const_score_query(query, 0.0)


def _fold(word: str) -> str:
    """What the analyzer does to a word's letters: lower-case and strip accents."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _escape(text: str) -> str:
    return "".join("\\" + ch if ch in _REGEX_META else ch for ch in text)


def _snippet(snippet: tantivy.Snippet, body: str) -> str:
    """The best fragment with its matches in ``**bold**``; else the body's first words."""
    fragment = snippet.fragment()
    if not fragment.strip():
        words = " ".join(body.split())
        return words if len(words) <= SNIPPET_CHARS else words[: SNIPPET_CHARS - 1] + "…"
    raw = fragment.encode("utf-8")
    out: list[bytes] = []
    cursor = 0
    for span in sorted(snippet.highlighted(), key=lambda r: r.start):
        if span.start < cursor:
            continue
        out += [raw[cursor : span.start], b"**", raw[span.start : span.end], b"**"]
        cursor = span.end
    out.append(raw[cursor:])
    return " ".join(b"".join(out).decode("utf-8", "replace").split())
