"""The entry merge against what a hostile tester did with real clones of a real
bare remote, beyond the twelve cases of tests/e2e/test_entry_cases.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FakeClock
from tests.e2e.test_entry_cases import both_ways, records, seed, untracked
from tests.e2e.test_entry_sync import Machine, make_machines


@pytest.fixture
def ab(tmp_path: Path, clock: FakeClock) -> list[Machine]:
    return make_machines(tmp_path, clock, 2)


def test_one_conflict_settled_two_ways_keeps_both_versions(ab: list[Machine]) -> None:
    """A conflict settled on both machines before they meet, differently: A keeps
    "Sam lives in Braga", B keeps "Sam lives in Lisbon". Each settle removes the
    version the other kept; merged as two removals, Sam would live nowhere and
    nothing would say so. Both versions stay, and a conflict names them again."""
    a, b = ab
    seed(a, b, "Likes walks", "Sam lives in Porto")
    b.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Braga", "agent")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    a.sync()
    b.sync()
    a.sync()
    (found,) = a.app.entry_conflicts()
    a.app.entry_settle(found.id, "file", "person")
    b.app.entry_settle(found.id, "other", "person")
    chosen = {a.entries()[-1], b.entries()[-1]}
    assert chosen == {"Sam lives in Braga", "Sam lives in Lisbon"}
    both_ways(a, b)
    for m in ab:
        held = m.entries()
        assert held[0] == "Likes walks"
        assert sorted(held[1:]) == sorted(chosen)
        assert len(records(m)) == 1
        assert untracked(m) == ""
    (again,) = b.app.entry_conflicts()
    assert {again.kept, again.other} == chosen


def test_a_change_against_a_removal_settled_two_ways_keeps_the_change(ab: list[Machine]) -> None:
    """A conflict settled on both machines before they meet, differently, when
    one side had removed the entry: B removed "Sam lives in Porto", A replaced it
    by "Sam lives in Lisbon". A settles keeping Lisbon, B settles removing it. A
    plain merge takes B's removal and nothing says two people disagreed:
    Lisbon stays, and a conflict names it again."""
    a, b = ab
    seed(a, b, "Likes walks", "Sam lives in Porto")
    b.app.entry_remove("MEMORY.md", "Sam lives in Porto", "agent")
    a.app.entry_replace("MEMORY.md", "Sam lives in Porto", "Sam lives in Lisbon", "agent")
    a.sync()
    b.sync()
    a.sync()
    (found,) = a.app.entry_conflicts()
    assert (found.kept, found.other) == ("Sam lives in Lisbon", None)
    a.app.entry_settle(found.id, "file", "person")
    b.app.entry_settle(found.id, "other", "person")
    assert (a.entries(), b.entries()) == (["Likes walks", "Sam lives in Lisbon"], ["Likes walks"])
    both_ways(a, b)
    for m in ab:
        assert m.entries() == ["Likes walks", "Sam lives in Lisbon"]
        assert len(records(m)) == 1
        assert untracked(m) == ""
    (again,) = b.app.entry_conflicts()
    assert (again.kept, again.other) == ("Sam lives in Lisbon", None)
