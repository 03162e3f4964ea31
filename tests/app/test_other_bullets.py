"""`*` and `+` bullets are entries as `-` bullets are (markdown reads them
alike, and a person's editor may write them), through the use cases on a real
home with real git: `hearth memory` lists, replaces and removes them, a
proposal's merge skips what they already say and replaces the fact they hold,
the review page's likeness sees them, consolidation moves them, and hearth
writes into such a file with the file's own marker. No word is lost.

Keyword-only (``HEARTH_SEMANTIC=off``, tests/conftest.py): words are enough."""

from __future__ import annotations

from hearth.domain import consolidation, entries
from tests.conftest import Workspace

ACTOR = "test"
NOTE = "users/ana.md"
STARRED = "# Ana\n\n* Ana likes jazz\n* Location: Braga\n+ Ana is a nurse\n"


def test_memory_list_replace_remove_see_star_and_plus_bullets(workspace: Workspace) -> None:
    """Case (1), memory list/replace/remove: a note written with `*` and `+`
    bullets lists three entries; a replace keeps the entry's marker, an add
    takes the file's, a remove takes the right line."""
    app = workspace.app
    app.put(NOTE, STARRED.encode(), ACTOR)
    assert [e.text for e in app.entry_list(NOTE)] == [
        "Ana likes jazz",
        "Location: Braga",
        "Ana is a nurse",
    ]
    app.entry_replace(NOTE, "Ana is a nurse", "Ana is a head nurse", ACTOR)
    app.entry_add(NOTE, "Ana has a dog", ACTOR)
    app.entry_remove(NOTE, "#1", ACTOR)
    assert workspace.read(NOTE) == (
        "# Ana\n\n* Location: Braga\n+ Ana is a head nurse\n+ Ana has a dog\n"
    )


def test_a_merge_into_a_starred_file_skips_replaces_and_keeps_the_style(
    workspace: Workspace,
) -> None:
    """Case (1), merges and supersession: a proposal to a `*` note restating a
    `*` entry is skipped, a new value of its labelled field replaces it in
    place (its old version kept under continuity/superseded/), a new entry is
    written with `* `."""
    app = workspace.app
    app.put(NOTE, STARRED.replace("+ ", "* ").encode(), ACTOR)
    key = app.propose(
        "Ana", ["Ana likes jazz", "Location: Porto", "Ana runs marathons"], ACTOR, target=NOTE
    ).key
    assert key is not None
    app.merge(key, ACTOR)
    assert workspace.read(NOTE) == (
        "# Ana\n\n* Ana likes jazz\n* Location: Porto\n* Ana is a nurse\n* Ana runs marathons\n"
    )
    [record] = (workspace.root / "continuity" / "superseded").iterdir()
    assert "- Entry: Location: Braga\n" in record.read_text()


def test_the_review_page_knows_what_a_plus_bullet_says(workspace: Workspace) -> None:
    """Case (1), likeness: an entry a `+` bullet already holds is matched as
    known on the review board, as a `-` bullet's would be."""
    app = workspace.app
    app.put(NOTE, STARRED.encode(), ACTOR)
    key = app.propose("Ana", ["Ana is a nurse"], ACTOR, target=NOTE).key
    assert key is not None
    found = app.review_board().proposals[key]
    [entry] = found.matches
    assert [(m.path, m.line, m.exact) for m in entry.matches] == [(NOTE, 5, True)]
    assert found.default_action == "reject"


def test_consolidation_moves_star_bullets_and_keeps_every_word(workspace: Workspace) -> None:
    """Case (1), consolidation: entries written as `*` bullets are movable, and
    a move leaves the pointer with the file's marker, every word kept."""
    painting = [f"* Ana painted a {thing} with oils" for thing in ("lake", "barn", "storm")]
    text = "# Ana\n\n" + "\n".join([*painting, "* Ana likes jazz"]) + "\n"
    assert consolidation.movable(text) == [p[2:] for p in painting] + ["Ana likes jazz"]
    moved = consolidation.Consolidation(
        consolidation.MOVE,
        NOTE,
        tuple(p[2:] for p in painting),
        "Painting: see memory/topics/painting.md",
        "memory/topics/painting.md",
        "painting",
    )
    source, note = consolidation.apply(moved, text, None)
    assert source == "# Ana\n\n* Painting: see memory/topics/painting.md\n* Ana likes jazz\n"
    assert note is not None
    assert [e.text for e in entries.list_entries(note)] == [p[2:] for p in painting]


def test_the_review_pages_entry_changes_see_star_and_plus_bullets() -> None:
    """Case (1), what the review page lists as added and removed entries of a
    diff: `*` and `+` bullets are entries there too (a rule `* * *` is not)."""
    from hearth.ui.render import entry_changes

    before = "# Ana\n\n* Ana likes jazz\n+ Location: Braga\n\n* * *\n"
    after = "# Ana\n\n* Ana likes jazz\n+ Location: Porto\n* Ana has a dog\n"
    assert entry_changes(before, after) == (
        ["Location: Porto", "Ana has a dog"],
        ["Location: Braga"],
    )
