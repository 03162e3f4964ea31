"""The live index: a rebuild swapped in under a search that is still reading."""

from __future__ import annotations

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
