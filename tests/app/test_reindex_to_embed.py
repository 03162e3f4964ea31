"""Issue 52: beside a server, ``hearth reindex`` answered ``"embedded": 0``
because the server embeds in the background; the answer now says what is true:
``to_embed``, the sections still without a vector when it answered (null with
semantic ranking off)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hearth.api import routes
from hearth.index.semantic import SemanticRanking
from tests.conftest import Workspace
from tests.index.test_vectors_follow_files import CountingEmbedder


def _semantic(ws: Workspace) -> CountingEmbedder:
    embedder = CountingEmbedder()
    index = ws.app.reconciler.index
    index.semantic = SemanticRanking(ws.home.store.state_dir / "vectors", embedder)
    return embedder


def test_a_pass_says_how_many_sections_wait_for_a_vector(workspace: Workspace) -> None:
    """Case: what waits is counted (every section of a home not embedded yet),
    and a reindex that embedded them all says none waits."""
    _semantic(workspace)
    workspace.app.reconcile()
    sections = workspace.app.reconciler.index.documents()
    assert sections > 0
    assert workspace.app.vectors_to_embed() == sections
    done = workspace.app.reindex()
    assert (done.embedded, done.to_embed) == (sections, 0)
    assert done.as_dict()["to_embed"] == 0


def test_with_semantic_ranking_off_nothing_is_to_embed(workspace: Workspace) -> None:
    """Case: keyword ranking only: ``to_embed`` is null, as ``vectors`` is in status."""
    done = workspace.app.reindex()
    assert done.as_dict()["to_embed"] is None and done.embedded == 0


def test_the_served_pass_answers_what_its_filler_still_embeds(workspace: Workspace) -> None:
    """Case: the server's ``POST /v1/reconcile`` (what ``hearth reindex`` asks
    beside a server) embeds nothing itself and says how many sections its
    filler has still to embed, where it said ``"embedded": 0`` alone."""
    report = workspace.app.reconcile()
    service: Any = SimpleNamespace(reconcile=lambda full: report, vectors_to_embed=lambda: 37)
    answer = routes.reconcile(service, False)
    assert answer["embedded"] == 0 and answer["to_embed"] == 37
    assert {k: v for k, v in answer.items() if k not in ("embedded", "to_embed")} == (
        report.as_dict()
    )
