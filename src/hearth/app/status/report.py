"""The status of a home as one report: branch, HEAD, the work tree's changes,
record counts and, given, the index's freshness, the sync and reflection state.
A served home keeps it as a snapshot (``snapshot.py``); the CLI's ``hearth
status`` tries the lean path first (``lean.py``)."""

from __future__ import annotations

from hearth.app.parts import HomeParts
from hearth.app.reads.queries import list_records
from hearth.app.reflection import ReflectionLog
from hearth.app.results import Change, HomeStatus
from hearth.app.sync.branch import Syncer
from hearth.reconcile.reports import IndexStatus
from hearth.runtimes.handed import home_rows
from hearth.store.repository import Repository, branch, worktree_changes


def home_status(
    home: HomeParts,
    index: IndexStatus | None = None,
    syncer: Syncer | None = None,
    reflector: ReflectionLog | None = None,
    *,
    changes: list[Change] | None = None,
) -> HomeStatus:
    """The home's branch, HEAD, uncommitted changes (``changes``: already read), record
    counts and, given, the index's freshness and the sync state (with the conflict
    copies to resolve)."""
    store = home.store
    head = store.head_commit()
    if changes is None:
        changes = work_tree_changes(store.repo)
    return HomeStatus(
        home=str(home.root),
        branch=branch(store.repo),
        head=str(head.id) if head is not None else None,
        changes=changes,
        pending_proposals=len(list_records(home, "proposal")),
        open_loops=len(list_records(home, "loop")),
        active_decisions=len(list_records(home, "decision")),
        index=index,
        sync=syncer.status() if syncer is not None else None,
        conflicts=syncer.conflict_copies() if syncer is not None else None,
        reflection=reflector.status() if reflector is not None else None,
        runtimes=home_rows(home.files.read, home.settings.context, home.root),
    )


def work_tree_changes(repo: Repository) -> list[Change]:
    """git's status of the work tree: every changed or untracked path, not ignored."""
    return [Change(path, state) for path, state in worktree_changes(repo)]
