"""The small lived-in home of ``test_small_home.py`` with semantic ranking off
(``[search] semantic = false``, keyword ranking alone; hostile pass): a word
the home holds is found however the question wraps it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearth import wiring
from hearth.app.usecases import Hearth
from tests.conftest import FakeClock
from tests.index.test_small_home import HOME, _apply, _at


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hearth]:
    steps = sorted((json.loads(line) for line in HOME.read_text().splitlines()), key=_at)
    clock = FakeClock(_at(steps[0]))
    root: Path = tmp_path_factory.mktemp("keyword") / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    keys: dict[str, str | None] = {}
    for op in steps:
        clock.now = _at(op)
        _apply(app, op, keys)
    app.reconciler.index.semantic = None
    app.reconciler.reconcile()
    yield app
    app.reconciler.close()


def _paths(app: Hearth, text: str) -> list[str]:
    result = app.search(text)
    assert result.ranking == "keyword"
    return [h.path for h in result.hits]


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("Okafor's", "MEMORY.md"),
        ("Priya's", "memory/2026-10-09.md"),
        ("hospital's", "users/sam.md"),
        ("Okafor’s", "MEMORY.md"),
    ],
)
def test_a_word_the_home_holds_is_found_with_an_apostrophe_s_by_keywords(
    home: Hearth, query: str, where: str
) -> None:
    """Reproduction: `semantic = false` in hearth.toml, then `hearth search
    "Okafor's"` in a home whose MEMORY.md names Dr. Okafor: "no matches", even
    with --all. Tantivy's parser reads `okafor's` as the phrase "okafor s",
    which the section does not hold; with semantic ranking on, the vectors
    found it, so only keyword ranking lost it."""
    assert any(p.startswith(where) for p in _paths(home, query))


@pytest.mark.parametrize(
    ("query", "where"),
    [("tomatoes", "memory/topics/garden-plan.md"), ("Porto", "MEMORY.md")],
)
def test_a_word_the_home_holds_is_found_by_keywords(home: Hearth, query: str, where: str) -> None:
    """The same home's plain words, the control for the case above."""
    assert any(p.startswith(where) for p in _paths(home, query))


@pytest.mark.parametrize(
    "query", ["d'association", "d’association", "l’association", "qu'association"]
)
def test_a_french_word_after_an_elided_article_is_found_by_keywords(
    home: Hearth, query: str
) -> None:
    """Reproduction: `hearth search "d'association"` in a home whose daily note
    says "Réunion de l'association des locataires": "no matches" (keyword
    ranking alone, and hybrid too: see test_small_home.py). The parser made
    ``d'association`` the phrase "d association"; the elided article (l', d',
    qu'...) is no word of its own, as a possessive's s is none."""
    assert "memory/2026-10-06.md" in _paths(home, query)
