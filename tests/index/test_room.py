"""A section holding every word of the question is not trimmed away by a page
full of title lines (issue 48, "crowding in the 1,000-file home": twenty
topics titled "Recipes ..." filled every place of ``recipe``'s page and the
keyword side's depth, and the daily entry saying "Ruth asked for the recipe"
was never seen)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.domain.sections import split_sections
from hearth.index import bodies, evidence, query, room
from hearth.index.analysis import term_set
from tests.conftest import FakeClock, indexed_files


def test_a_entry_holding_the_word_gets_a_place_among_many_topics_of_its_title(
    tmp_path: Path,
) -> None:
    """Case "present words 100%" (``recipe`` in the 1,000-file home)."""
    clock = FakeClock(dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC))
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    app.writes.note(
        "Cooked a lentil curry for Sam's parents, Ruth and David, who stayed the whole "
        "evening and talked about their garden, the trip to the coast and the new car. "
        "Ruth asked for the recipe.",
        "Dinner",
        "test",
    )
    for n in range(60):
        title = "Recipes" if n == 0 else f"Recipes {n + 1}"
        content = "\n\n".join(f"## {part}\n\nSoup on Sunday, bread on Monday." for part in "AB")
        app.writes.topic(title, "test", content=content)
    app.reconciler.reconcile()
    result = app.search("recipe")
    assert result.ranking == "keyword"
    paths = [h.path for h in result.hits]
    assert any(p.startswith("memory/2026-10-01") for p in paths), paths
    # The title lines still lead the page: the entry takes a place of the last.
    assert sum(p.startswith("memory/topics/recipes") for p in paths) >= len(paths) // 2


def test_the_entry_holding_the_word_as_typed_comes_before_its_plural(tmp_path: Path) -> None:
    """Case "present words 100%" (``neighbour`` in the 1,000-file home): many
    topics titled "Neighbours ..." fill the page, many daily lines say
    "the neighbours had a party", and the one MEMORY.md entry that says
    "the neighbour, Mrs. Okafor" sits last of them in a long section: the
    analyzer stems both words to one term, so only the word as typed tells
    it apart."""
    clock = FakeClock(dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC))
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    for n in range(40):
        app.writes.entry_add("MEMORY.md", f"The blue folder number {n} holds the old bills", "test")
    app.writes.entry_add(
        "MEMORY.md", "The spare house key is with the neighbour, Mrs. Okafor, at number 12", "test"
    )
    for n in range(12):
        clock.now += dt.timedelta(days=1)
        app.writes.note(f"Slept badly; the neighbours had a party until {n + 1}.", "Sleep", "test")
    for n in range(30):
        title = "Neighbours" if n == 0 else f"Neighbours {n + 1}"
        content = "\n\n".join(f"## {part}\n\nSoup on Sunday, bread on Monday." for part in "AB")
        app.writes.topic(title, "test", content=content)
    app.reconciler.reconcile()
    result = app.search("neighbour")
    assert result.ranking == "keyword"
    paths = [h.path for h in result.hits]
    assert "MEMORY.md" in paths, paths


def _recipes(tmp_path: Path, *notes: str) -> Hearth:
    """A home of 60 topics titled "Recipes ...", each two sections saying
    "recipe", and ``notes`` (today's entries), indexed."""
    clock = FakeClock(dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC))
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    for note in notes:
        app.writes.note(note, "Note", "test")
    for n in range(60):
        title = "Recipes" if n == 0 else f"Recipes {n + 1}"
        parts = ("Soup", "Bread")
        content = "\n\n".join(f"## {p}\n\nThe {p.lower()} recipe, for Sunday." for p in parts)
        app.writes.topic(title, "test", content=content)
    app.reconciler.reconcile()
    return app


def test_a_crowded_page_reads_only_the_candidates_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case "keyword search <= 2 ms p50 on the 10,000-file home" (issue 52): in
    the workload's home most pages of common words are crowded with title
    lines, and each one read all ``room.WIDER`` candidates' documents from the
    index (most of a search's time) to find the few sections it makes room
    for. They are read a chunk at a time as the room is made, and the page is
    the one reading every candidate gives."""
    app = _recipes(tmp_path)
    read: list[int] = []
    documents = query._documents

    def counted(searcher: Any, found: Any) -> Any:
        read.append(len(found))
        return documents(searcher, found)

    monkeypatch.setattr(query, "_documents", counted)
    page = [(h.path, h.start_line, h.score) for h in app.search("recipe").hits]
    # Sections holding the word in their text took the places of title lines.
    assert any(line > 1 for _p, line, _score in page), page
    assert sum(read) < room.WIDER // 2, read
    monkeypatch.setattr(room, "CHUNK", room.WIDER)  # every candidate at once
    assert [(h.path, h.start_line, h.score) for h in app.search("recipe").hits] == page


def test_a_crowded_page_passes_over_title_lines_without_reading_their_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case "keyword search <= 2 ms p50 on the 10,000-file home" (issue 52):
    a third of the candidates a crowded page looks through are title lines
    the index holds bare, and each one's file was read to find it empty."""
    clock = FakeClock(dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC))
    root = tmp_path / "home"
    wiring.initialize(root, clock)
    app = wiring.open_app(root, clock)
    app.writes.note("Ruth asked for the recipe of the lentil curry.", "Dinner", "test")
    for n in range(40):
        app.writes.topic("Recipes" if n == 0 else f"Recipes {n + 1}", "test", content="")
    app.reconciler.reconcile()
    read: list[str] = []
    texts = bodies.texts

    def counted(reader: Any, paths: Any) -> Any:
        read.extend(paths)
        return texts(reader, paths)

    monkeypatch.setattr(bodies, "texts", counted)
    page = [h.path for h in app.search("recipe").hits]
    assert any(p.startswith("memory/2026-10-01") for p in page), page
    # Only the first page's title lines are read (to judge the page): ten.
    topics = {p for p in read if p.startswith("memory/topics/")}
    assert len(topics) <= len(page), sorted(topics)


def test_a_crowded_page_reads_no_candidate_when_no_section_holds_every_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Case "keyword search <= 2 ms p50 in the workload's home" (issue 52): a
    question of two or three words no section holds together (most of the
    workload's questions of rare words) on a crowded page read all of
    ``room.WIDER`` candidates' documents and words to find none. The index
    tells at once that no section holds them all; the page is the one the
    long look gives."""
    app = _recipes(tmp_path, "The zebra at the zoo had a cold.")
    read: list[int] = []
    chunks = query._Further.chunks

    def counted(further: Any, size: int) -> Any:
        for chunk in chunks(further, size):
            read.append(len(chunk.hits))
            yield chunk

    monkeypatch.setattr(query._Further, "chunks", counted)

    def page() -> list[tuple[str, int, float]]:
        return [
            (h.path, h.start_line, h.score)
            for h in app.search("recipe zebra", everything=True).hits
        ]

    first = page()
    assert sum(p.startswith("memory/topics/") and line == 1 for p, line, _s in first) > 5, first
    assert read == []  # no candidate past the ranking's own
    monkeypatch.setattr(evidence, "held_together", lambda _index, _text: True)
    assert page() == first
    assert sum(read) > room.WIDER // 2, read  # the long look: every candidate


def test_the_index_says_a_section_holds_every_word_wherever_room_would_find_one(
    tmp_path: Path,
) -> None:
    """``evidence.held_together`` is True for every question some section
    holds every content word of, in any spelling room accepts (``Wi-Fi`` held
    as ``wifi``, ``WiFi`` as ``wi`` and ``fi``, ``wi fi`` as ``wifi``): a
    crowded page skips its look only where the look finds nothing."""
    files = {
        "memory/topics/router.md": "# Router\n\nThe WiFi password is under the router.\n",
        "memory/topics/cafe.md": "# Café\n\nThe Wi-Fi at the café is slow; the e-mail works.\n",
        "memory/2026-10-01.md": "# 2026-10-01\n\n## 09:00\n\nThe zebra at the zoo.\n",
    }
    index = indexed_files(tmp_path, files)
    sections = [s for path, text in files.items() for s in split_sections(path, text)]
    questions = [
        "wi-fi router",
        "wifi router",
        "WiFi cafe",
        "wi fi password",
        "Wi-Fi slow",
        "e-mail café",
        "email works",
        "zebra zoo",
        "routers",
    ]
    for text in questions:
        wanted = set(evidence.content_terms(text))
        # What room asks of each section: its heading's and body's terms.
        terms = (term_set(f"\n{s.heading}\n{s.body}") for s in sections)
        assert any(evidence.holds_all(t, wanted, text) for t in terms), text
        assert evidence.held_together(index, text), text
    for text in ("zebra router", "wi-fi zebra", "the", "the zebra quagga"):
        assert not evidence.held_together(index, text), text
