"""The status snapshot: what a served home says about itself, taken after each pass.

Counting the files on disk against the index, git's status of the work tree
and the sync state cost hundreds of milliseconds on a 10,000-file home, too
much to pay on every ``GET /v1/status``, health page or MCP ``status``. So a
served home keeps one snapshot in memory. ``StatusBoard`` takes it in its own
thread after every reconcile pass (the worker's ``on_pass``), after a sync and
after a scheduled job; the readers answer from it at once and show when it
was taken (``snapshot.as_of``, ``age_seconds``) and whether a pass has been
asked for or run since (``current``), so nobody mistakes it for a live read.
What is cheap and must be live (the watcher, the worker, the jobs, the locks)
is added by the service on every request.

The expensive parts run without the home's lock: the tree is listed with
``lstat`` only, and git's status is read by the git CLI in its own process
(``patch.whole_changes``; libgit2, through the board's own repository object,
only when git cannot say: pygit2 objects are not shared between threads, and
libgit2's status holds Python's lock throughout). Only the comparison of
that listing with the manifest, and the reads of HEAD, the sync and reflection
state, hold the lock, for milliseconds. A listing taken a moment before a pass
may call a file stale that the pass has just indexed; that pass asks for the
next snapshot, which sees it right.

Most snapshots follow a targeted pass (a write, an edit the watcher saw, a
person's commit), and most of the home did not move since the last one. So
the board keeps what the last snapshot read (the listing, git's state of the
changed paths, HEAD) and, when every pass since looked at a few known paths
(``freshness.take_touched``), *patches* it: those paths are listed again,
and git's state is read again for them, for the paths that differed from
HEAD last time and for the files HEAD's move changed. That costs
milliseconds where listing a 100,000-file home and reading git's status of
every file cost seconds. A full pass (start-up, a git hook's nudge after a
merge, checkout or rebase, the scheduled pass every ten minutes), a sync, a
reflection run or a scheduled job ask for a whole new snapshot. So between
two whole snapshots, a change no pass looked at and that moved neither HEAD
nor a path already shown as changed (a file git stages without its content
changing, say) shows at the next whole one.

Requests are folded like passes (any number made while one snapshot is taken
ask for exactly one more); a snapshot that lists the whole tree starts once
requests stop for a moment (``QUIET_SECONDS``, at most ``SETTLE_SECONDS``
after the first), so it does not share
the cores with the request that follows a write; and it starts no sooner
than ``GAP_FACTOR`` times the last one's cost after it ended, so under a
stream of writes on a large home it takes at most about a third of one core.
A patch waits ``QUICK_QUIET_SECONDS`` only.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from hearth.app.parts import HomeParts
from hearth.app.reflection import ReflectionLog
from hearth.app.results import Change, HomeStatus, SnapshotInfo
from hearth.app.status.patch import (
    MAX_PATCHED,
    TreeRead,
    index_stamp,
    patched_changes,
    whole_changes,
)
from hearth.app.status.report import home_status
from hearth.app.sync.branch import Syncer
from hearth.errors import HearthError
from hearth.heap import give_back
from hearth.reconcile import freshness
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.reports import IndexStatus, PassReport
from hearth.reconcile.scan import scan_tree
from hearth.store.repository import GitError, Repository, head_id, open_repository

#: A snapshot starts once no request came for this long (seconds) ...
QUIET_SECONDS = 0.3
#: ... this long, when it patches the last one (see above).
QUICK_QUIET_SECONDS = 0.03
#: ... or this long after the first request it answers, whichever is sooner.
SETTLE_SECONDS = 2.0
#: A snapshot waits this many times the last one's cost after it before starting.
GAP_FACTOR = 2.0
#: ... but never longer than this many seconds.
MAX_GAP = 5.0

Compute = Callable[[], HomeStatus]


@dataclass(frozen=True)
class Snapshot:
    """The costly part of status, as of ``as_of``."""

    data: HomeStatus
    #: When it was started (ISO 8601, UTC), and the same on the monotonic clock.
    as_of: str
    taken: float
    #: Reconcile passes finished when it was started.
    passes: int
    #: What taking it cost.
    seconds: float


class StatusBoard:
    """Takes snapshots on request in one thread and keeps the newest."""

    def __init__(
        self,
        compute: Compute,
        passes: Callable[[], int] | None,
        now: Callable[[], str],
        monotonic: Callable[[], float] = time.monotonic,
        patch: Compute | None = None,
        patches: Callable[[], bool] | None = None,
    ) -> None:
        self._compute = compute
        #: The board's thread takes a snapshot by patching the last one (``patch``,
        #: which may still list everything) when ``patches`` says it can.
        self._patch = patch
        self._patches = patches or (lambda: False)
        #: Passes finished (the worker's count, or those told by ``pass_done``).
        self._told = 0
        self._passes = passes or (lambda: self._told)
        self._now = now
        self._monotonic = monotonic
        self._cond = threading.Condition()
        self._taking = threading.Lock()  # one snapshot at a time (one repository object)
        self._requested = 0
        self._covered = 0  # requests covered by the newest finished snapshot
        self._latest: Snapshot | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        #: Why the last snapshot could not be taken (the previous one is kept).
        self.last_error: str | None = None
        #: How many snapshots listed everything, and how many patched the last one.
        self.tree_reads = {"whole": 0, "patched": 0}

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        if self.running:
            return
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="hearth-status", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)

    def pass_done(self, _report: PassReport | None = None) -> None:
        """A reconcile pass finished (the worker's ``on_pass``): count it, and ask
        for a snapshot."""
        with self._cond:
            self._told += 1
        self.request()

    def request(self) -> int:
        """Ask for a new snapshot; returns a ticket for ``wait``."""
        with self._cond:
            self._requested += 1
            self._cond.notify_all()
            return self._requested

    def wait(self, ticket: int, timeout: float | None = None) -> bool:
        """Block until a snapshot started after ``ticket`` was asked for is kept."""
        with self._cond:
            return self._cond.wait_for(lambda: self._covered >= ticket, timeout)

    def latest(self) -> Snapshot | None:
        with self._cond:
            return self._latest

    def view(self, idle: bool) -> tuple[HomeStatus, SnapshotInfo]:
        """The newest snapshot as status shows it; ``idle``: no pass is pending or
        running, and the watcher runs (so an edit would have asked for one).

        Without the board's thread (a home opened but not served) every call takes one.
        """
        snap = self.latest() if self.running else None
        if snap is None and self.running:
            # The board's thread may be taking the first one (a server's start):
            # waited for, not listed a second time beside it.
            with self._taking:
                snap = self.latest()
        if snap is None:
            snap = self.take()
        current = idle and snap.passes >= self._passes()
        return served(snap, current, self.last_error, self._monotonic())

    def take(self) -> Snapshot:
        """Take a snapshot now, on the caller's thread (start-up, or no thread running)."""
        with self._cond:
            covered = self._requested
        return self._take(covered)

    def _take(self, covered: int, patch: bool = False, again: bool = True) -> Snapshot:
        """A snapshot covering the requests up to ``covered``; unless ``again``,
        the newest one kept when it already covers them (taken on a caller's
        thread meanwhile, started after those requests were made)."""
        with self._taking:
            if not again:
                with self._cond:
                    if self._latest is not None and self._covered >= covered:
                        return self._latest
            passes, as_of, started = self._passes(), self._now(), self._monotonic()
            data = self._patch() if patch and self._patch is not None else self._compute()
            snap = Snapshot(data, as_of, started, passes, self._monotonic() - started)
        with self._cond:
            if self._latest is None or snap.taken >= self._latest.taken:
                self._latest = snap
            self._covered = max(self._covered, covered)
            self.last_error = None
            self._cond.notify_all()
        return snap

    def _settle(self, quiet: float = QUIET_SECONDS) -> bool:
        """Wait (holding ``_cond``) until requests stop for ``quiet`` seconds, at
        most ``SETTLE_SECONDS``; False when stopping.

        A write asks for a snapshot, and a runtime's next request (a search,
        usually) follows within milliseconds: listing a 10,000-file tree and
        reading git's status beside it made the search several times slower
        over HTTP on two cores (docs/performance.md, "Figures behind the code's
        comments"). Real time, not the board's clock: this is
        about sharing the CPU, not about what status says.
        """
        deadline = time.monotonic() + SETTLE_SECONDS
        seen = [self._requested]

        def moved() -> bool:
            return self._stopping or self._requested != seen[0]

        while (left := min(quiet, deadline - time.monotonic())) > 0:
            self._cond.wait_for(moved, left)
            if self._stopping:
                return False
            if self._requested == seen[0]:
                break
            seen[0] = self._requested
        return True

    def _run(self) -> None:
        ended = 0.0
        costs = {False: 0.0, True: 0.0}  # of the last whole snapshot, and patch
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._stopping or self._requested > self._covered)
                patch = self._patch is not None and self._patches()
                if self._stopping or not self._settle(
                    QUICK_QUIET_SECONDS if patch else QUIET_SECONDS
                ):
                    return
                gap = min(MAX_GAP, GAP_FACTOR * costs[patch]) - (self._monotonic() - ended)
                if gap > 0 and self._cond.wait_for(lambda: self._stopping, gap):
                    return
                covered = self._requested
                # Asked again: a snapshot taken meanwhile (``take``) may allow a patch now.
                patch = self._patch is not None and self._patches()
            try:
                wholes = self.tree_reads["whole"]
                # A whole one a status call just took is not taken again (its cost
                # stands for this one's in the gap); a patch costs little anyway.
                seconds = self._take(covered, patch, again=patch).seconds
                # A patch that had to list everything counts as a whole one.
                costs[patch and self.tree_reads["whole"] == wholes] = seconds
            except (HearthError, OSError, GitError) as exc:
                with self._cond:
                    self.last_error = str(exc)
                    # Counted as covered, so a failure does not spin; the next
                    # pass or event asks again, and status shows the error.
                    self._covered = max(self._covered, covered)
                    self._cond.notify_all()
            # A snapshot lists the whole tree and reads git's status of every
            # file: what that allocated goes back to the system, not to the
            # heap's free lists (hearth/heap.py).
            give_back()
            ended = self._monotonic()


def gather(
    home: HomeParts,
    reconciler: Reconciler,
    syncer: Syncer,
    reflections: ReflectionLog,
    owner: threading.RLock,
    repo: Repository,
    last: TreeRead | None = None,
) -> tuple[HomeStatus, TreeRead]:
    """The costly part of status: ``report.home_status`` with the tree listed and git's
    status read outside ``owner``, or ``last`` patched (git's state of the touched
    paths read outside ``owner`` too, the listing patched under it; see above);
    ``repo`` is the caller's own repository object."""
    with owner:
        touched = freshness.take_touched(reconciler)
    if last is not None and touched is not None:
        # Outside ``owner``, as a whole snapshot's git status: git reads its whole
        # index for any path, long on a big home; a pass must not wait on that.
        git = patched_changes(home.root, repo, last, touched)
        if git is not None:
            with owner:
                if freshness.patch_listing(reconciler, last.listing, touched):
                    read = TreeRead(last.listing, *git[:2], patched=True, index_stamp=git[2])
                    index = freshness.status_of(reconciler, read.listing)
                    return _status(home, index, syncer, reflections, read)
    listing = scan_tree(home.root)
    stamp, head = index_stamp(repo), head_id(repo)  # before git's status (see patched_changes)
    changes = whole_changes(home.root, repo)
    with owner:
        index = freshness.status(reconciler, listing)
        delta = freshness.listing_delta(reconciler, listing)
        read = TreeRead(delta, changes, head, index_stamp=stamp)
        return _status(home, index, syncer, reflections, read)


def _status(
    home: HomeParts,
    index: IndexStatus,
    syncer: Syncer,
    reflections: ReflectionLog,
    read: TreeRead,
) -> tuple[HomeStatus, TreeRead]:
    changes = [Change(path, state) for path, state in sorted(read.changes.items())]
    return home_status(home, index, syncer, reflections, changes=changes), read


def served(
    snap: Snapshot, current: bool, error: str | None, monotonic: float
) -> tuple[HomeStatus, SnapshotInfo]:
    """A snapshot as ``/v1/status`` shows it: its data, with the index called fresh
    only while it is ``current``, and when it was taken."""
    data, index = snap.data, snap.data.index
    if index is not None:
        data = dataclasses.replace(
            data, index=dataclasses.replace(index, fresh=index.fresh and current)
        )
    return data, SnapshotInfo(
        as_of=snap.as_of,
        age_seconds=round(max(0.0, monotonic - snap.taken), 3),
        current=current,
        passes=snap.passes,
        seconds=round(snap.seconds, 4),
        error=error,
    )


def iso_now(clock: Callable[[], dt.datetime]) -> str:
    return clock().astimezone(dt.UTC).isoformat(timespec="milliseconds")


def board_for(
    home: HomeParts,
    reconciler: Reconciler,
    syncer: Syncer,
    reflections: ReflectionLog,
    owner: threading.RLock,
) -> StatusBoard:
    """The board of a served home, counting the passes it is told of (``pass_done``);
    it opens its own repository object on first use.

    That repository lets go of what it read after each snapshot (``free``):
    once it has read git's status (when the git CLI could not), it keeps
    git's index, about 150 bytes a
    file, a second copy beside the writer's, held between snapshots for
    nothing. Reading it again costs a small share of a snapshot
    (docs/performance.md, "Figures behind the code's comments")."""
    repo: list[Repository] = []
    last: list[TreeRead] = []

    def compute(patch: bool = False) -> HomeStatus:
        if not repo:
            repo.append(open_repository(home.root))
        kept = last.pop() if last else None
        try:
            data, read = gather(
                home, reconciler, syncer, reflections, owner, repo[0], kept if patch else None
            )
        finally:
            repo[0].free()
        last.append(read)
        board.tree_reads["patched" if read.patched else "whole"] += 1
        return data

    def patches() -> bool:
        touched = reconciler.session.touched_count()
        return bool(last) and touched is not None and touched <= MAX_PATCHED

    board = StatusBoard(
        compute,
        None,
        lambda: iso_now(home.clock),
        patch=lambda: compute(patch=True),
        patches=patches,
    )
    return board
