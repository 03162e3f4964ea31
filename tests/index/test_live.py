"""The live index: a rebuild swapped in under a search that is still reading;
the heap given back every ``SEARCHES_PER_GIVE_BACK`` searches, and the
index's mapped pages let go of every ``SEARCHES_PER_LET_GO``."""

from __future__ import annotations

from pathlib import Path

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


def index_resident_kb(folder: Path) -> int:
    """Resident KB of this process's mappings of files under ``folder``."""
    prefix, kb, inside = str(folder.resolve()) + "/", 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split(None, 1)[0]
        if not head.endswith(":"):
            parts = line.split(None, 5)
            inside = len(parts) > 5 and parts[5].startswith(prefix)
        elif inside and head == "Rss:":
            kb += int(line.split()[1])
    return kb


@pytest.mark.skipif(heap._libc_function("madvise") is None, reason="Linux only")
def test_every_nth_search_lets_go_of_the_index_pages_it_mapped(workspace: Workspace) -> None:
    for n in range(40):
        workspace.write(f"memory/topics/wren-{n}.md", f"# Wren {n}\n\nA wren sang by shed {n}.\n")
    rec = workspace.app.reconciler
    rec.reconcile()
    live = rec.index
    for _ in range(heap.SEARCHES_PER_LET_GO - 1):
        assert len(live.search("wren shed").hits) == 10
    assert index_resident_kb(live.folder) > 0  # the postings and stored fields read
    found = live.search("wren shed")
    assert index_resident_kb(live.folder) == 0
    assert live.search("wren shed").as_dict() == found.as_dict()  # read again, the same
