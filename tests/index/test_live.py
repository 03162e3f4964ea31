"""The live index: a rebuild swapped in under a search that is still reading;
the heap given back every ``SEARCHES_PER_GIVE_BACK`` searches."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tantivy

from hearth import heap
from hearth.errors import IndexUnusable
from hearth.index.search_index import SearchIndex
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


def test_a_rebuild_of_a_deleted_home_makes_nothing_again(workspace: Workspace) -> None:
    """A home removed under the server (``rm -rf``, as tests and scripts do): the
    rebuild's new index folder is not made, nor the folders above it, and the
    failure is one the reconcile worker retries (an ``OSError``), not a crash."""
    rec = workspace.app.reconciler
    rec.reconcile()
    shutil.rmtree(workspace.root)
    with pytest.raises(OSError):
        rec.index.build_aside()
    assert not workspace.root.exists()


def test_an_index_whose_folder_goes_as_it_is_made_is_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tantivy's own failure to make an index (its folder removed as it starts) is
    ``IndexUnusable``, which the reconcile worker retries, not a ``ValueError``
    that ends its thread."""
    made = tantivy.Index

    def removed_first(schema: tantivy.Schema, path: str, reuse: bool) -> tantivy.Index:
        shutil.rmtree(path)
        return made(schema, path=path, reuse=reuse)

    monkeypatch.setattr(tantivy, "Index", removed_first)
    with pytest.raises(IndexUnusable):
        SearchIndex.create(tmp_path / "new")
