"""The live index: a rebuild swapped in under a search that is still reading;
the heap given back every ``SEARCHES_PER_GIVE_BACK`` searches."""

from __future__ import annotations

import pytest

from hearth import heap
from tests.conftest import Workspace, keyword_search


def test_a_search_holding_the_old_index_still_answers_after_a_rebuild(
    workspace: Workspace,
) -> None:
    workspace.write("memory/topics/wrens.md", "# Wrens\n\nA wren sang by the shed.\n")
    rec = workspace.app.reconciler
    rec.reconcile()
    live = rec.index
    reading = live.current  # what a search on another thread has in hand
    assert reading is not None
    rec.rebuild()
    assert live.current is not None and live.current is not reading
    # The replaced index is left to whoever still reads it, not closed under them.
    assert [h.path for h in keyword_search(reading, "wren")] == ["memory/topics/wrens.md"]
    assert [h.path for h in live.search("wren").hits] == ["memory/topics/wrens.md"]


def test_every_nth_search_gives_the_heap_back(
    workspace: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace.write("memory/topics/wrens.md", "# Wrens\n\nA wren sang by the shed.\n")
    rec = workspace.app.reconciler
    rec.reconcile()
    given: list[int] = []
    monkeypatch.setattr(heap, "give_back", lambda: given.append(1))
    for _ in range(heap.SEARCHES_PER_GIVE_BACK - 1):
        rec.index.search("wren")
    assert given == []
    rec.index.search("wren")
    assert given == [1]
