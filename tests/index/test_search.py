"""The Tantivy index: sections with line ranges, ranking, filters, hostile queries."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth.domain.sections import split_sections
from hearth.index import ranking
from hearth.index.question import question
from hearth.index.schema import passage
from hearth.index.search_index import SearchIndex
from tests.conftest import examples, indexed_files, keyword_search

FILES = {
    "MEMORY.md": "# Memory\n\n## Entries\n\n- Sam grows tomatoes\n- Sam's café is on Elm St\n",
    "memory/2026-11-20.md": (
        "# 2026-11-20\n\n## 09:00 UTC — Garden\n\nPlanted the gardens with Sam.\n\n"
        "## 14:30 UTC — Bees\n\nThe hives are quiet.\n"
    ),
    "memory/topics/fences.md": "# Fences\n\nThe north fence leans.\n\n```\n# not a heading\n```\n",
    "continuity/open-loops/fix-fence--00000000-0000-0000-0000-000000000000.md": (
        "---\ntitle: Fix fence\nstatus: open\ncreated: 2026-11-20T09:00:00Z\n---\n\n"
        "Buy posts for the fence.\n"
    ),
    "continuity/open-loops/archive/fix-fence--0--1.md": (
        "---\ntitle: Fix fence\nstatus: resolved\n---\n\nBuy posts for the fence.\n"
    ),
    "memory/topics/kestrel.md": "# Kestrel notes\n\nHovering bird of prey.\n",
}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    idx = indexed_files(tmp_path_factory.mktemp("idx"), FILES)
    return idx


def lines_of(path: str, start: int, end: int) -> str:
    return "\n".join(FILES[path].split("\n")[start - 1 : end])


def test_hits_point_at_the_matching_section(index: SearchIndex) -> None:
    [hit] = keyword_search(index, "hives")
    assert (hit.path, hit.heading, hit.kind, hit.date) == (
        "memory/2026-11-20.md",
        "14:30 UTC — Bees",
        "daily",
        "2026-11-20",
    )
    assert "The hives are quiet." in lines_of(hit.path, hit.start_line, hit.end_line)
    assert "Garden" not in lines_of(hit.path, hit.start_line, hit.end_line)
    assert hit.snippet == "The **hives** are quiet"


def test_stemming_and_accent_folding(index: SearchIndex) -> None:
    assert {h.path for h in keyword_search(index, "garden")} == {"memory/2026-11-20.md"}
    assert {h.path for h in keyword_search(index, "cafe")} == {"MEMORY.md"}
    assert {h.path for h in keyword_search(index, "CAFÉ")} == {"MEMORY.md"}


def test_prefix_query(index: SearchIndex) -> None:
    assert {h.path for h in keyword_search(index, "kestr*")} == {"memory/topics/kestrel.md"}
    assert {h.path for h in keyword_search(index, "tomat*")} == {"MEMORY.md"}


def test_filters_by_kind_and_path_prefix(index: SearchIndex) -> None:
    everywhere = {h.path for h in keyword_search(index, "fence")}
    assert len(everywhere) == 3
    assert {h.kind for h in keyword_search(index, "fence", kind="loop")} == {"loop"}
    assert {h.path for h in keyword_search(index, "fence", path_prefix="memory/")} == {
        "memory/topics/fences.md"
    }
    assert keyword_search(index, "fence", path_prefix="memory/topics/fences.md.*") == []


def test_archives_rank_below_active_records(index: SearchIndex) -> None:
    hits = keyword_search(index, "posts", limit=5)
    assert [h.kind for h in hits] == ["loop", "archive"]
    assert hits[0].score > hits[1].score


def test_title_boost_and_snippet_fallback(index: SearchIndex) -> None:
    hits = keyword_search(index, "kestrel")
    assert hits[0].path == "memory/topics/kestrel.md"
    # Only the title matched: the snippet falls back to the section's first words.
    assert hits[0].snippet == "Hovering bird of prey."


def test_headings_in_code_fences_do_not_split_sections(index: SearchIndex) -> None:
    [hit] = keyword_search(index, "leans")
    assert (hit.start_line, hit.end_line) == (1, 7)


@pytest.mark.parametrize(
    "query",
    [
        "it's",
        "foo AND",
        'unterminated "quote',
        "a:b",
        "title:",
        "(((",
        ")",
        "*",
        "**",
        "-",
        "NOT",
        "body:[a TO",
        "^2",
        "\\",
        "~",
        "fence~2",
        "",
        "   ",
        "x" * 5000,
        "\x00",
        "🦉 owl",
        "kind:loop",
        "path:/etc/passwd",
        ".*",
        "[a-z]+*",
    ],
)
def test_hostile_queries_never_fail(index: SearchIndex, query: str) -> None:
    hits = keyword_search(index, query)
    assert isinstance(hits, list)


@settings(max_examples=examples(300), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    query=st.text(max_size=80),
    kind=st.sampled_from([None, "daily", "x"]),
    prefix=st.text(max_size=10),
)
def test_any_query_any_filter_never_fails(
    index: SearchIndex, query: str, kind: str | None, prefix: str
) -> None:
    for hit in keyword_search(index, query, kind=kind, path_prefix=prefix or None):
        assert hit.path in FILES
        assert 1 <= hit.start_line <= hit.end_line


def test_apply_replaces_and_deletes_in_one_commit(tmp_path: Path) -> None:
    idx = SearchIndex.create(tmp_path / "live")
    idx.apply({"a.md": split_sections("a.md", "# A\n\nalpha\n")}, ())
    idx.apply({"a.md": split_sections("a.md", "# A\n\nbeta\n")}, ())
    assert keyword_search(idx, "alpha") == []
    assert [h.path for h in keyword_search(idx, "beta")] == ["a.md"]
    assert idx.documents() == 1
    idx.apply({}, ["a.md"])
    assert idx.documents() == 0


def test_long_prefixes_are_refused_or_bounded(index: SearchIndex) -> None:
    from hearth.errors import InvalidInput

    with pytest.raises(InvalidInput):
        keyword_search(index, "fence", path_prefix="é" * 600)
    assert keyword_search(index, "a" * 900 + "*") == []
    assert keyword_search(index, "fence", path_prefix="m" * 256) == []


def test_a_passage_is_its_heading_without_the_time_stamp_and_its_body() -> None:
    assert passage("09:30 UTC — Sam", "Planted seeds.\n") == "Sam: Planted seeds."
    assert passage("2026 plans", "Seeds.") == "2026 plans: Seeds."
    assert passage("Garden", "Seeds.") == "Garden: Seeds."
    assert passage("09:30 UTC — ", "Seeds.") == "Seeds."


def test_sections_are_found_by_their_passage_digests_in_the_order_asked(
    index: SearchIndex,
) -> None:
    by_digest = {d: text for d, text, _path in index.listing().missing}
    bees = next(d for d, text in by_digest.items() if text.startswith("Bees:"))
    kestrel = next(d for d, text in by_digest.items() if "Hovering" in text)
    hits = index.ranked_digests([kestrel, bees]).hits
    assert [(h.path, h.heading) for h in hits] == [
        ("memory/topics/kestrel.md", "Kestrel notes"),
        ("memory/2026-11-20.md", "14:30 UTC — Bees"),
    ]
    assert [h.path for h in index.ranked_digests([bees, kestrel]).hits] == [
        "memory/2026-11-20.md",
        "memory/topics/kestrel.md",
    ]
    # A digest sharing the indexed key (its first 60 bits) but not the rest finds nothing.
    twin = bees[:15] + ("0" if bees[15] != "0" else "1") + bees[16:]
    assert index.ranked_digests([twin]).hits == []
    assert index.ranked_digests([twin, kestrel], kind="topic").hits[0].path == (
        "memory/topics/kestrel.md"
    )


def test_a_listing_makes_only_the_passages_without_a_vector(index: SearchIndex) -> None:
    everything = index.listing()
    assert everything.live == {d for d, _, _ in everything.missing}
    assert len(everything.missing) == len(everything.live)  # one passage a digest
    stored = {d for d, text, _ in everything.missing if "Hovering" not in text}
    listed = index.listing(stored)
    assert listed.live == everything.live  # every section's digest, stored or not
    assert [text for _, text, _ in listed.missing] == [
        text for d, text, _ in everything.missing if d not in stored
    ]
    assert listed.missing and all("Hovering" in text for _, text, _ in listed.missing)


@pytest.mark.parametrize(
    "query",
    ["fence", '"north fence"', "gard*", "kestrel", "café tomatoes", "nothing", ""],
)
def test_ranking_without_snippets_then_snippets_gives_the_search(
    index: SearchIndex, query: str
) -> None:
    ranked = index.ranked(query, limit=10)
    assert all(hit.snippet == "" for hit in ranked.hits)
    assert set(index.bodies(ranked)) == {(h.path, h.start_line) for h in ranked.hits}
    # Snippets for only the first two are those the full search gives them.
    assert index.snippets(ranked.hits[:2], index.bodies(ranked), query) == keyword_search(
        index, query, limit=2
    )
    assert index.snippets(ranked.hits, index.bodies(ranked), query) == keyword_search(
        index, query, limit=10
    )


@pytest.mark.parametrize("query", ["hives garden", "planted gardens quiet hives"])
def test_snippets_of_ranked_hits_are_those_of_the_search_with_context(
    index: SearchIndex, query: str
) -> None:
    # A question in words lets a daily entry's score flow to its neighbours
    # (neighbour_bonuses.py), so the order may differ from ``ranked``; snippets do not.
    ranked = index.ranked(query, limit=10)
    made = {
        (h.path, h.start_line): h.snippet
        for h in index.snippets(ranked.hits, index.bodies(ranked), query)
    }
    searched = keyword_search(index, query, limit=10)
    assert {(h.path, h.start_line) for h in searched} >= set(made)
    assert all(
        made[h.path, h.start_line] == h.snippet for h in searched if (h.path, h.start_line) in made
    )


def test_sections_by_digest_keep_the_digests_order(index: SearchIndex) -> None:
    from hearth.index.schema import digest, passage

    sections = {
        (s.path, s.start_line): digest(passage(s.heading, s.body))
        for path, text in FILES.items()
        for s in split_sections(path, text)
    }
    wanted = [sections["memory/topics/kestrel.md", 1], sections["MEMORY.md", 3], "0" * 32]
    found = index.ranked_digests(wanted, limit=10)
    assert [(h.path, h.start_line) for h in found.hits] == [
        ("memory/topics/kestrel.md", 1),
        ("MEMORY.md", 3),
    ]
    assert index.ranked_digests(wanted, kind="daily").hits == []
    # Read a few digests at a time, in order, until enough sections pass the filters.
    day = sections["memory/2026-11-20.md", 7]
    assert [
        h.heading for h in index.ranked_digests([*wanted, day], kind="daily", limit=1).hits
    ] == ["14:30 UTC — Bees"]
    assert index.ranked_digests([*wanted, day], limit=1).hits == found.hits[:1]
    assert index.ranked_digests([day, day], limit=5).hits == index.ranked_digests([day]).hits
    assert index.ranked_digests([]).hits == []
    # Found by meaning only, no word of the query in it: the section's first words.
    [hit] = index.snippets(found.hits[:1], index.bodies(found), "raptor")
    assert hit.snippet == "Hovering bird of prey."


@pytest.mark.parametrize("query", ["0:*", "a:*", "title:*", "*", "body:* fence", "**"])
def test_a_star_that_is_not_a_prefix_never_fails(index: SearchIndex, query: str) -> None:
    assert isinstance(keyword_search(index, query), list)


#: Bodies of every kind the fast analyzer may or may not cut as the search
#: analyzer does (``analysis.is_plain``).
MIXED = {
    "memory/topics/plain.md": "# Plain\n\nThe north fence leans toward the kestrel nest.\n",
    "memory/topics/cjk.md": "# 会议\n\n明天下午三点开项目评审会议，讨论 kestrel 的预算。\n",
    "memory/topics/marks.md": (
        "# Marks\n\nCafe\u0301 au lait, the kestrel's favourite, e\u0301te\u0301.\n"
    ),
    "memory/topics/long.md": "# Long\n\n" + "k" * 70 + " kestrel " + "x" * 65 + " fence\n",
    "memory/topics/thai.md": "# ไทย\n\nเหยี่ยว kestrel บินอยู่เหนือทุ่ง fence\n",
}


@pytest.mark.parametrize("query", ["kestrel", "fence", "评审", "lait", "เหยี่ยว kestrel"])
def test_snippets_through_the_fast_analyzer_are_the_search_analyzers(
    tmp_path: Path, query: str
) -> None:
    """The fast path (plain text through the writer's analyzer) gives exactly the
    snippet the search analyzer gives; text that is not plain takes the slow one."""
    from hearth.index.snippets import run_snippets

    idx = indexed_files(tmp_path, MIXED)
    ranked = idx.ranked(query, limit=10)
    assert ranked.hits
    bodies = idx.bodies(ranked)
    fast = idx.snippets(ranked.hits, bodies, query)
    slow = run_snippets(idx._index, idx.schema, ranked.hits, bodies, query, None)
    assert [h.snippet for h in fast] == [h.snippet for h in slow]
    assert all("**" in h.snippet for h in fast if h.path != "memory/topics/long.md")


def test_a_cjk_snippet_bolds_the_characters_asked(tmp_path: Path) -> None:
    idx = indexed_files(tmp_path, MIXED)
    [hit] = keyword_search(idx, "评审", limit=1)
    assert "项目**评****审**会议" in hit.snippet


def test_snippets_highlight_what_another_process_committed(tmp_path: Path) -> None:
    """The writer's index object (snippets of plain text) may lag the reader by
    a commit of another process: its searcher is brought in step, or the search
    analyzer makes the snippet."""
    ours = indexed_files(tmp_path, {"a.md": "# A\n\nThe fence leans.\n"})
    assert "**fence**" in keyword_search(ours, "fence")[0].snippet  # the writer's index is open
    theirs = SearchIndex(tmp_path / "live")
    note = "# B\n\nThe zorblax hums all night near the barn.\n"
    (tmp_path / "home" / "b.md").write_text(note)
    theirs.apply({"b.md": split_sections("b.md", note)}, ())
    ours._index.reload()  # the reader sees the commit first (its own reload, as Tantivy's)
    [hit] = keyword_search(ours, "zorblax")
    assert "**zorblax**" in hit.snippet


JOINED = {
    "memory/topics/wifi.md": "# House\n\nThe Wi-Fi password is on the fridge.\n",
    "memory/topics/router.md": "# Router\n\nThe wifi router sits in the hall.\n",
    "memory/topics/mail.md": "# Mail\n\nSend an e-mail about node.js and the re-index.\n",
    "memory/topics/trip.md": "# Trip\n\nThe U.S. visa is done; 3.5 million, or 1,000 a day.\n",
    "memory/topics/code.md": (
        "# Code\n\nThe key open_loops and parseConfigFile, after the COVID-19 rules. "
        "Don't forget O'Brien.\n"
    ),
    "memory/topics/talk.md": "# Talk\n\nShe'll call and we'll see.\n",
}


@pytest.fixture(scope="module")
def joined_index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    return indexed_files(tmp_path_factory.mktemp("joined"), JOINED)


def _found(index: SearchIndex, text: str) -> dict[str, str]:
    """Paths and snippets of what search answers (the relevance floor on)."""
    return {h.path: h.snippet for h in ranking.search(index, question(text)).hits}


@pytest.mark.parametrize(
    ("query", "holders"),
    [
        ("wifi", {"memory/topics/wifi.md", "memory/topics/router.md"}),
        ("WiFi", {"memory/topics/wifi.md", "memory/topics/router.md"}),
        ("wi fi", {"memory/topics/wifi.md", "memory/topics/router.md"}),
        ("Wi-Fi", {"memory/topics/wifi.md", "memory/topics/router.md"}),
        ("what is the WiFi password?", {"memory/topics/wifi.md"}),
        ("email", {"memory/topics/mail.md"}),
        ("nodejs", {"memory/topics/mail.md"}),
        ("node js", {"memory/topics/mail.md"}),
        ("reindex", {"memory/topics/mail.md"}),
        ("US", {"memory/topics/trip.md"}),
        ("1000", {"memory/topics/trip.md"}),
        ("3,5", {"memory/topics/trip.md"}),
        ("openloops", {"memory/topics/code.md"}),
        ("open loops", {"memory/topics/code.md"}),
        ("openLoops", {"memory/topics/code.md"}),
        ("parse config file", {"memory/topics/code.md"}),
        ("covid19", {"memory/topics/code.md"}),
        ("dont", {"memory/topics/code.md"}),
        ("obrien", {"memory/topics/code.md"}),
    ],
)
def test_words_written_joined_are_found_typed_either_way(
    joined_index: SearchIndex, query: str, holders: set[str]
) -> None:
    """A note says ``Wi-Fi``, ``e-mail``, ``node.js``, ``U.S.``, ``open_loops``,
    ``COVID-19``, ``Don't``; a person types ``wifi``, ``email``, ``nodejs``,
    ``US``, ``open loops``, ``covid19``, ``dont`` (and the other way round:
    ``Wi-Fi`` finds ``wifi``). Each said "no matches" (or left the note below
    the relevance floor) though the home holds the word."""
    assert set(_found(joined_index, query)) >= holders


@pytest.mark.parametrize(
    ("query", "path", "bold"),
    [
        ("wifi", "memory/topics/wifi.md", "**Wi-Fi**"),
        ("Wi-Fi", "memory/topics/router.md", "**wifi**"),
        ("wi fi", "memory/topics/router.md", "**wifi**"),
        ("email", "memory/topics/mail.md", "**e-mail**"),
        ("nodejs", "memory/topics/mail.md", "**node.js**"),
        ("1000", "memory/topics/trip.md", "**1,000**"),
        ("openloops", "memory/topics/code.md", "**open_loops**"),
        ("dont", "memory/topics/code.md", "**Don't**"),
    ],
)
def test_a_word_found_written_joined_is_bold_in_its_snippet(
    joined_index: SearchIndex, query: str, path: str, bold: str
) -> None:
    assert bold in _found(joined_index, query)[path]


@pytest.mark.parametrize(
    ("query", "not_found"),
    [
        ("35", "memory/topics/trip.md"),  # 3.5 is not 35
        ("shell", "memory/topics/talk.md"),  # she'll is no shell
        ("well", "memory/topics/talk.md"),
    ],
)
def test_numbers_and_contractions_are_not_joined(
    joined_index: SearchIndex, query: str, not_found: str
) -> None:
    assert not_found not in _found(joined_index, query)


def test_equal_scores_come_in_the_order_of_path_and_line(tmp_path: Path) -> None:
    """Sections of equal score (the same text in thirty files) came in the
    order the index holds them, which a build's indexing threads decide: the
    same home built twice answered another page. Both orders of building
    now give the same page, in the order of the files' paths."""
    files = {f"memory/topics/shed-{n:02d}.md": "# Shed\n\nThe lantern hangs.\n" for n in range(30)}
    forward = indexed_files(tmp_path / "a", files)
    backward = indexed_files(tmp_path / "b", dict(reversed(files.items())))
    for text in ("lantern", '"the lantern"'):
        pages = [[h.path for h in keyword_search(i, text)] for i in (forward, backward)]
        assert pages[0] == pages[1] == sorted(files)[:10], text
