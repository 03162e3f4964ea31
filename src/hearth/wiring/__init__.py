"""The composition root: the one place that reads the environment and settings
and builds objects, each handed out fully built.

Served and unserved homes differ by what is built here, never by patching an
object afterwards: ``open_app`` gives the use cases of a home nothing else keeps
fresh (CLI commands), ``open_service`` the served runtime (``hearth serve``,
``hearth mcp``, ``hearth watch``) with everything it holds (worker, watcher,
jobs, the staged check, runtimes' committers), ``open_writes`` the bare
writes (hooks, benchmarks), which index nothing, and ``open_lean`` the
status that needs no pass. It decides nothing: each use case is in app/.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.domain.clock import Clock, utc_now
from hearth.wiring.homes import DEFAULT_HOME as DEFAULT_HOME
from hearth.wiring.homes import default_actor as default_actor
from hearth.wiring.homes import require_home as require_home
from hearth.wiring.homes import resolve_home as resolve_home
from hearth.wiring.homes import template_dir as template_dir

if TYPE_CHECKING:
    from hearth.app.init_home import InitResult
    from hearth.app.parts import HomeParts
    from hearth.app.reads.review_board import ReviewMatcher
    from hearth.app.reflection import ReflectionLog
    from hearth.app.served.jobs import RuntimeNotices
    from hearth.app.served.service import ServedHearth
    from hearth.app.status.lean import LeanStatus
    from hearth.app.sync.branch import Syncer
    from hearth.app.usecases import Hearth
    from hearth.app.writes.home import AfterWrite, HomeWrites
    from hearth.domain.runtime_writes import RuntimeWrites
    from hearth.domain.settings import Settings
    from hearth.embedding import Embedder
    from hearth.index.semantic import Progress, SemanticRanking, VectorFiller
    from hearth.reconcile.prepare import EarlyWorkers
    from hearth.reconcile.reconciler import Reconciler
    from hearth.reconcile.reports import PassReport
    from hearth.store.rooted import RootedFiles
    from hearth.store.tokens import TokenStore

# Start-up: what a command builds is imported where it is built, so a command
# that builds little (``hearth status`` on a settled home, ``--help``) loads
# little: libgit2's binding, Tantivy, numpy and the web stack each cost a
# noticeable part of a second (docs/cli.md, "Start-up").
# ruff: noqa: PLC0415

#: Seconds a reconcile pass waits for another process's pass to finish.
RECONCILE_WAIT_SECONDS = 60.0
#: The same wait once the home's server took a request of this command and did
#: not answer it in time (stopped, stuck): its pass may hold the lock for good.
STUCK_WAIT_SECONDS = 5.0


def _home(root: Path) -> tuple[RootedFiles, Settings]:
    from hearth.domain import layout
    from hearth.domain.settings import Settings, parse_settings
    from hearth.store.rooted import RootedFiles

    require_home(root)
    files = RootedFiles(root)
    data = files.read(layout.SETTINGS_PATH)
    settings = Settings() if data is None else parse_settings(data.decode("utf-8", "replace"))
    return files, settings


def _parts(root: Path, clock: Clock) -> HomeParts:
    from hearth.app.parts import HomeParts
    from hearth.store.git import GitStore

    files, settings = _home(root)
    return HomeParts(root, files, GitStore(root, files, clock), settings, clock)


def _semantic_on(settings: Settings) -> bool:
    """Semantic ranking as hearth.toml's ``[search]`` says; ``HEARTH_SEMANTIC=off``
    turns it off for one process (tests, or a machine too small for the model)."""
    return settings.search.semantic and os.environ.get("HEARTH_SEMANTIC") != "off"


def _semantic(parts: HomeParts, embedder: Embedder | None = None) -> SemanticRanking | None:
    """Semantic ranking as the settings say; ``embedder`` given (tests, benchmarks)
    turns it on with that model."""
    from hearth.embedding import load_embedder
    from hearth.index.semantic import SemanticRanking
    from hearth.store import state

    if embedder is None:
        if not _semantic_on(parts.settings):
            return None
        embedder = load_embedder(parts.settings.search.model)
    return SemanticRanking(parts.store.state_dir / state.VECTORS_DIR, embedder)


def _syncer(parts: HomeParts, semantic: SemanticRanking | None) -> Syncer:
    from hearth.app.sync.branch import Syncer
    from hearth.app.sync.vectors import VectorExchange
    from hearth.store.remote import Remote
    from hearth.store.vector_ref import VectorRef

    vectors = (
        VectorExchange(VectorRef(parts.root, Remote(parts.root)), semantic, parts.clock)
        if semantic is not None
        else None
    )
    return Syncer(
        parts.root,
        parts.store.state_dir,
        parts.clock,
        merge_config=merge_driver_config(),
        vectors=vectors,
    )


def _reconciler(
    parts: HomeParts,
    *attention: Syncer | ReflectionLog | RuntimeNotices,
    semantic: SemanticRanking | None,
    lock_timeout: float = RECONCILE_WAIT_SECONDS,
) -> Reconciler:
    from hearth.index.live import LiveIndex
    from hearth.reconcile.reconciler import Reconciler
    from hearth.store import state

    return Reconciler(
        parts.root,
        parts.files,
        parts.store.repo,
        parts.store.state_dir,
        parts.settings.bounds,
        parts.clock,
        attention=attention,
        lock_timeout=lock_timeout,
        index=LiveIndex(
            parts.store.state_dir / state.INDEX_DIR, semantic, template_dir(), parts.clock
        ),
    )


def _matcher(parts: HomeParts, semantic: SemanticRanking | None) -> ReviewMatcher:
    """Review's matcher of near-duplicate entries: words, and meaning with the
    model semantic search uses (its entry vectors kept under .git/hearth/)."""
    from hearth.app.reads.review_board import ReviewMatcher
    from hearth.index.likeness import EntryLikeness
    from hearth.store import state

    likeness = (
        EntryLikeness(semantic.embedder, parts.store.state_dir / state.ENTRY_VECTORS_DIR)
        if semantic is not None
        else EntryLikeness()
    )
    return ReviewMatcher(likeness, parts.settings.review.threshold, parts.settings.bounds)


def _writes(parts: HomeParts, after_write: AfterWrite | None) -> HomeWrites:
    from hearth.app.writes.home import HomeWrites

    return HomeWrites(parts, after_write)


# -- what callers get --------------------------------------------------------------


def open_lean(root: Path, lock_timeout: float = RECONCILE_WAIT_SECONDS) -> LeanStatus:
    """The home's status without a reconcile pass, when one would change nothing
    (``app/status/lean.py``: its ``status()`` is None when one would, then
    ``open_app(root).status()``)."""
    from hearth.app.status.lean import LeanStatus

    _files, settings = _home(root)
    return LeanStatus(root, settings, _semantic_on(settings), lock_timeout)


def open_writes(root: Path, clock: Clock = utc_now) -> HomeWrites:
    """The home's bare writes: each one commit, nothing indexed (hooks,
    benchmarks; the next reconcile pass picks the commits up)."""
    return _writes(_parts(root, clock), None)


def _reflection_log(parts: HomeParts) -> ReflectionLog:
    from hearth.app.reflection import ReflectionLog
    from hearth.store.trust import CommandTrust

    state_dir = parts.store.state_dir
    return ReflectionLog(state_dir, parts.settings.reflection, CommandTrust(parts.root, state_dir))


def early_workers() -> EarlyWorkers:
    """Reader processes started now for a rebuild about to be made (``Hearth.reconcile``):
    they start up while the command opens the home. Close them when done."""
    from hearth.reconcile.prepare import EarlyWorkers

    return EarlyWorkers()


def open_app(
    root: Path,
    clock: Clock = utc_now,
    *,
    lock_timeout: float = RECONCILE_WAIT_SECONDS,
    embedder: Embedder | None = None,
) -> Hearth:
    """The use cases of a home that nothing else keeps fresh (a CLI command):
    every write is indexed before it returns, every read that shows the index
    or ACTIVE.md runs a reconcile pass first (waiting at most ``lock_timeout``
    for another process's pass). ``embedder``: semantic ranking with that model
    whatever the settings say (tests and benchmarks)."""
    from hearth.app.reflection import Reflector
    from hearth.app.usecases import Hearth
    from hearth.reconcile.ahead import IndexEachWrite

    parts = _parts(root, clock)
    semantic = _semantic(parts, embedder)
    syncer = _syncer(parts, semantic)
    log = _reflection_log(parts)
    reconciler = _reconciler(parts, syncer, log, semantic=semantic, lock_timeout=lock_timeout)
    writes = _writes(parts, IndexEachWrite(reconciler))
    return Hearth(writes, reconciler, syncer, Reflector(writes, log, _matcher(parts, semantic)))


def open_service(
    root: Path,
    clock: Clock = utc_now,
    on_pass: Callable[[PassReport], None] | None = None,
    *,
    local_socket: str | None = None,
    started_as: str = "serve",
) -> ServedHearth:
    """Everything a long-running process serves for the home at ``root``: the use
    cases kept fresh by a reconcile worker (``on_pass`` told of every pass) and a
    file watcher, with the scheduled jobs' and recovery's notices in ACTIVE.md.
    ``local_socket``: the home's socket the server listens on; ``started_as``:
    ``serve`` or ``on-demand`` (both published in server.json)."""
    import functools
    import threading

    from hearth.app.reflection import Reflector
    from hearth.app.served.jobs import RuntimeNotices, ScheduledJobs
    from hearth.app.served.precommit import StagedChecker
    from hearth.app.served.runtime_writes import (
        RuntimeWriteCommits,
        refusal_notes,
        set_up_here,
        waiting_notes,
    )
    from hearth.app.served.service import ChangeHints, OwnedPasses, ServedHearth
    from hearth.app.status.progress import PassProgress
    from hearth.app.status.snapshot import board_for
    from hearth.reconcile.ahead import IndexEachWrite
    from hearth.reconcile.watcher import Watcher
    from hearth.reconcile.worker import ReconcileWorker
    from hearth.store.tokens import TokenStore
    from hearth.store.trust import CommandTrust

    parts = _parts(root, clock)
    owner = threading.RLock()
    semantic = _semantic(parts)
    syncer = _syncer(parts, semantic)
    log = _reflection_log(parts)
    # Each runtime's uncommitted writes, shared by its committer (built below,
    # after the reconciler) and the notices the reconciler reads.
    trust = CommandTrust(root, parts.store.state_dir)
    set_up, waiting = set_up_here(
        parts.settings.committed_writes(), lambda r: trust.writes_approved(r.runtime, r.paths)
    )
    committed: list[tuple[RuntimeWrites, dict[str, str]]] = [(rules, {}) for rules in set_up]
    notices = RuntimeNotices(
        parts.store.index_lock,
        sources=[
            functools.partial(waiting_notes, waiting),
            *(functools.partial(refusal_notes, rules, left) for rules, left in committed),
        ],
    )
    reconciler = _reconciler(parts, notices, syncer, log, semantic=semantic)
    # The status snapshot reads the home's parts (reads need no indexing).
    board = board_for(parts, reconciler, syncer, log, owner)
    passes = PassProgress()
    owned_passes = OwnedPasses(reconciler, owner, passes)
    worker = ReconcileWorker(owned_passes, on_pass=_both(board.pass_done, on_pass))
    writes = _writes(parts, IndexEachWrite(reconciler, worker))
    runtime_writes = tuple(
        RuntimeWriteCommits(
            parts, rules, IndexEachWrite(reconciler, worker), owned=lambda: owner, refused=left
        )
        for rules, left in committed
    )
    watcher = Watcher(root, ChangeHints(worker, runtime_writes))
    reflector = Reflector(writes, log, _matcher(parts, semantic))
    jobs = ScheduledJobs(
        notices.jobs,
        home=writes,
        worker=worker,
        watcher=watcher,
        board=board,
        reflector=reflector,
        syncer=syncer,
        owned=lambda: owner,
        reconcile=owned_passes.reconcile,
        clock=clock,
    )
    return ServedHearth(
        writes,
        reconciler,
        syncer,
        reflector,
        owner,
        tokens=TokenStore(parts.store.state_dir),
        worker=worker,
        notices=notices,
        filler=_filler(reconciler),
        board=board,
        passes=passes,
        runtime_writes=runtime_writes,
        watcher=watcher,
        jobs=jobs,
        staged=StagedChecker(root),
        local_socket=local_socket,
        started_as=started_as,
    )


def _both(
    first: Callable[[PassReport], None], second: Callable[[PassReport], None] | None
) -> Callable[[PassReport], None]:
    if second is None:
        return first

    def both(report: PassReport) -> None:
        first(report)
        second(report)

    return both


def _filler(reconciler: Reconciler) -> VectorFiller | None:
    """The background filler of semantic vectors (None when semantic ranking is off)."""
    import threading

    from hearth.heap import give_back
    from hearth.index.semantic import VectorFiller

    live = reconciler.index
    if live.semantic is None:
        return None

    def fill(stop: threading.Event, told: Progress) -> None:
        try:
            live.fill_vectors(told, stop)
        finally:
            # A fill lists every section's text the first time, then drops
            # them: give the freed heap back.
            give_back()

    return VectorFiller(fill, live.semantic.wake)


def token_store(root: Path) -> TokenStore:
    from hearth.store.state import state_dir_of
    from hearth.store.tokens import TokenStore

    require_home(root)
    return TokenStore(state_dir_of(root))


# -- creating a home and its hooks ------------------------------------------------


def install_hooks(root: Path) -> list[str]:
    require_home(root)
    from hearth.hooks import install as hook_install

    # The hooks and the merge driver start hearth with this very interpreter.
    return hook_install.install(root, sys.executable)


def update_attributes(root: Path, clock: Clock = utc_now) -> tuple[str, ...]:
    """Commit hearth's current .gitattributes lines when they are missing or old."""
    from hearth.app import init_home

    return init_home.update_attributes(root, clock, default_actor())


def merge_driver_config() -> dict[str, str]:
    """The git config naming hearth's daily-note merge driver, for this interpreter."""
    from hearth.hooks import install as hook_install

    return hook_install.merge_driver_config(sys.executable)


def initialize(
    root: Path,
    clock: Clock = utc_now,
    *,
    checking: Progress | None = None,
    storing: Progress | None = None,
) -> InitResult:
    """``hearth init``: create or adopt the home, commit what it added, install the hooks
    (``checking`` and ``storing``: progress, see ``init_home.init_home``)."""
    from hearth.app import init_home
    from hearth.domain.settings import Settings

    return init_home.initialize(
        root,
        template_dir(),
        clock,
        default_actor(),
        Settings().bounds,
        install_hooks,
        checking=checking,
        storing=storing,
    )
