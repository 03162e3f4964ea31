"""Every ranking weight on one fixture: each lifts the section it is for, and
set to nothing (a lift to 0, a factor to 1) it no longer does.

The weights are declared once (``index/weights.py``) and passed to the
pipeline's stages (``index/ranking.py``), so a case changes one weight and
runs the same pipeline on the same index.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from hearth.domain.sections import split_sections
from hearth.index import fusion, ranking
from hearth.index.dates import named_dates
from hearth.index.hits import Hit
from hearth.index.question import question
from hearth.index.schema import digest, passage
from hearth.index.search_index import SearchIndex
from hearth.index.weights import WEIGHTS, Weights
from tests.conftest import FakeClock, Workspace, indexed_files

TEMPLATE_PATH = "USER.md"
FILES = {
    "memory/topics/birds.md": (
        "# Birds\n\n## Kestrel\n\nHovers over the meadow.\n\n"
        "## Sparrows\n\nA kestrel, a kestrel and another kestrel chased the sparrows.\n"
    ),
    "memory/topics/heron.md": "# Heron\n\n## Monday\n\nStood in the pond all day long.\n",
    "memory/topics/pond.md": "# Pond\n\n## Visitors\n\nA heron, a heron at the pond.\n",
    "memory/topics/farm.md": (
        "# Farm\n\n## East\n\nThe red barn stands by the road.\n\n"
        "## West\n\nA red gate, then the barn.\n"
    ),
    "memory/topics/meeting.md": (
        "# 会议\n\n## 周一\n\n明天下午开项目评审会议。\n\n"
        "## 周二\n\n项目很好。目评。评审很多。项目和评审。\n"
    ),
    "memory/2023-05-03.md": (
        "# 2023-05-03\n\n## 09:30 UTC — Sam\n\nDinner with Maria at the harbour.\n"
    ),
    "memory/topics/dinners.md": (
        "# Dinners\n\n## Harbour\n\nDinner with Maria, dinner with Maria again, "
        "and dinner at the harbour.\n"
    ),
    "continuity/open-loops/fix-gutter--00000000-0000-0000-0000-000000000000.md": (
        "---\ntitle: Fix gutter\nstatus: open\ncreated: 2026-11-20T09:00:00Z\n---\n\n"
        "Clean the gutter.\n"
    ),
    "continuity/open-loops/archive/fix-gutter--0--1.md": (
        "---\ntitle: Fix gutter\nstatus: resolved\n---\n\n"
        "Clean the gutter, the gutter, the whole gutter.\n"
    ),
    TEMPLATE_PATH: (
        "# User\n\n## Work\n\n(work, projects, people and places that come up often: "
        "a project review, a project review, a project)\n"
    ),
    "memory/topics/review.md": "# Notes\n\n## Thursday\n\nThe project review meeting moved.\n",
    "memory/2023-06-01.md": (
        "# 2023-06-01\n\n## 10:00 UTC — Jon\n\nWhat genre is your screenplay?\n\n"
        "## 10:01 UTC — Ann\n\nIt's a mix of drama and romance!\n\n"
        "## 10:02 UTC — Jon\n\nNice.\n"
    ),
    "memory/topics/films.md": (
        "# Films\n\n## List\n\nA screenplay in the drawer, and a romance novel I never "
        "finished reading on the long train ride home last winter, with the crossword, "
        "two apples, a thermos of tea and the newspaper from the station kiosk.\n"
    ),
    "memory/2023-07-01.md": (
        "# 2023-07-01\n\n## 09:00 UTC — Caroline\n\nI made a clay bowl.\n\n"
        "## 09:05 UTC — Melanie\n\nCaroline and I made a clay pot, a clay vase and a clay cup.\n"
    ),
}

#: (weight, its value when it does nothing, query, the section it lifts, a rival):
#: sections as (file name, heading).
CASES = [
    ("heading", 0.0, "kestrel", ("birds.md", "Kestrel"), ("birds.md", "Sparrows")),
    ("title", 0.0, "heron", ("heron.md", "Monday"), ("pond.md", "Visitors")),
    ("pair", 0.0, "red barn", ("farm.md", "East"), ("farm.md", "West")),
    ("run", 0.0, "项目评审", ("meeting.md", "周一"), ("meeting.md", "周二")),
    (
        "day",
        0.0,
        "dinner with Maria on May 3, 2023",
        ("2023-05-03.md", "09:30 UTC — Sam"),
        ("dinners.md", "Harbour"),
    ),
    ("archive", 1.0, "gutter", ("fix-gutter--00000000", ""), ("fix-gutter--0--1.md", "")),
    ("template", 1.0, "project review", ("review.md", "Thursday"), ("USER.md", "Work")),
    (
        "after",
        0.0,
        "What genre is the screenplay?",
        ("2023-06-01.md", "10:01 UTC — Ann"),
        ("films.md", "List"),
    ),
    (
        "before",
        0.0,
        "drama and romance",
        ("2023-06-01.md", "10:00 UTC — Jon"),
        ("films.md", "List"),
    ),
    (
        "name",
        0.0,
        "What did Caroline make with clay?",
        ("2023-07-01.md", "09:00 UTC — Caroline"),
        ("2023-07-01.md", "09:05 UTC — Melanie"),
    ),
]

Section = tuple[str, str]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SearchIndex:
    idx = indexed_files(tmp_path_factory.mktemp("bonuses"), FILES)
    template = split_sections(TEMPLATE_PATH, FILES[TEMPLATE_PATH])
    idx.template = frozenset(digest(passage(s.heading, s.body)) for s in template)
    return idx


def _section(hit: Hit) -> Section:
    return (hit.path.rsplit("/", 1)[-1], hit.heading)


def _rank(hits: list[Hit], wanted: Section) -> int:
    """``wanted``'s place in ``hits`` (a file-name prefix names a record's file)."""
    for n, hit in enumerate(hits):
        name, heading = _section(hit)
        if name.startswith(wanted[0]) and heading == wanted[1]:
            return n
    return len(hits)


def _keyword(index: SearchIndex, text: str, weights: Weights, today: str = "") -> list[Hit]:
    day = dt.date.fromisoformat(today) if today else None
    return ranking.keyword_search(index, question(text, limit=10, today=day), weights)


@pytest.mark.parametrize(
    ("name", "off", "text", "lifted", "rival"), CASES, ids=[c[0] for c in CASES]
)
def test_each_weight_lifts_its_section_and_without_it_does_not(
    index: SearchIndex, name: str, off: float, text: str, lifted: Section, rival: Section
) -> None:
    on = _keyword(index, text, WEIGHTS)
    assert getattr(WEIGHTS, name) != off
    assert _rank(on, lifted) < _rank(on, rival), [_section(h) for h in on]
    without = _keyword(index, text, dataclasses.replace(WEIGHTS, **{name: off}))
    assert _rank(without, rival) < _rank(without, lifted), [_section(h) for h in without]


def test_every_weight_has_a_case() -> None:
    # Shown by the tests below: the pairs' cut-off, and fusion's weights.
    apart = {
        "pair_common",
        "pair_cheap",
        "pair_everywhere",
        "rrf_k",
        "keyword_side",
        "semantic_side",
        "day_share",
    }
    covered = {case[0] for case in CASES} | apart
    assert covered == {f.name for f in dataclasses.fields(Weights)}


def _fused(keyword: list[Hit], semantic: list[Hit], **changed: float) -> list[Section]:
    weights = dataclasses.replace(WEIGHTS, **changed)
    dates = ["2023-05-03"]
    return [_section(h) for h in fusion.fuse(keyword, semantic, 10, dates, (), weights)]


def test_a_pair_of_common_words_loses_its_bonus_only_in_a_large_home(index: SearchIndex) -> None:
    """A pair counts unless both words are in more than ``pair_common`` of the
    sections and in more than ``pair_cheap`` of them: here "red" and "barn" are
    each in a tenth of the sections or less, and in two."""
    east, west = ("farm.md", "East"), ("farm.md", "West")
    small_home = dataclasses.replace(WEIGHTS, pair_common=0.0)  # 2 sections are not many
    kept = _keyword(index, "red barn", small_home)
    assert _rank(kept, east) < _rank(kept, west)
    common = dataclasses.replace(WEIGHTS, pair_common=0.0, pair_cheap=1)
    dropped = _keyword(index, "red barn", common)
    assert _rank(dropped, west) < _rank(dropped, east)


def test_a_pair_with_a_word_found_everywhere_loses_its_bonus_only_in_a_large_home(
    index: SearchIndex,
) -> None:
    """A pair counts unless one of its words is in more than ``pair_everywhere``
    of the sections and in more than ``pair_cheap`` of them (the other word may
    be rare): here neither is in more than a tenth, so a share of 0 stands for
    a word like "the" in a large home."""
    east, west = ("farm.md", "East"), ("farm.md", "West")
    assert _rank(_keyword(index, "red barn", WEIGHTS), east) < _rank(
        _keyword(index, "red barn", WEIGHTS), west
    )
    small_home = dataclasses.replace(WEIGHTS, pair_everywhere=0.0)  # 2 sections are not many
    kept = _keyword(index, "red barn", small_home)
    assert _rank(kept, east) < _rank(kept, west)
    everywhere = dataclasses.replace(WEIGHTS, pair_everywhere=0.0, pair_cheap=1)
    dropped = _keyword(index, "red barn", everywhere)
    assert _rank(dropped, west) < _rank(dropped, east)


def test_the_fusion_weights_on_the_same_fixture(index: SearchIndex) -> None:
    hits = {
        _section(h): h for h in index.ranked("kestrel").hits + index.ranked("dinner Maria").hits
    }
    kestrel, sparrows = hits["birds.md", "Kestrel"], hits["birds.md", "Sparrows"]
    # The keyword side's weight: the keyword side's first stays first against
    # the semantic side's first; without it, the semantic side alone decides.
    assert _fused([kestrel, sparrows], [sparrows, kestrel])[0] == _section(kestrel)
    assert _fused([kestrel, sparrows], [sparrows, kestrel], keyword_side=0)[0] == _section(sparrows)
    # The semantic side's: a section both sides found beats one only the keyword side ranked first.
    assert _fused([kestrel, sparrows], [sparrows])[0] == _section(sparrows)
    assert _fused([kestrel, sparrows], [sparrows], semantic_side=0)[0] == _section(kestrel)
    # The named day's share in fused space.
    sam, harbour = hits["2023-05-03.md", "09:30 UTC — Sam"], hits["dinners.md", "Harbour"]
    assert _fused([harbour, sam], [sam, harbour])[0] == _section(sam)
    assert _fused([harbour, sam], [sam, harbour], day_share=0)[0] == _section(harbour)
    # The rank constant: a section scores side / (rrf_k + rank) on each side.
    [only] = fusion.fuse([kestrel], [], 10, (), (), dataclasses.replace(WEIGHTS, rrf_k=9))
    assert only.score == pytest.approx(WEIGHTS.keyword_side / 10, abs=1e-6)


def test_a_relative_date_lifts_the_day_it_means(index: SearchIndex) -> None:
    """``yesterday`` is the day before the clock's today (the pipeline's question)."""
    day_note = ("2023-05-03.md", "09:30 UTC — Sam")
    rival = ("dinners.md", "Harbour")
    asked = _keyword(index, "dinner with Maria yesterday", WEIGHTS, today="2023-05-04")
    assert _rank(asked, day_note) < _rank(asked, rival)
    later = _keyword(index, "dinner with Maria yesterday", WEIGHTS, today="2023-06-04")
    assert _rank(later, rival) < _rank(later, day_note)
    week = _keyword(index, "dinner with Maria last week", WEIGHTS, today="2023-05-09")
    assert _rank(week, day_note) < _rank(week, rival)


def test_relative_dates_are_read_against_today() -> None:
    today = dt.date(2026, 11, 25)  # a Wednesday
    assert named_dates("what did we say yesterday?") == []  # no today: absolute only
    assert named_dates("today and yesterday", today) == ["2026-11-25", "2026-11-24"]
    assert named_dates("the day before yesterday", today) == ["2026-11-23"]
    assert named_dates("3 days ago, or three days ago", today) == ["2026-11-22", "2026-11-22"]
    assert named_dates("last Monday", today) == ["2026-11-23"]
    assert named_dates("last wednesday", today) == ["2026-11-18"]
    assert named_dates("this week", today) == ["2026-11-25", "2026-11-24", "2026-11-23"]
    assert named_dates("last week", today) == [f"2026-11-{d}" for d in range(24, 17, -1)]
    assert named_dates("this month, last month", today) == ["2026-11", "2026-10"]
    assert named_dates("On May 3, 2023 and yesterday", today) == ["2023-05-03", "2026-11-24"]
    assert named_dates("2026-01-02 was last month", dt.date(2026, 1, 10)) == [
        "2026-01-02",
        "2025-12",
    ]


def test_the_home_reads_yesterday_by_its_clock(workspace: Workspace, clock: FakeClock) -> None:
    """The clock the home is opened with is the one its searches read ``yesterday`` by."""
    workspace.write(
        "memory/2026-11-21.md", "# 2026-11-21\n\n## 10:00 UTC — Sam\n\nPlanted garlic.\n"
    )
    workspace.write(
        "memory/topics/garlic.md", "# Garlic\n\n## Notes\n\nGarlic, garlic and more garlic bulbs.\n"
    )
    reconciler = workspace.app.reconciler
    reconciler.reconcile()
    # The fixture's clock says 2026-11-22: yesterday is the 21st.
    hits = reconciler.catch_up().search("what did we do with the garlic yesterday?").hits
    assert hits[0].path == "memory/2026-11-21.md"
    clock.now += dt.timedelta(days=3)
    hits = reconciler.catch_up().search("what did we do with the garlic yesterday?").hits
    assert hits[0].path == "memory/topics/garlic.md"
