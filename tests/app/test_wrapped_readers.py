"""The review board, its page and proposals read an entry a person wrapped at
the margin (a lazy continuation line, as markdown reads it) as one entry, the
way ``hearth memory`` and the sync merge do."""

from __future__ import annotations

from hearth.domain import records
from hearth.domain.entries import entry_blocks, list_entries
from hearth.ui.render import entry_changes
from tests.conftest import Workspace

ACTOR = "test"
WRAPPED = "- Bravo plays chess on\nSundays at the club\nnear the harbour\n"
BRAVO = "Bravo plays chess on Sundays at the club near the harbour"


def test_the_review_board_matches_a_wrapped_entry_whole(workspace: Workspace) -> None:
    """Review board: a proposal restating a wrapped entry is known, matched to
    the whole entry at its line; merging a fold of it leaves no wrapped line
    behind as stray text."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Alpha likes tea", ACTOR)
    text = workspace.read("MEMORY.md").replace(
        "- Alpha likes tea\n", WRAPPED + "- Alpha likes tea\n"
    )
    app.put("MEMORY.md", text.encode(), ACTOR)
    line = text.split("\n").index("- Bravo plays chess on") + 1
    weekly = f"{BRAVO} every week"
    key = app.propose("Chess", [BRAVO, weekly], ACTOR).key
    assert key is not None
    found = app.review_board().proposals[key]
    by_entry = {m.entry: m for m in found.matches}
    same = by_entry[BRAVO]
    assert same.known
    first = same.matches[0]
    assert (first.path, first.line, first.text) == ("MEMORY.md", line, BRAVO)
    app.merge_many([key], "person")
    merged = workspace.read("MEMORY.md")
    lines = merged.split("\n")
    held = {i for b in entry_blocks(lines) for i in range(b.start, b.end)}
    start = lines.index("## Entries")
    assert [x for i, x in enumerate(lines) if i > start and x.strip() and i not in held] == []
    texts = [e.text for e in list_entries(merged)]
    assert "Alpha likes tea" in texts and any(BRAVO in e for e in texts)


def test_the_review_page_sees_no_change_in_a_rewrap() -> None:
    """Review page: a re-wrapped entry is the same entry (no change listed); a
    wrapped entry replaced is listed whole as removed."""
    one_line = f"# M\n\n## Entries\n\n- {BRAVO}\n- Alpha likes tea\n"
    wrapped = f"# M\n\n## Entries\n\n{WRAPPED}- Alpha likes tea\n"
    assert entry_changes(one_line, wrapped) == ([], [])
    replaced = "# M\n\n## Entries\n\n- Bravo plays go\n- Alpha likes tea\n"
    assert entry_changes(wrapped, replaced) == (["Bravo plays go"], [BRAVO])


def test_a_proposal_a_person_wrapped_keeps_each_entry_whole() -> None:
    """Proposals: an entry a person wrapped in the proposal's file (at the
    margin or indented) is one entry of the proposal, not a cut one."""
    text = (
        "---\ntitle: Chess\n---\n\n"
        "- Bravo plays chess on\nSundays at the club\n- Alpha likes\n  green tea\n- Dan runs\n"
    )
    parsed = records.parse("proposal", text)
    assert isinstance(parsed, records.Proposal)
    assert parsed.entries == (
        "Bravo plays chess on Sundays at the club",
        "Alpha likes green tea",
        "Dan runs",
    )
