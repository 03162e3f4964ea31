"""Consolidation that a person approves (issue 53), through the use cases on a
real home with real git: a hot file near its bound gets one reviewable
proposal, approving it is one commit that moves a cluster of entries to their
note and leaves a pointer, near-duplicates are folded, nothing is ever
dropped, a stale proposal is refused, a rejection is remembered, and a merge
refused at the bound is made to fit by the consolidation it proposes.

Keyword-only (``HEARTH_SEMANTIC=off``, tests/conftest.py): words are enough."""

from __future__ import annotations

from collections import Counter

import pytest

from hearth.domain import consolidation, records
from hearth.domain.entries import list_entries
from hearth.errors import StaleWrite, ValidationFailed
from tests.conftest import Workspace

ACTOR = "test"
NOTE = "users/caroline.md"

PAINTING = [
    f"Caroline painted a {thing} with acrylic paint in {month}"
    for thing, month in [
        ("sunrise over the lake", "May"),
        ("portrait of her grandmother", "June"),
        ("field of sunflowers", "July"),
        ("stormy sea", "August"),
        ("city skyline at night", "September"),
        ("bowl of lemons", "October"),
        ("horse in a meadow", "November"),
        ("winter forest", "December"),
    ]
]
ADOPTION = [
    f"Caroline asked the adoption agency about {what}"
    for what in [
        "home visits",
        "the waiting list",
        "single parents",
        "older children",
        "the interview",
        "siblings",
    ]
]


WORDS = (
    "kayak",
    "lantern",
    "orchard",
    "violin",
    "glacier",
    "meadow",
    "pottery",
    "harbor",
    "telescope",
    "quilt",
    "bakery",
    "canyon",
    "piano",
    "lighthouse",
    "marathon",
    "vineyard",
    "origami",
    "chess",
)


def filler(n: int) -> list[str]:
    """Entries that share nothing but the person's name."""
    return [
        f"Caroline spoke of {WORDS[i % len(WORDS)]}{i} and {WORDS[(i * 7 + 3) % len(WORDS)]}x{i}"
        for i in range(n)
    ]


def note_text(items: list[str]) -> str:
    return "# Caroline\n\n## Entries\n\n" + "".join(f"- {e}\n" for e in items)


def entry_texts(workspace: Workspace, path: str) -> list[str]:
    try:
        text = workspace.read(path)
    except FileNotFoundError:
        return []
    return [e.text for e in list_entries(text)]


def pending(workspace: Workspace) -> list[records.Proposal]:
    found = []
    for view in workspace.app.records("proposal"):
        record = view.record
        assert isinstance(record, records.Proposal)
        found.append(record)
    return found


def consolidations(workspace: Workspace) -> list[tuple[str, records.Proposal]]:
    found = []
    for view in workspace.app.records("proposal"):
        record = view.record
        if isinstance(record, records.Proposal) and record.consolidate:
            found.append((view.key, record))
    return found


def near_bound(workspace: Workspace, size: int) -> list[str]:
    """``users/caroline.md`` holding painting and adoption clusters and filler,
    about ``size`` characters, committed by hand."""
    items = [*PAINTING, *ADOPTION]
    n = 0
    while len(note_text(items)) < size:
        items.append(filler(n + 1)[n])
        n += 1
    workspace.app.put(NOTE, note_text(items).encode(), ACTOR)
    return items


def test_a_merge_past_the_soft_budget_proposes_moving_a_cluster(workspace: Workspace) -> None:
    """Case: a hot file near its bound gets a proposal (after the merge that pushed
    it past the soft budget): one move of the largest cluster, to its topic note."""
    near_bound(workspace, 6450)
    assert consolidations(workspace) == []
    key = workspace.app.propose(
        "More", ["Caroline wants to visit the museum again soon"], ACTOR, target=NOTE
    ).key
    assert key is not None
    workspace.app.merge(key, ACTOR)
    assert len(workspace.read(NOTE)) > 0.8 * 8000
    made = consolidations(workspace)
    assert made, "no consolidation was proposed"
    key, proposal = made[0]
    assert proposal.consolidate == "move" and proposal.target == NOTE
    assert set(proposal.entries) == set(PAINTING)
    assert proposal.destination == "memory/topics/paint-caroline.md"
    assert proposal.leaves == f"Paint (Caroline): see {proposal.destination}"
    assert proposal.source == "consolidation"


def test_approving_a_move_is_one_commit_and_loses_no_text(workspace: Workspace) -> None:
    """Case: approving moves the entries and leaves a pointer, in one commit with
    hearth's trailers, and the multiset of entry texts across the two files is
    the same before and after (the pointer aside)."""
    near_bound(workspace, 7000)
    workspace.app.consolidate()
    key, proposal = consolidations(workspace)[0]
    before = Counter(entry_texts(workspace, NOTE) + entry_texts(workspace, proposal.destination))
    commits = len(workspace.commits())
    workspace.app.merge(key, ACTOR)
    assert len(workspace.commits()) == commits + 1
    message = workspace.git("log", "-1", "--format=%B")
    assert "Hearth-Op: proposal.merge" in message and f"Hearth-Actor: {ACTOR}" in message
    assert f"Hearth-Record: {key}" in message
    changed = workspace.git("show", "--name-only", "--format=", "HEAD").split()
    assert NOTE in changed and proposal.destination in changed
    after_note = entry_texts(workspace, NOTE)
    assert proposal.leaves in after_note
    assert not set(proposal.entries) & set(after_note)
    moved = entry_texts(workspace, proposal.destination)
    after = Counter([e for e in after_note if e != proposal.leaves] + moved)
    assert after == before
    assert len(workspace.read(NOTE)) < 7000 - 400
    assert workspace.porcelain() == ""
    assert key not in {k for k, _p in consolidations(workspace)}


def test_near_duplicates_are_folded_into_one_entry_keeping_every_word(
    workspace: Workspace,
) -> None:
    """Case: near-duplicates folded: two entries of MEMORY.md that say nearly the
    same become one, holding every distinct word of both; one commit."""
    app = workspace.app
    first = "Sam is allergic to cats and dogs"
    second = "Sam is allergic to cats, dogs and horses"
    app.entry_add("MEMORY.md", "The garden has three apple trees", ACTOR)
    app.entry_add("MEMORY.md", first, ACTOR)
    app.entry_add("MEMORY.md", second, ACTOR)
    app.consolidate(["MEMORY.md"])
    folds = [(k, p) for k, p in consolidations(workspace) if p.consolidate == "fold"]
    assert len(folds) == 1
    key, proposal = folds[0]
    assert set(proposal.entries) == {first, second}
    assert consolidation.loses_words(proposal.leaves, proposal.entries) == []
    commits = len(workspace.commits())
    app.merge(key, ACTOR)
    assert len(workspace.commits()) == commits + 1
    held = entry_texts(workspace, "MEMORY.md")
    assert proposal.leaves in held and first not in held
    assert "The garden has three apple trees" in held
    folded = " ".join(held)
    for word in consolidation.words(first + " " + second):
        assert word in consolidation.words(folded)


def test_an_edit_between_proposal_and_approval_is_refused_as_stale(
    workspace: Workspace,
) -> None:
    """Case: a person's edit between proposal and approval: the stale proposal is
    refused with a clear error and nothing changes."""
    near_bound(workspace, 7000)
    workspace.app.consolidate()
    key, proposal = consolidations(workspace)[0]
    workspace.app.entry_replace(NOTE, proposal.entries[1], "Caroline painted a stormy sea", ACTOR)
    head = workspace.git("rev-parse", "HEAD")
    note = workspace.read(NOTE)
    with pytest.raises(StaleWrite, match=r"stale.*no longer holds the entry"):
        workspace.app.merge(key, ACTOR)
    assert workspace.git("rev-parse", "HEAD") == head
    assert workspace.read(NOTE) == note


def test_a_rejected_consolidation_is_not_proposed_again(workspace: Workspace) -> None:
    """Case: reject works and is remembered: the next look proposes another
    cluster, never the one the person rejected."""
    near_bound(workspace, 7000)
    workspace.app.consolidate()
    key, proposal = consolidations(workspace)[0]
    workspace.app.reject(key, "keep painting here", ACTOR)
    workspace.app.consolidate()
    titles = {p.title for _k, p in consolidations(workspace)}
    assert proposal.title not in titles
    assert titles, "the other cluster is proposed instead"


def test_a_merge_refused_at_the_bound_names_the_consolidation_that_makes_room(
    workspace: Workspace,
) -> None:
    """Case: a merge that would pass the bound is refused, hearth proposes the
    consolidation in the same breath and the refusal names it; approved, the
    pending merge goes through: nothing refused and left."""
    near_bound(workspace, 7700)
    # A proposal made before the file filled, now too large to fit.
    key = workspace.app.propose(
        "Trip",
        [f"Caroline plans a trip to place {i} in the north" for i in range(12)],
        ACTOR,
        target=NOTE,
    ).key
    assert key is not None
    # No look has run since the file filled (a hand edit): the refusal itself proposes.
    assert consolidations(workspace) == []
    with pytest.raises(ValidationFailed) as refused:
        workspace.app.merge(key, ACTOR)
    made = consolidations(workspace)
    assert made
    assert "hearth proposed making room" in refused.value.message
    for k, _p in made:
        assert k in refused.value.message
        workspace.app.merge(k, ACTOR)
    workspace.app.merge(key, ACTOR)
    text = workspace.read(NOTE)
    assert len(text) <= 8000
    assert "Caroline plans a trip to place 11 in the north" in text


def test_a_refused_batch_merge_names_the_consolidation_that_makes_room(
    workspace: Workspace,
) -> None:
    """Case (4) of the data-trust leftovers: a batch merge ("Merge selected",
    `hearth merge K1 K2`) that would pass the bound is refused naming hearth's
    room proposal, as a single merge's refusal does; approved, the batch goes
    through in one commit with every entry of both."""
    near_bound(workspace, 7700)
    keys = [
        workspace.app.propose(
            title,
            [f"Caroline plans a {title.lower()} to place {i} in the north" for i in range(6)],
            ACTOR,
            target=NOTE,
        ).key
        for title in ("Trip", "Hike")
    ]
    assert None not in keys and consolidations(workspace) == []
    with pytest.raises(ValidationFailed) as refused:
        workspace.app.merge_many([k for k in keys if k is not None], ACTOR)
    made = consolidations(workspace)
    assert made
    assert "hearth proposed making room in users/caroline.md" in refused.value.message
    assert "then merge these again" in refused.value.message
    for k, _p in made:
        assert k in refused.value.message
        workspace.app.merge(k, ACTOR)
    workspace.app.merge_many([k for k in keys if k is not None], ACTOR)
    held = entry_texts(workspace, NOTE)
    for title in ("trip", "hike"):
        assert all(f"Caroline plans a {title} to place {i} in the north" in held for i in range(6))
    assert len(workspace.read(NOTE)) <= 8000


def test_the_scheduled_job_is_registered_and_looks_at_a_file_filled_by_hand(
    workspace: Workspace,
) -> None:
    """Case: hearth proposes on a scheduled job too: ``consolidate`` is one of the
    server's jobs, and a look at a file a person filled by hand (no merge)
    proposes the move."""
    from hearth import wiring
    from hearth.app.served.lifecycle import schedule

    service = wiring.open_service(workspace.root)
    try:
        jobs = {
            job.id for job in schedule(service.writes, service.jobs, service.consolidate).get_jobs()
        }
    finally:
        service.writes.files.close()
    assert "consolidate" in jobs
    items = near_bound(workspace, 6900)
    workspace.git("commit", "--allow-empty", "-qm", "person")  # a person's own commit
    assert consolidations(workspace) == []
    made = workspace.app.consolidate()
    assert made and all(r.key for r in made)
    moved = {e for _k, p in consolidations(workspace) for e in p.entries}
    assert moved <= set(items) and set(PAINTING) <= moved


def test_what_pending_proposals_would_add_counts(workspace: Workspace) -> None:
    """Case: no merge is refused and left: a file under its soft budget, with
    pending proposals that would push it past its bound, gets the room
    proposed before any merge is tried."""
    near_bound(workspace, 5600)
    workspace.app.propose(
        "Trips",
        [f"Caroline plans a trip to town{n} up north soon" for n in range(40)],
        ACTOR,
        target=NOTE,
    )
    assert workspace.app.consolidate([NOTE])
    for key, _p in consolidations(workspace):
        workspace.app.merge(key, ACTOR)
    trips = next(v.key for v in workspace.app.records("proposal"))
    workspace.app.merge(trips, ACTOR)
    assert len(workspace.read(NOTE)) <= 8000


def test_a_stale_consolidation_is_dropped_and_proposed_afresh(workspace: Workspace) -> None:
    """Case: a person's edit between proposal and approval: the next look rejects
    the stale one (reason ``stale``, not remembered as the person's no) and
    proposes the cluster as the file is now."""
    near_bound(workspace, 7600)
    workspace.app.consolidate()
    key, proposal = next((k, p) for k, p in consolidations(workspace) if "paint" in k)
    for other, _p in consolidations(workspace):
        if other != key:
            workspace.app.reject(other, "not these", ACTOR)
    workspace.app.entry_remove(NOTE, proposal.entries[0], ACTOR)
    workspace.app.consolidate()
    archived = workspace.git("ls-files", "continuity/proposals/memory/archive/rejected")
    assert key in archived
    again = [p for k, p in consolidations(workspace) if p.title == proposal.title]
    assert again and set(again[0].entries) == set(proposal.entries[1:])


def test_a_batch_merge_applies_a_consolidation_with_the_others(workspace: Workspace) -> None:
    """Case: approving through the batch (Merge selected) is the same move, in the
    batch's one commit, not an append of entries the file already holds."""
    near_bound(workspace, 7000)
    workspace.app.consolidate()
    key, proposal = next((k, p) for k, p in consolidations(workspace) if "paint" in k)
    other = workspace.app.propose("Tea", ["Sam prefers green tea"], ACTOR).key
    assert other is not None
    commits = len(workspace.commits())
    workspace.app.merge_many([key, other], ACTOR)
    assert len(workspace.commits()) == commits + 1
    held = entry_texts(workspace, NOTE)
    assert proposal.leaves in held and not set(proposal.entries) & set(held)
    assert set(proposal.entries) <= set(entry_texts(workspace, proposal.destination))
    assert "Sam prefers green tea" in entry_texts(workspace, "MEMORY.md")


def test_two_facts_are_not_folded_through_a_third(workspace: Workspace) -> None:
    """Case: near-duplicates folded, and only them: a short entry each of two longer
    ones restates folds with one of them, never joining the two."""
    app = workspace.app
    short = "Maria volunteers at the shelter"
    one = "Maria volunteers at the shelter on weekends"
    two = "Maria volunteers at the shelter and donated"
    for entry in (short, one, two):
        app.entry_add("MEMORY.md", entry, ACTOR)
    app.consolidate(["MEMORY.md"])
    folds = [p for _k, p in consolidations(workspace) if p.consolidate == "fold"]
    assert len(folds) == 1
    assert short in folds[0].entries and len(folds[0].entries) == 2


def test_a_fold_extended_with_other_entries_never_deletes_them(workspace: Workspace) -> None:
    """Hostile case: the person (CLI, or a runtime not marked an agent) proposes
    under a pending fold's title, which updates it: its entries grew by two
    unrelated ones while its folded line stayed. Approving then replaced all
    four by the fold of two, deleting `Ana plays piano` and `Bob owns a red
    bike` from MEMORY.md. A fold whose line does not hold every word of its
    entries is refused; nothing changes."""
    app = workspace.app
    first = "Sam is allergic to cats and dogs"
    second = "Sam is allergic to cats, dogs and horses"
    for text in ("Ana plays piano", first, second, "Bob owns a red bike"):
        app.entry_add("MEMORY.md", text, ACTOR)
    app.consolidate(["MEMORY.md"])
    [(key, proposal)] = [(k, p) for k, p in consolidations(workspace) if p.consolidate == "fold"]
    again = app.propose(proposal.title, ["Ana plays piano", "Bob owns a red bike"], ACTOR)
    assert again.key == key
    head = workspace.git("rev-parse", "HEAD")
    memory = workspace.read("MEMORY.md")
    with pytest.raises(StaleWrite, match="drop"):
        app.merge(key, ACTOR)
    assert workspace.git("rev-parse", "HEAD") == head
    assert workspace.read("MEMORY.md") == memory


def test_entries_that_differ_in_a_link_or_a_path_are_never_folded(workspace: Workspace) -> None:
    """Hostile case: two entries alike but for a link or a path (`.../pasta-carbonara`
    and `.../pasta-amatriciana`, `~/docs/taxes/receipts` and `.../invoices`,
    two e-mail addresses) were folded into one holding the first whole and only
    the other's differing word, so the second link, path or address was in the
    hot file no more. A link, a path or an address is a value: never folded."""
    app = workspace.app
    pairs = [
        (
            "Sam keeps the pasta recipe at https://example.com/recipes/pasta-carbonara",
            "Sam keeps the pasta recipe at https://example.com/recipes/pasta-amatriciana",
        ),
        (
            "Sam keeps the tax files in ~/docs/taxes/receipts",
            "Sam keeps the tax files in ~/docs/taxes/invoices",
        ),
        (
            "Sam writes to the school at office@school.example",
            "Sam writes to the school at head@school.example",
        ),
    ]
    for first, second in pairs:
        app.entry_add("MEMORY.md", first, ACTOR)
        app.entry_add("MEMORY.md", second, ACTOR)
    app.consolidate(["MEMORY.md"])
    assert [p.entries for _k, p in consolidations(workspace) if p.consolidate == "fold"] == []


def test_a_fold_keeps_what_is_no_word_c_sharp_or_an_emoji(workspace: Workspace) -> None:
    """Hostile case: `... code in C++ ...` and `... code in C# ...`, or two
    entries told apart by an emoji, have the same words, so the fold kept the
    longest and dropped the other's `C#` (`🍣`) without a trace. A fold keeps
    every token of every entry it folds, and approving it drops none."""
    app = workspace.app
    texts = [
        "Sam writes most of his work code in C++ these days",
        "Sam writes most of his work code in C# these days",
        "Ana's favourite food is 🍕 on fridays",
        "Ana's favourite food is 🍣 on fridays",
    ]
    for text in ["Ana plays piano", *texts]:
        app.entry_add("MEMORY.md", text, ACTOR)
    app.consolidate(["MEMORY.md"])
    for key, _proposal in consolidations(workspace):
        app.merge(key, ACTOR)
    held = " ".join(entry_texts(workspace, "MEMORY.md")).split()
    for token in ("C++", "C#", "🍕", "🍣"):
        assert any(token in h for h in held), token
