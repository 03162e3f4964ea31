"""Entries lost (issue 53): a proposed entry the home already holds in other
words, through the use cases on a real home with the real git CLI. Review's
default folds the words it adds into the held entry (one commit, every token of
both kept) and rejects only a true restatement, naming the entry that says it;
a person's edit of the held entry since the proposal is never folded into.
"""

from __future__ import annotations

import pytest

from hearth.domain import entries
from hearth.domain.consolidation import loses_words
from hearth.errors import Conflict, EntryMissing, InvalidInput
from tests.app.test_supersede import person_commits
from tests.conftest import Workspace, git

ACTOR = "test"
NOTE = "users/caroline.md"


def held(workspace: Workspace, path: str = NOTE) -> list[str]:
    return [e.text for e in entries.list_entries(workspace.read(path))]


def commits(workspace: Workspace) -> int:
    return int(git(workspace.root, "rev-list", "--count", "HEAD").strip())


def fold_by_default(workspace: Workspace, key: str) -> dict[str, str]:
    """The board's folds of ``key``, as the review page's default merge sends them."""
    review = workspace.app.review_board().proposals[key]
    assert review.default_action == "merge"
    return {f.entry: f.into for f in review.folds}


def test_a_known_entry_that_adds_words_is_folded_into_the_held_entry(
    workspace: Workspace,
) -> None:
    """Case: an "already known" card whose entry adds words the held one lacks
    is folded into the held entry by default: one commit, every token kept, no
    second entry saying the same."""
    app = workspace.app
    app.entry_add(NOTE, "Caroline went to an LGBTQ support group", ACTOR)
    app.entry_add(NOTE, "Caroline likes hiking", ACTOR)
    entry = "Caroline went to a LGBTQ support group and felt accepted there"
    key = app.propose("Group", [entry], ACTOR, target=NOTE, agent=True).key
    assert key is not None
    review = app.review_board().proposals[key]
    [match] = review.matches
    assert match.known  # what the page called "already known" and rejected
    assert review.known == ()
    [fold] = review.folds
    assert (fold.into, fold.path, fold.line) == (held(workspace)[0], NOTE, 5)
    preview = app.merge_preview(key, review.known, {fold.entry: fold.into})
    assert f"- {fold.becomes}" in preview.after  # what the card shows is what merges
    before = commits(workspace)
    app.merge(key, ACTOR, leave_out=review.known, fold=fold_by_default(workspace, key))
    assert commits(workspace) == before + 1
    now = held(workspace)
    assert now == [fold.becomes, "Caroline likes hiking"]
    assert loses_words(now[0], ["Caroline went to an LGBTQ support group", entry]) == []
    assert "accepted there" in now[0]


def test_a_true_restatement_is_rejected_by_default_naming_the_held_entry(
    workspace: Workspace,
) -> None:
    """Case: a true restatement (every content word held, in another form) is
    rejected by default, and the reason names the held entry and its line."""
    app = workspace.app
    app.entry_add(NOTE, "Caroline is allergic to cats", ACTOR)
    key = app.propose("Cats", ["Caroline has an allergy to cats"], ACTOR, target=NOTE).key
    assert key is not None
    review = app.review_board().proposals[key]
    assert review.default_action == "reject" and review.folds == ()
    assert review.restated() == [
        f"Caroline has an allergy to cats (said by {NOTE} line 5: Caroline is allergic to cats)"
    ]


def test_a_persons_edit_of_the_held_entry_since_the_proposal_is_never_folded_into(
    workspace: Workspace,
) -> None:
    """Hostile case: the person edits the held entry after the agent proposed;
    the fold the page offers is refused with 409 and nothing changes."""
    app = workspace.app
    app.entry_add(NOTE, "Caroline paints landscapes", ACTOR)
    key = app.propose(
        "Paint", ["Caroline paints landscapes with watercolors"], ACTOR, target=NOTE, agent=True
    ).key
    assert key is not None
    text = workspace.read(NOTE).replace("paints landscapes", "paints landscapes and lakes")
    person_commits(workspace, NOTE, text, "2026-12-01T10:00:00Z")
    fold = fold_by_default(workspace, key)
    assert fold == {
        "Caroline paints landscapes with watercolors": "Caroline paints landscapes and lakes"
    }
    before = workspace.read(NOTE)
    with pytest.raises(Conflict, match="changed after this proposal"):  # HTTP 409
        app.merge(key, ACTOR, fold=fold)
    assert workspace.read(NOTE) == before


def test_a_fold_in_a_crlf_file_keeps_its_line_endings_and_sub_bullets(
    workspace: Workspace,
) -> None:
    """Hostile case: a CRLF file whose held entry has a wrapped line and a
    sub-bullet: the fold writes one line in the bullet's place, keeps the
    sub-bullet under it and every line CRLF."""
    text = (
        "# Caroline\r\n\r\n## Entries\r\n\r\n"
        "- Caroline runs every\r\n  morning in the park\r\n  - usually at 6\r\n"
        "- Caroline likes tea\r\n"
    )
    person_commits(workspace, NOTE, text, "2026-10-01T10:00:00Z")
    app = workspace.app
    key = app.propose(
        "Run", ["Caroline runs every morning in the park near the river"], ACTOR, target=NOTE
    ).key
    assert key is not None
    app.merge(key, ACTOR, fold=fold_by_default(workspace, key))
    data = (workspace.root / NOTE).read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n")
    assert (
        b"- Caroline runs every morning in the park near the river\r\n  - usually at 6\r\n"
        b"- Caroline likes tea\r\n"
    ) in data


@pytest.mark.parametrize(
    ("old", "new", "kept"),
    [
        ("Caroline wandert gern", "Caroline wandert gern und oft", "und oft"),
        ("キャロラインは猫が好き", "キャロラインは猫が好き。特に黒猫", "特に黒猫"),
        ("Кэролайн любит чай", "Кэролайн любит зелёный чай", "зелёный"),
    ],
)
def test_entries_in_other_languages_fold(
    workspace: Workspace, old: str, new: str, kept: str
) -> None:
    """Hostile case: German, Japanese (no spaces) and Russian entries fold, every token kept."""
    app = workspace.app
    app.entry_add(NOTE, old, ACTOR)
    key = app.propose("Other", [new], ACTOR, target=NOTE).key
    assert key is not None
    app.merge(key, ACTOR, fold=fold_by_default(workspace, key))
    [now] = held(workspace)
    assert kept in now and loses_words(now, [old, new]) == []


def test_a_tampered_fold_changes_nothing(workspace: Workspace) -> None:
    """Hostile case: a fold naming an entry the proposal does not hold is
    refused as bad input; one into an entry the file does not hold (edited
    away) is refused as a conflict (409); neither writes anything."""
    app = workspace.app
    app.entry_add(NOTE, "Caroline paints landscapes", ACTOR)
    key = app.propose("Paint", ["Caroline paints lakes"], ACTOR, target=NOTE).key
    assert key is not None
    before = commits(workspace), workspace.read(NOTE)
    with pytest.raises(InvalidInput, match="is not an entry of the proposal"):
        app.merge(key, ACTOR, fold={"Caroline paints rivers": "Caroline paints landscapes"})
    with pytest.raises(EntryMissing):
        app.merge(key, ACTOR, fold={"Caroline paints lakes": "Caroline paints portraits"})
    assert (commits(workspace), workspace.read(NOTE)) == before
