"""Facts that know when they were replaced (issue 53), through the use cases on a
real home with the real git CLI: an entry that restates a fact of its target
with a new value replaces it when merged, the old version leaves the file and
is kept under continuity/superseded/ with the dates it held, recall hands the
current one, and a person's own edit is never overwritten behind their back.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from pathlib import Path

import pytest

from hearth.app.reads.review_board import ReviewMatcher
from hearth.domain import entries, records
from hearth.domain.likeness import DEFAULT_THRESHOLD
from hearth.domain.validation import Bounds
from hearth.errors import Conflict
from hearth.index.likeness import EntryLikeness
from tests.conftest import FakeClock, Workspace, git

ACTOR = "test"


def superseded_files(workspace: Workspace) -> list[Path]:
    folder = workspace.root / "continuity" / "superseded"
    return sorted(folder.iterdir()) if folder.exists() else []


def memory_entries(workspace: Workspace, path: str = "MEMORY.md") -> list[str]:
    return [e.text for e in entries.list_entries(workspace.read(path))]


def person_commits(workspace: Workspace, path: str, text: str, when: str) -> None:
    """The person edits ``path`` in their editor and commits it with plain git at ``when``."""
    (workspace.root / path).parent.mkdir(parents=True, exist_ok=True)
    (workspace.root / path).write_bytes(text.encode())
    env = {**os.environ, "GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": when}
    for args in (["add", path], ["commit", "-q", "-m", "my edit"]):
        proc = subprocess.run(
            ["git", *args], cwd=workspace.root, env=env, capture_output=True, check=False
        )
        assert proc.returncode == 0, proc.stderr


def test_a_labelled_field_is_replaced_not_added(workspace: Workspace) -> None:
    """Case: a labelled field (`Location: Porto` when `Location: Braga` stands)."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Location: Braga", ACTOR)
    app.entry_add("MEMORY.md", "Sam likes tea", ACTOR)
    key = app.propose("Moved", ["Location: Porto"], ACTOR).key
    assert key is not None
    before = len(workspace.commits())
    app.merge(key, ACTOR)
    assert memory_entries(workspace) == ["Location: Porto", "Sam likes tea"]
    assert len(workspace.commits()) == before + 1  # one commit: file, record, archive
    [record] = superseded_files(workspace)
    text = record.read_text()
    assert "- Entry: Location: Braga\n" in text and "- Replaced by: Location: Porto\n" in text
    body = workspace.git("log", "-1", "--format=%B")
    assert "Replaced 'Location: Braga' with 'Location: Porto'" in body
    assert workspace.porcelain() == ""


def test_a_near_duplicate_with_one_value_changed_is_replaced(workspace: Workspace) -> None:
    """Case: "Sam lives in Braga" then "Sam lives in Lisbon": not both in MEMORY.md."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    app.entry_add("MEMORY.md", "Sam owns a cat", ACTOR)
    key = app.propose("Sam", ["Sam lives in Lisbon", "Sam plays the cello"], ACTOR).key
    assert key is not None
    review = app.review_board().proposals[key]
    assert [(r.old, r.new, r.rule) for r in review.replaces] == [
        ("Sam lives in Braga", "Sam lives in Lisbon", "value")
    ]
    assert "Sam lives in Lisbon" not in review.known  # news, never left out as known
    preview = app.merge_preview(key, review.known)
    assert "- Sam lives in Lisbon" in preview.after and "Sam lives in Braga" not in preview.after
    app.merge(key, ACTOR, leave_out=review.known)
    assert memory_entries(workspace) == [
        "Sam lives in Lisbon",
        "Sam owns a cat",
        "Sam plays the cello",
    ]


def test_unrelated_similar_entries_are_not_paired(workspace: Workspace) -> None:
    """Case: "Sam likes tea" vs "Sam owns a cat" (and two likes) are never paired."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam owns a cat", ACTOR)
    app.entry_add("MEMORY.md", "Sam likes tea", ACTOR)
    key = app.propose("More", ["Sam likes coffee", "Sam owns a dog"], ACTOR).key
    assert key is not None
    assert app.review_board().proposals[key].replaces == ()
    app.merge(key, ACTOR)
    assert memory_entries(workspace) == [
        "Sam owns a cat",
        "Sam likes tea",
        "Sam likes coffee",
        "Sam owns a dog",
    ]
    assert superseded_files(workspace) == []


def test_the_old_version_is_findable_with_the_dates_it_held(workspace: Workspace) -> None:
    """Case: the old version stays findable in history with the dates between
    which it held (from the commit that wrote it to the merge that replaced it)."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    clock = workspace.home.clock
    clock.now = clock.now.replace(month=12, day=3)  # type: ignore[attr-defined]
    key = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR).key
    assert key is not None
    app.merge(key, ACTOR)
    [record] = superseded_files(workspace)
    assert "- Held: 2026-11-22 to 2026-12-03\n" in record.read_text()
    found = app.search("Sam lives in Braga", kind="archive").hits
    hit = next(h for h in found if h.path.startswith("continuity/superseded/"))
    assert hit.status == "superseded" and hit.kind == "archive"
    assert "Braga" in workspace.read(hit.path)


def test_recall_hands_the_current_version_only(workspace: Workspace) -> None:
    """Case: recall (search, the context bundle's recall) prefers the current one:
    the superseded version is never handed over as current memory."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    key = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR).key
    assert key is not None
    app.merge(key, ACTOR)
    hits = app.search("Where does Sam live? Braga or Lisbon", everything=True).hits
    assert hits and not any(h.path.startswith("continuity/superseded/") for h in hits)
    bundle = app.context("main", "Does Sam live in Braga?")
    # What the runtime is handed as memory: the hot files and the recall (ACTIVE.md's
    # list of recent changes names commits, history by its nature).
    memory = [f.content for f in bundle.files if f.path != "continuity/ACTIVE.md"]
    memory += [p.text for p in bundle.recall]
    assert any("Sam lives in Lisbon" in text for text in memory)
    assert not any("Braga" in text for text in memory)


def test_a_persons_own_edit_is_never_silently_overwritten(workspace: Workspace) -> None:
    """Case: the person edits the fact after the agent proposed its new value;
    the merge refuses rather than replace the person's line."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    key = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR, agent=True).key
    assert key is not None
    text = workspace.read("MEMORY.md").replace("Sam lives in Braga", "Sam lives in Porto")
    person_commits(workspace, "MEMORY.md", text, "2026-12-01T10:00:00Z")
    with pytest.raises(Conflict, match="changed after this proposal"):
        app.merge(key, ACTOR)
    assert "- Sam lives in Porto" in workspace.read("MEMORY.md")
    assert superseded_files(workspace) == []


def test_a_persons_entry_written_before_the_proposal_is_replaced_in_a_crlf_file(
    workspace: Workspace,
) -> None:
    """Case: CRLF files keep their line endings; a person's own older line is
    replaced once they merge, with its date from git blame."""
    text = workspace.read("MEMORY.md").replace("\n", "\r\n")
    text += "- Sam lives in Braga\r\n- Sam likes tea\r\n"
    person_commits(workspace, "MEMORY.md", text, "2026-10-01T10:00:00Z")
    key = workspace.app.propose("Moved", ["Sam lives in Lisbon"], ACTOR).key
    assert key is not None
    workspace.app.merge(key, ACTOR)
    data = (workspace.root / "MEMORY.md").read_bytes()
    assert b"- Sam lives in Lisbon\r\n- Sam likes tea\r\n" in data
    assert b"Braga" not in data and data.count(b"\n") == data.count(b"\r\n")
    [record] = superseded_files(workspace)
    assert "- Held: 2026-10-01 to 2026-11-22\n" in record.read_text()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("所在地：東京", "所在地：大阪"),
        ("Сэм живёт в Москве", "Сэм живёт в Казани"),
        ("山田さんは東京に住んでいる", "山田さんは大阪に住んでいる"),
    ],
)
def test_non_english_entries_are_replaced(workspace: Workspace, old: str, new: str) -> None:
    """Case: non-English entries (a fullwidth colon's field, Russian, Japanese)."""
    app = workspace.app
    app.entry_add("users/sam.md", old, ACTOR)
    key = app.propose("Moved", [new], ACTOR, target="users/sam.md").key
    assert key is not None
    app.merge(key, ACTOR)
    assert memory_entries(workspace, "users/sam.md") == [new]
    [record] = superseded_files(workspace)
    assert f"- Entry: {old}\n" in record.read_text()


def test_an_agents_new_value_becomes_a_replacement_proposal(workspace: Workspace) -> None:
    """Case: an agent's `memory add` of a new value for a known fact is proposed
    as a replacement (the person approves), not appended beside the old one."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Location: Braga", ACTOR)
    result = app.entry_add("MEMORY.md", "Location: Porto", "agent", agent=True)
    assert result.key is not None and result.path.startswith("continuity/proposals/")
    assert memory_entries(workspace) == ["Location: Braga"]
    plain = app.entry_add("MEMORY.md", "Sam owns a cat", "agent", agent=True)
    assert plain.path == "MEMORY.md"  # an unrelated entry is added as before
    app.merge(result.key, ACTOR)
    assert memory_entries(workspace) == ["Location: Porto", "Sam owns a cat"]


def test_a_batch_merge_replaces_too(workspace: Workspace) -> None:
    """Case: proposals merged many at once (the page's batch) replace as one merge does."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    first = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR).key
    second = app.propose("Cello", ["Sam plays the cello"], ACTOR).key
    assert first is not None and second is not None
    app.merge_many([first, second], ACTOR)
    assert memory_entries(workspace) == ["Sam lives in Lisbon", "Sam plays the cello"]
    assert len(superseded_files(workspace)) == 1
    assert re.search(r"\nHearth-Op: proposal.merge\n", workspace.git("log", "-1", "--format=%B"))
    git(workspace.root, "fsck", "--no-progress")


def test_reflection_keeps_a_new_value_it_would_have_dropped_as_known(workspace: Workspace) -> None:
    """Case: an entry that replaces a fact is news, not "already known": the
    matcher reflection asks before proposing does not drop it (a paraphrase it does)."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    app.entry_add("MEMORY.md", "Sam is allergic to cats", ACTOR)
    matcher = ReviewMatcher(EntryLikeness(), DEFAULT_THRESHOLD, Bounds())
    snap = workspace.home.store.snapshot()
    found = matcher.known(
        snap, "MEMORY.md", ["Sam lives in Lisbon", "Sam has an allergy to cats"], []
    )
    assert [f.matches != () for f in found] == [False, True]


@pytest.mark.parametrize(
    ("old", "new"), [("Sam lives in Braga", "Sam lives in Lisbon"), ("Home: Braga", "Home: Porto")]
)
def test_a_replacement_at_the_bound_is_not_refused_as_an_addition(
    workspace: Workspace, old: str, new: str
) -> None:
    """Case: a file at its bound takes a new value for a held fact (it replaces,
    it does not add): the board shows no over-bound card and the merge goes through."""
    app = workspace.app
    app.entry_add("MEMORY.md", old, ACTOR)
    room = len(workspace.read("MEMORY.md")) + 5
    settings = workspace.root / "hearth.toml"
    settings.write_text(settings.read_text().replace("memory_md = 20000", f"memory_md = {room}"))
    git(workspace.root, "commit", "-qam", "settings: a small MEMORY.md")
    app = workspace.reopen()
    key = app.propose("Moved", [new], ACTOR).key
    assert key is not None
    assert app.review_board().proposals[key].over_bound is None
    app.merge(key, ACTOR)
    assert memory_entries(workspace) == [new]


def test_a_persons_edit_after_a_lionclaw_proposal_is_not_overwritten(
    workspace: Workspace,
) -> None:
    """Case: a person's own edit is never silently overwritten, for a proposal in
    LionClaw's format too (its time is ``...:00.123456789+00:00 UTC``)."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Sam lives in Braga", ACTOR)
    key = records.record_key("Moved")
    proposal = (
        "# Memory Proposal: Moved\n\n- Status: proposed\n"
        f"- Key: {key}.md\n- Proposed: 2026-11-23T09:30:00.123456789+00:00 UTC\n"
        "- Source: session:main\n\n## Candidate Entries\n- Sam lives in Lisbon\n\n"
    )
    person_commits(
        workspace, f"continuity/proposals/memory/{key}.md", proposal, "2026-11-23T09:30:00Z"
    )
    text = workspace.read("MEMORY.md").replace("Sam lives in Braga", "Sam lives in Porto")
    person_commits(workspace, "MEMORY.md", text, "2026-11-24T10:00:00Z")
    with pytest.raises(Conflict, match="changed after this proposal"):
        app.merge(key, ACTOR)
    assert "- Sam lives in Porto" in workspace.read("MEMORY.md")


def test_two_new_values_before_the_person_looked_leave_the_latest(workspace: Workspace) -> None:
    """Case: an agent gives a fact two new values before the person merges (one
    proposal, by title): the latest stands, each older one is kept with its dates."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Location: Braga", ACTOR)
    first = app.entry_add("MEMORY.md", "Location: Porto", "agent", agent=True)
    second = app.entry_add("MEMORY.md", "Location: Faro", "agent", agent=True)
    assert first.key == second.key is not None
    app.merge(first.key, ACTOR)
    assert memory_entries(workspace) == ["Location: Faro"]
    kept = sorted(f.read_text() for f in superseded_files(workspace))
    assert len(kept) == 2
    assert any("- Entry: Location: Braga\n" in t and "Held: 2026-11-22 to" in t for t in kept)
    assert any(
        "- Entry: Location: Porto\n" in t and "Replaced by: Location: Faro" in t for t in kept
    )


def test_a_sub_bullet_the_person_added_is_never_moved_under_the_new_value(
    workspace: Workspace,
) -> None:
    """Hostile case: the person adds a sub-bullet under the entry a pending
    proposal would replace (`Location: Braga` / `flat on Rua Augusta`). The merge
    put `Location: Porto` in the head line's place and left the person's
    sub-bullet under it (now about Porto), and the record kept only the head.
    An entry with sub-bullets is not replaced: the new value is added, the
    person's block stays whole."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Location: Braga", ACTOR)
    app.entry_add("MEMORY.md", "Sam likes tea", ACTOR)
    key = app.propose("Moved", ["Location: Porto"], ACTOR, agent=True).key
    assert key is not None
    text = workspace.read("MEMORY.md").replace(
        "- Location: Braga\n", "- Location: Braga\n  - flat on Rua Augusta, key under the mat\n"
    )
    person_commits(workspace, "MEMORY.md", text, "2026-12-01T10:00:00Z")
    app.merge(key, ACTOR)
    after = workspace.read("MEMORY.md")
    assert "- Location: Braga\n  - flat on Rua Augusta, key under the mat\n" in after
    assert "- Location: Porto\n" in after
    assert superseded_files(workspace) == []


def test_a_rewrapped_continuation_the_person_edited_is_not_overwritten(
    workspace: Workspace,
) -> None:
    """Hostile case: the entry a pending proposal replaces is wrapped over two
    lines, and the person edits the value on its second line (`Braga` ->
    `Guimaraes`) after the proposal. Only the bullet's own line was checked
    against the proposal's time, so the person's new value was replaced behind
    their back; every line of the entry counts, as the one-line case does."""
    app = workspace.app
    start = workspace.read("MEMORY.md") + "- Sam lives in\n  Braga\n- Sam likes tea\n"
    person_commits(workspace, "MEMORY.md", start, "2026-10-01T10:00:00Z")
    key = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR, agent=True).key
    assert key is not None
    edited = workspace.read("MEMORY.md").replace("  Braga\n", "  Guimaraes\n")
    person_commits(workspace, "MEMORY.md", edited, "2026-12-01T10:00:00Z")
    with pytest.raises(Conflict, match="changed after this proposal"):
        app.merge(key, ACTOR)
    assert "- Sam lives in\n  Guimaraes\n" in workspace.read("MEMORY.md")
    assert superseded_files(workspace) == []


def test_a_consolidations_pointer_line_is_never_replaced_as_a_field(
    workspace: Workspace,
) -> None:
    """Hostile case: a consolidation moved entries about work to their note and
    left `Work: see memory/topics/work.md`; an agent's later `Work: Acme Corp,
    remote` read as a new value of the field `Work`, and the merge replaced the
    pointer: the hot file no longer said where the moved entries went. A
    pointer is never a fact's value: the new entry is added beside it."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Work: see memory/topics/work.md", ACTOR)
    app.entry_add("MEMORY.md", "Sam likes tea", ACTOR)
    key = app.propose("Job", ["Work: Acme Corp, remote"], ACTOR, agent=True).key
    assert key is not None
    assert app.review_board().proposals[key].replaces == ()
    app.merge(key, ACTOR)
    assert memory_entries(workspace) == [
        "Work: see memory/topics/work.md",
        "Sam likes tea",
        "Work: Acme Corp, remote",
    ]
    assert superseded_files(workspace) == []


def test_an_agents_entry_beside_a_pointer_or_a_nested_entry_is_added_as_before(
    workspace: Workspace,
) -> None:
    """Hostile case, the agent's side of the two above: an agent's `memory add`
    of `Work: ...` beside a consolidation's pointer `Work: see ...`, or of a new
    value beside an entry with sub-bullets, was made a replacement proposal
    that the merge would then only add; it is added as any other entry."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Work: see memory/topics/work.md", ACTOR)
    start = workspace.read("MEMORY.md") + "- Location: Braga\n  - flat on Rua Augusta\n"
    person_commits(workspace, "MEMORY.md", start, "2026-10-01T10:00:00Z")
    for text in ("Work: Acme Corp, remote", "Location: Porto"):
        result = app.entry_add("MEMORY.md", text, "agent", agent=True)
        assert result.path == "MEMORY.md", text
    assert "- Location: Braga\n  - flat on Rua Augusta\n" in workspace.read("MEMORY.md")


def test_a_persons_edit_stays_protected_when_the_agent_updates_the_proposal_after(
    workspace: Workspace, clock: FakeClock
) -> None:
    """Hostile case: the agent proposes `Sam lives in Lisbon`; the person then
    corrects the held line to `Sam lives in Guimaraes`; the agent then adds an
    unrelated entry under the same title, which moved the proposal's `updated`
    past the person's edit, so the merge replaced the person's correction
    with the agent's older value without a word. The proposal was made before
    the edit: the merge is refused."""
    app = workspace.app
    start = workspace.read("MEMORY.md") + "- Sam lives in Braga\n"
    person_commits(workspace, "MEMORY.md", start, "2026-10-01T10:00:00Z")
    key = app.propose("Sam", ["Sam lives in Lisbon"], ACTOR, agent=True).key
    assert key is not None
    edited = workspace.read("MEMORY.md").replace("in Braga", "in Guimaraes")
    person_commits(workspace, "MEMORY.md", edited, "2026-12-01T10:00:00Z")
    clock.now += dt.timedelta(days=10)  # past the edit, before today
    assert app.propose("Sam", ["Sam owns a cat"], ACTOR, agent=True).key == key
    with pytest.raises(Conflict, match="changed after this proposal"):
        app.merge(key, ACTOR)
    assert "- Sam lives in Guimaraes\n" in workspace.read("MEMORY.md")


def test_a_second_child_is_added_beside_the_first_not_replacing_it(workspace: Workspace) -> None:
    """Case (2) of the data-trust leftovers: `Child: Eva` merged into a file that
    holds `Child: Ana` once is a second child: both stand, nothing is set aside
    as superseded, and the merge reports no replacement."""
    app = workspace.app
    app.entry_add("MEMORY.md", "Child: Ana", ACTOR)
    app.entry_add("MEMORY.md", "Pet: Rex", ACTOR)
    key = app.propose("Family", ["Child: Eva", "Pet: Bo"], ACTOR).key
    assert key is not None
    assert app.review_board().proposals[key].replaces == ()
    app.merge(key, ACTOR)
    assert memory_entries(workspace) == ["Child: Ana", "Pet: Rex", "Child: Eva", "Pet: Bo"]
    assert superseded_files(workspace) == []


def test_a_fact_held_in_another_hot_file_is_replaced_there(workspace: Workspace) -> None:
    """Case (5) of the data-trust leftovers: a proposal for MEMORY.md restating
    with a new value a fact USER.md holds (and one a person note holds) replaces
    it where it stands, in the merge's one commit, not beside it in MEMORY.md;
    the old versions are kept under continuity/superseded/ naming their file. A
    labelled field in a person note is that person's: never paired with
    MEMORY.md's."""
    app = workspace.app
    app.entry_add("USER.md", "Sam lives in Braga", ACTOR)
    app.put("users/ana.md", b"# Ana\n\n- Ana works at the Porto office of Siemens\n", ACTOR)
    app.entry_add("users/ana.md", "Location: Porto", ACTOR)
    key = app.propose(
        "News",
        ["Sam lives in Lisbon", "Ana works at the Munich office of Siemens", "Location: Faro"],
        ACTOR,
    ).key
    assert key is not None
    # The review page says so first (it reads USER.md and MEMORY.md beside the target).
    shown = app.review_board().proposals[key].replaces
    assert [(r.new, r.old, r.path) for r in shown] == [
        ("Sam lives in Lisbon", "Sam lives in Braga", "USER.md")
    ]
    before = len(workspace.commits())
    result = app.merge(key, ACTOR)
    assert len(workspace.commits()) == before + 1
    assert "Sam lives in Lisbon" in memory_entries(workspace, "USER.md")
    assert "Sam lives in Braga" not in memory_entries(workspace, "USER.md")
    assert memory_entries(workspace, "users/ana.md") == [
        "Ana works at the Munich office of Siemens",
        "Location: Porto",
    ]
    assert memory_entries(workspace) == ["Location: Faro"]
    records_text = "".join(f.read_text() for f in superseded_files(workspace))
    assert "- Entry: Sam lives in Braga\n- File: USER.md\n" in records_text
    assert "- File: users/ana.md\n" in records_text
    assert result.replaced is not None
    assert sorted(str(r["path"]) for r in result.replaced) == ["USER.md", "users/ana.md"]
    body = workspace.git("log", "-1", "--format=%B")
    assert "Replaced 'Sam lives in Braga' in USER.md with 'Sam lives in Lisbon'" in body
    assert workspace.porcelain() == ""


def test_a_batch_replaces_in_another_hot_file_once(workspace: Workspace) -> None:
    """Case (5), batch: two proposals of one batch restating USER.md's fact: the
    first takes its place, the second (of the same moment) is added to its
    target as before; nothing lost."""
    app = workspace.app
    app.entry_add("USER.md", "Sam lives in Braga", ACTOR)
    keys = [
        app.propose(t, [e], ACTOR).key
        for t, e in (("A", "Sam lives in Lisbon"), ("B", "Sam lives in Faro"))
    ]
    app.merge_many([k for k in keys if k is not None], ACTOR)
    user = memory_entries(workspace, "USER.md")
    held = user + memory_entries(workspace)
    assert "Sam lives in Braga" not in user
    assert "Sam lives in Lisbon" in held and "Sam lives in Faro" in held
    assert len(superseded_files(workspace)) == 1


def test_a_persons_edit_in_another_hot_file_is_never_overwritten(workspace: Workspace) -> None:
    """Case (5), a person's edit: the person rewrote USER.md's fact after the
    agent proposed its new value for MEMORY.md: the merge refuses (409) rather
    than replace the person's line in USER.md; nothing is written."""
    app = workspace.app
    app.entry_add("USER.md", "Sam lives in Braga", ACTOR)
    key = app.propose("Moved", ["Sam lives in Lisbon"], ACTOR, agent=True).key
    assert key is not None
    text = workspace.read("USER.md").replace("Sam lives in Braga", "Sam lives in Porto")
    person_commits(workspace, "USER.md", text, "2026-12-01T10:00:00Z")
    before = workspace.commits()
    with pytest.raises(Conflict, match=r"USER\.md's entry 'Sam lives in Porto' was changed after"):
        app.merge(key, ACTOR)
    assert workspace.commits() == before
    assert "- Sam lives in Porto" in workspace.read("USER.md")
    assert superseded_files(workspace) == []
