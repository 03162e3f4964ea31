"""Gathering what the relevance floor judges (``floor.py``) from a ranking:
the question's words weighed against the home's sections, each hit's words,
and each hit's cosine against the question's background."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from hearth.domain.layout import daily_note_date
from hearth.domain.searching import MAX_QUERY_CHARS
from hearth.index import floor as floors
from hearth.index.dates import without_dates
from hearth.index.floor import Floor, Judged, Meaning
from hearth.index.joined import Alternative, covered
from hearth.index.joined import query_words as other_spellings
from hearth.index.joined import spans as joined_spans
from hearth.index.schema import shared_analyzer
from hearth.index.terms import read_query

if TYPE_CHECKING:
    from tantivy import Query

    from hearth.index.bodies import Bodies
    from hearth.index.crossing import Crossing
    from hearth.index.hits import Hit, Ranked
    from hearth.index.ondisk import Nearest
    from hearth.index.question import Question
    from hearth.index.search_index import SearchIndex
    from hearth.index.vectors import Vectors, VectorStore

_ANALYZER = shared_analyzer()


@dataclass(frozen=True)
class Gathered:
    """What a ranking knew of its hits, for the floor (``floor.py``)."""

    bodies: Bodies
    ordinals: dict[tuple[str, int], int]
    #: The first candidates of each side, by ``(path, start_line)``.
    keyword_first: frozenset[tuple[str, int]]
    semantic_first: frozenset[tuple[str, int]] = frozenset()
    #: The semantic side's candidates in its order (the first ``both_depth``).
    semantic_order: tuple[tuple[str, int], ...] = ()
    #: Each hit's passage digest, and the semantic side's view (hybrid only).
    digests: dict[tuple[str, int], str] = dataclasses.field(default_factory=dict)
    meaning: Meaning | None = None
    #: The keyword side's ``Ranked.matched`` (its snippets highlight it).
    matched: Query | None = None
    #: The question's translation candidate (``crossing.py``; hybrid only).
    crossing: Crossing | None = None
    #: The keyword side's ranking (hybrid only): a page the floor empties is
    #: answered from its first sections (``ranking._holding_every_word``).
    keyword: Ranked | None = None


class Asked(NamedTuple):
    """The semantic side's question: its vector, what the store found, and
    the sections of all it found (past the semantic side's margin; none when
    none of them can be crossing's candidate, ``passage_tongues.py``)."""

    vector: Vectors
    found: Nearest
    wide: Ranked


@functools.lru_cache(maxsize=8192)
def _terms(word: str) -> tuple[str, ...]:
    return tuple(_ANALYZER.analyze(word))


def meaning_of(store: VectorStore, asked: Asked, digests: Sequence[str]) -> Meaning:
    """The cosines of the passages ``digests`` (the hits) to the question, and
    its background; a digest without a vector has no cosine."""
    cosines = dict(asked.found.pairs)
    missing = [d for d in dict.fromkeys(digests) if d and d not in cosines and d in store]
    if missing:
        for digest, cosine in zip(missing, store.rows_of(missing) @ asked.vector, strict=True):
            cosines[digest] = float(cosine)
    wanted = set(digests)
    found = asked.found
    return Meaning(
        {d: c for d, c in cosines.items() if d in wanted}, found.mean, found.spread, found.rows
    )


def content_terms(text: str) -> list[str]:
    """The index terms of the question's content words (``floor.content_words``)."""
    asked = read_query(without_dates(text)).words
    return [t for w in floors.content_words(asked) for t in _terms(w)]


@functools.lru_cache(maxsize=256)
def alternatives(text: str) -> tuple[Alternative, ...]:
    """The other spellings of the question's words a section may hold them
    in (``joined.py``): ``Wi-Fi``'s terms held as ``wifi``, ``WiFi``'s as
    ``wi`` and ``fi``, and two content words side by side (``wi fi``) as the
    word they make."""
    asked = read_query(without_dates(text)).words
    out: list[Alternative] = []
    side_by_side: list[list[str]] = [[]]
    for word in asked:
        content = floors.content_words([word])
        low = content[0] if content else ""
        if not low:
            side_by_side.append([])
            continue
        covers = frozenset(_terms(low))
        catenated, camel = other_spellings(word.strip(floors.EDGE))
        out += [Alternative(covers, frozenset(_terms(w))) for w in catenated]
        if camel:
            out.append(Alternative(covers, frozenset(t for p in camel for t in _terms(p))))
        if low.isalnum():
            side_by_side[-1].append(low)
        else:
            side_by_side.append([])
    for words in side_by_side:
        for i, j in joined_spans(len(words)):
            covers = frozenset(t for w in words[i:j] for t in _terms(w))
            out.append(Alternative(covers, frozenset(_terms("".join(words[i:j])))))
    return tuple(a for a in out if a.covers and a.holds and a.covers != a.holds)


def holding(held: Container[str], text: str) -> Container[str]:
    """``held`` (a section's terms) and the question's terms it holds in
    another spelling (``alternatives``)."""
    found = alternatives(text)
    return covered(held, found) if found else held


def holds_all(held: Container[str], wanted: Iterable[str], text: str) -> bool:
    """Whether a section's terms ``held`` hold every one of ``wanted``, in
    their own spelling or another the question ``text`` allows (``holding``)."""
    present = holding(held, text)
    return all(t in present for t in wanted)


def held_together(index: SearchIndex, text: str) -> bool:
    """Whether some section of the index holds every content term of ``text``,
    each in its own spelling or another (``alternatives``): the look a
    crowded page's room makes among its candidates (``room.made``) finds
    none where none does; False for a question without content words, which
    room makes no look for either. A section holding a term in another
    spelling holds every term of that spelling, so one of them, asked with
    the term itself, is a term of each group it must hold."""
    wanted = content_terms(text)
    if not wanted:
        return False
    found = alternatives(text)
    return index.holding_all(
        [sorted({t, *(h for a in found if t in a.covers for h in a.holds)}) for t in wanted]
    )


def holds_none(index: SearchIndex, text: str) -> bool:
    """Whether ``text`` says content words and no section of the home holds any."""
    text = text[:MAX_QUERY_CHARS]
    words = content_terms(text)
    if not words:
        return False
    others = {t for alt in alternatives(text) for t in alt.holds}
    df, _total = index.frequencies(sorted({*words, *others}))
    present = holding({t for t, n in df.items() if n > 0}, text)
    return not any(t in present for t in words)


class Signals(NamedTuple):
    """What the floor knows of a question's hits."""

    judged: list[Judged]
    #: The question's names that no section of the home holds.
    unknown: list[str]
    #: Whether a name it says is in some section's heading (or title).
    named: bool
    #: The question has content words and the home holds none of them.
    absent: bool = False
    #: Its words are words of dates and small talk alone (``floor.lone_words``).
    lone: bool = False


def signals(index: SearchIndex, q: Question, hits: Sequence[Hit], gathered: Gathered) -> Signals:
    """What the floor knows of each of ``hits``."""
    text = q.text[:MAX_QUERY_CHARS]
    if len(q.text) > MAX_QUERY_CHARS:
        text = text.rsplit(None, 1)[0]  # a word cut in two is no word the home lacks
    # Words of dates and small talk alone (``in March``: ``in`` only sets the
    # date) are the words judged (``floor.passing`` decides, by
    # ``Floor.searched``, whether they are searched); else its content words.
    lone = floors.lone_words(read_query(without_dates(text)).words)
    words = [t for w in lone for t in _terms(w)] if lone else content_terms(text)
    names = {name: _terms(name) for name in floors.inner_names(text)}
    # Held in another spelling (``Wi-Fi`` as ``wifi``): as held as in its own.
    others = {t for alt in alternatives(text) for t in alt.holds}
    wanted = set(words) | {t for ts in names.values() for t in ts} | others
    df, total = index.frequencies(sorted(wanted))
    present = holding({t for t in wanted if df.get(t, 0) > 0}, text)
    weights = {t: floors.idf(df.get(t, 0), total) for t in dict.fromkeys(words)}
    unknown = [n for n, ts in names.items() if not ts or any(t not in present for t in ts)]
    # A number the home never holds is as specific as a name it never mentions.
    unknown += [t for t in weights if t.isdigit() and len(t) > 1 and t not in present]
    meaning = gathered.meaning
    unique = floors.idf(1, max(total, 1))
    asked_in = floors.tongue(text)
    latin = asked_in in ("english", "ascii")
    whole = sum(weights.values())
    judged = []
    gathered.bodies.load([*((hit.path, hit.start_line) for hit in hits), *gathered.semantic_order])
    # The semantic side's nearest passage with text (a bare heading's vector
    # is of its heading alone).
    nearest = next((k for k in gathered.semantic_order if gathered.bodies.get(k, "").strip()), None)
    across = gathered.crossing
    for hit in hits:
        key = (hit.path, hit.start_line)
        body = gathered.bodies.get(key, "")
        held = holding(gathered.bodies.terms(key, hit.title, hit.heading), text) if weights else ()
        cosine = meaning.cosines.get(gathered.digests.get(key, "")) if meaning else None
        standing = meaning.standing(cosine) if meaning and cosine is not None else None
        both = key in gathered.keyword_first and key in gathered.semantic_first
        # The weights of the question's words the hit holds, found once: the
        # rarest, their sum, and their share (``floor.word_share``, the same sum).
        holds = [w for t, w in weights.items() if t in held]
        rarest = max(holds, default=0.0) / unique
        weight = sum(holds) / unique
        share = sum(holds) / whole if whole > 0 else 0.0
        # Text of ASCII letters alone is in no other language than a question
        # in Latin letters (``floor.other_tongues``): its tongue is not read.
        foreign = not (latin and body.isascii()) and floors.other_tongues(
            asked_in, floors.tongue(body)
        )
        has_text = bool(body.strip())
        judged.append(
            Judged(
                share,
                rarest,
                weight,
                standing,
                both,
                has_text,
                foreign,
                key == nearest,
                across.score if across is not None and across.key == key else None,
                across.margin if across is not None and across.key == key else None,
                across is not None and across.key == key and across.unheld,
            )
        )
    known = [n for n in names if n not in unknown]
    absent = bool(weights) and all(t not in present for t in weights)
    return Signals(judged, unknown, bool(known and index.in_headings(known)), absent, bool(lone))


@dataclass(frozen=True)
class LeftOut:
    """The best-ranked hit the floor left out, and why."""

    path: str
    start_line: int
    end_line: int
    reason: str


class Passing(NamedTuple):
    """Those of a ranking's hits above the floor, and the first left out."""

    kept: list[Hit]
    nearest: LeftOut | None


def passing(
    index: SearchIndex, q: Question, hits: Sequence[Hit], gathered: Gathered, floor: Floor
) -> Passing:
    """Those of ``hits`` above the floor, in their order, and the first left out."""
    if not hits:
        return Passing([], None)
    found = signals(index, q, hits, gathered)
    hybrid = gathered.meaning is not None
    ok = floors.passing(
        hits,
        found.judged,
        gathered.ordinals,
        found.unknown,
        found.named,
        floor,
        hybrid=hybrid,
        absent=found.absent,
        lone=found.lone,
    )
    if found.lone and floor.searched and q.dates:
        # ``last Friday`` names a day: that day's note answers it, whether or
        # not it says "Friday".
        ok = [o or str(daily_note_date(h.path)) in q.dates for h, o in zip(hits, ok, strict=True)]
    nearest = None
    for hit, judged, passed in zip(hits, found.judged, ok, strict=True):
        if not passed:
            bar = floors.bar_of(floor, named=found.named, hybrid=hybrid)
            unknown = found.unknown if floor.names else ()
            why = floors.why_not(
                judged, unknown, absent=found.absent and floor.absent_words, bar=bar
            )
            nearest = LeftOut(hit.path, hit.start_line, hit.end_line, why)
            break
    return Passing([hit for hit, passed in zip(hits, ok, strict=True) if passed], nearest)
