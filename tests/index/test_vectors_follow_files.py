"""Vectors follow the files (issue 50, case 2): a removed section is never
embedded after its removal, coverage counts live sections only, and the
store's dead rows are reclaimed once they pass half of it.

A real reconciler and a real vector store; the model is a stand-in that makes
vectors from a hash of the text (what a vector means is not what is tested),
and counts what it embeds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np

from hearth.index.schema import file_digests
from hearth.index.semantic import BATCH, COMPACT_BELOW, SemanticRanking
from hearth.reconcile.reconciler import Reconciler
from tests.conftest import Workspace

BIG = "memory/topics/big.md"
#: Sections of the note that is removed: several rounds of the filler.
BIG_SECTIONS = 6 * BATCH


class CountingEmbedder:
    """Unit vectors from a hash of each text; ``before`` runs before each call."""

    name = "test-counting-embedder"
    dims = 8

    def __init__(self) -> None:
        self.embedded: list[str] = []
        self.before: Callable[[], None] | None = None

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        if self.before is not None:
            self.before()
        self.embedded.extend(texts)
        return np.stack([self._vector(t) for t in texts])

    def query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def _vector(self, text: str) -> np.ndarray:
        raw = np.frombuffer(hashlib.sha256(text.encode()).digest(), dtype=np.uint8)[: self.dims]
        row = raw.astype(np.float32) - 127.5
        return (row / np.linalg.norm(row)).astype(np.float32)


def _big_note() -> str:
    parts = ["# Big\n"]
    parts += [
        f"## Part {i}\n\nThe kestrel number {i} hovers over field {i}.\n"
        for i in range(BIG_SECTIONS)
    ]
    return "\n".join(parts)


def _semantic(ws: Workspace) -> tuple[Reconciler, CountingEmbedder]:
    embedder = CountingEmbedder()
    reconciler = ws.app.reconciler
    reconciler.index.semantic = SemanticRanking(ws.home.store.state_dir / "vectors", embedder)
    reconciler.reconcile()
    return reconciler, embedder


def _semantic_store(reconciler: Reconciler) -> SemanticRanking:
    semantic = reconciler.index.semantic
    assert semantic is not None
    return semantic


def test_a_removed_section_is_never_embedded_after_its_removal(workspace: Workspace) -> None:
    """Case 2: the file is removed while the filler embeds it: the rounds still
    to come leave its sections out (on 2d32b4d every one of them was embedded)."""
    reconciler, embedder = _semantic(workspace)
    reconciler.index.fill_vectors()
    workspace.write(BIG, _big_note())
    reconciler.reconcile([BIG])

    def remove_once() -> None:
        embedder.before = None
        (workspace.root / BIG).unlink()
        reconciler.reconcile([BIG])

    embedder.embedded.clear()
    embedder.before = remove_once
    reconciler.index.fill_vectors()
    kestrels = [t for t in embedder.embedded if "kestrel" in t]
    # The first round was asked for before the removal; nothing after it.
    assert 0 < len(kestrels) <= BATCH, len(kestrels)
    coverage = reconciler.index.vector_coverage()
    assert coverage is not None and coverage.complete, coverage


def test_coverage_counts_live_sections_only(workspace: Workspace) -> None:
    """Case 2: every live section has its vector, a note is indexed then removed
    before the filler got to it: status says complete (on 2d32b4d: embedded 0)."""
    reconciler, _embedder = _semantic(workspace)
    reconciler.index.fill_vectors()
    workspace.write(BIG, _big_note())
    reconciler.reconcile([BIG])
    waiting = reconciler.index.vector_coverage()
    assert waiting is not None and not waiting.complete
    (workspace.root / BIG).unlink()
    reconciler.reconcile([BIG])
    coverage = reconciler.index.vector_coverage()
    assert coverage is not None
    assert coverage.sections == reconciler.index.documents()
    assert coverage.embedded == coverage.sections and coverage.complete, coverage


def test_dead_rows_past_half_the_store_are_reclaimed(workspace: Workspace) -> None:
    """Case 2: once more than ``1 - COMPACT_BELOW`` of the store's rows are of
    text no file holds, the next fill rewrites the store with the live rows only
    (on 2d32b4d only a new process's first fill did)."""
    reconciler, _embedder = _semantic(workspace)
    workspace.write(BIG, _big_note())
    reconciler.reconcile([BIG])
    reconciler.index.fill_vectors()
    store = _semantic_store(reconciler).store
    assert len(store) >= BIG_SECTIONS
    (workspace.root / BIG).unlink()
    reconciler.reconcile([BIG])
    live = reconciler.index.documents()
    assert len(store) * COMPACT_BELOW > live  # past the share: reclaimed
    reconciler.index.fill_vectors()
    store = _semantic_store(reconciler).store
    store.refresh()
    assert len(store) <= live, (len(store), live)
    assert not set(store.digests()) & file_digests(BIG, _big_note().encode())
