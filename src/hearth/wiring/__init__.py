"""The composition root: the one place that reads the environment and settings
and builds objects, each handed out fully built.

Served and unserved homes differ by what is built here, never by patching an
object afterwards: ``open_app`` gives the use cases of a home nothing else keeps
fresh (CLI commands), ``open_service`` the served runtime (``hearth serve``,
``hearth mcp``, ``hearth watch``) with its worker, watcher and jobs, and
``open_home`` the bare operations (hooks, benchmarks), which index nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hearth.domain.clock import Clock, utc_now
from hearth.errors import Conflict, NotAHome

if TYPE_CHECKING:
    from hearth.app.init_home import InitResult
    from hearth.app.reads.review_board import ReviewMatcher
    from hearth.app.reflection import ReflectionLog
    from hearth.app.served.runtime_writes import RuntimeWriteCommits
    from hearth.app.served.service import RuntimeNotices, ServedHearth
    from hearth.app.sync.branch import Syncer
    from hearth.app.usecases import Hearth
    from hearth.app.writes.home import AfterWrite, HomeWrites
    from hearth.domain.settings import Settings
    from hearth.embedding import Embedder
    from hearth.index.semantic import Progress, SemanticRanking
    from hearth.reconcile.reconciler import Reconciler
    from hearth.reconcile.reports import PassReport
    from hearth.store.git import GitStore
    from hearth.store.rooted import RootedFiles
    from hearth.store.tokens import TokenStore

# Start-up: what a command builds is imported where it is built, so a command
# that builds little (``hearth status`` on a settled home, ``--help``) loads
# little: libgit2's binding, Tantivy, numpy and the web stack each cost a
# noticeable part of a second (docs/cli.md, "Start-up").
# ruff: noqa: PLC0415

DEFAULT_HOME = Path("~/.hearth/home")
#: Seconds a reconcile pass waits for another process's pass to finish.
RECONCILE_WAIT_SECONDS = 60.0


def resolve_home(option: str | None, cwd: Path | None = None) -> Path:
    """``--home``, else ``$HEARTH_HOME``, else the hearth home holding the working
    folder (found as git finds its repository), else ``~/.hearth/home``."""
    chosen = option or os.environ.get("HEARTH_HOME")
    if chosen:
        return Path(chosen).expanduser().absolute()
    try:
        start = cwd or Path.cwd()
    except OSError:  # the working folder was deleted
        start = None
    if start is not None:
        from hearth.store.discovery import discover_home

        found = discover_home(start, os.environ.get("GIT_CEILING_DIRECTORIES", ""))
        if found is not None:
            return found
    return DEFAULT_HOME.expanduser().absolute()


def default_actor(fallback: str = "cli") -> str:
    return os.environ.get("HEARTH_ACTOR") or fallback


def template_dir() -> Path:
    """home_template/: packaged in the wheel, or at the top of a source checkout."""
    from importlib import resources

    packaged = Path(str(resources.files("hearth"))) / "home_template"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "home_template"


# -- the parts every home is made of ---------------------------------------------


def require_home(root: Path) -> None:
    """Refuse a folder that is not a home before anything is read or written there.

    A home is a git work tree whose root holds ``hearth.toml``, which every
    ``hearth init`` writes and commits (adopting an OpenClaw or LionClaw
    workspace included). An ordinary repository is refused the same way as a
    folder, so no command but ``init`` writes into a project by mistake (no
    ACTIVE.md, no ``.git/hearth/``, no commit)."""
    from hearth.domain.layout import SETTINGS_PATH
    from hearth.store.discovery import is_hearth_home

    if is_hearth_home(root):
        return
    git = root / ".git"
    if git.is_file() or (git / "HEAD").exists():
        raise NotAHome(
            f"{root} is a git repository but not a hearth home (it has no {SETTINGS_PATH}); "
            f"to make it one, adopt it on purpose with 'hearth init {root}'"
        )
    message = (
        f"{root} is not a hearth home; create it with 'hearth init {root}'"
        if root.exists()
        else f"{root} does not exist; create a home there with 'hearth init {root}'"
    )
    if root == DEFAULT_HOME.expanduser().absolute():
        from hearth.store.discovery import enclosing_work_tree

        with contextlib.suppress(OSError):
            here = enclosing_work_tree(Path.cwd(), os.environ.get("GIT_CEILING_DIRECTORIES", ""))
            if here is not None:
                message += (
                    f" (the working folder is in {here}, a git repository that is not a "
                    f"home: to make it one, adopt it on purpose with 'hearth init {here}')"
                )
    raise NotAHome(message)


@dataclasses.dataclass(frozen=True)
class _Parts:
    root: Path
    files: RootedFiles
    store: GitStore
    settings: Settings
    clock: Clock


def _home(root: Path) -> tuple[RootedFiles, Settings]:
    from hearth.domain import layout
    from hearth.domain.settings import Settings, parse_settings
    from hearth.store.rooted import RootedFiles

    require_home(root)
    files = RootedFiles(root)
    data = files.read(layout.SETTINGS_PATH)
    settings = Settings() if data is None else parse_settings(data.decode("utf-8", "replace"))
    return files, settings


def _parts(root: Path, clock: Clock) -> _Parts:
    from hearth.store.git import GitStore

    files, settings = _home(root)
    store = GitStore(root, files, clock)
    return _Parts(root, files, store, settings, clock)


def _semantic_on(settings: Settings) -> bool:
    """Semantic ranking as hearth.toml's ``[search]`` says; ``HEARTH_SEMANTIC=off``
    turns it off for one process (tests, or a machine too small for the model)."""
    return settings.search.semantic and os.environ.get("HEARTH_SEMANTIC") != "off"


def _semantic(parts: _Parts, embedder: Embedder | None = None) -> SemanticRanking | None:
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


def _syncer(parts: _Parts, semantic: SemanticRanking | None) -> Syncer:
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
    parts: _Parts,
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


def _matcher(parts: _Parts, semantic: SemanticRanking | None) -> ReviewMatcher:
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


def _operations(parts: _Parts, after_write: AfterWrite | None) -> HomeWrites:
    from hearth.app.writes.home import HomeWrites

    return HomeWrites(
        parts.root, parts.files, parts.store, parts.settings, parts.clock, after_write
    )


# -- what callers get --------------------------------------------------------------


def glance_status(root: Path) -> dict[str, Any] | None:
    """The home's status without a reconcile pass, when one would change nothing
    (``app/status/lean.py``); None when it would (then ``open_app(root).status()``)."""
    from hearth.app.status import lean
    from hearth.embedding import load_embedder

    _files, settings = _home(root)
    model = load_embedder(settings.search.model).name if _semantic_on(settings) else None
    return lean.status(root, settings, model, RECONCILE_WAIT_SECONDS)


def open_home(root: Path, clock: Clock = utc_now) -> HomeWrites:
    """The home's bare operations: each write one commit, nothing indexed (hooks,
    benchmarks; the next reconcile pass picks the commits up)."""
    return _operations(_parts(root, clock), None)


def _reflection_log(parts: _Parts) -> ReflectionLog:
    from hearth.app.reflection import ReflectionLog
    from hearth.store.trust import CommandTrust

    state_dir = parts.store.state_dir
    return ReflectionLog(state_dir, parts.settings.reflection, CommandTrust(parts.root, state_dir))


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
    from hearth.app.usecases import Hearth, IndexEachWrite

    parts = _parts(root, clock)
    semantic = _semantic(parts, embedder)
    syncer = _syncer(parts, semantic)
    log = _reflection_log(parts)
    reconciler = _reconciler(parts, syncer, log, semantic=semantic, lock_timeout=lock_timeout)
    ops = _operations(parts, IndexEachWrite(reconciler))
    return Hearth(ops, reconciler, syncer, Reflector(ops, log, _matcher(parts, semantic)))


def open_service(
    root: Path,
    clock: Clock = utc_now,
    on_pass: Callable[[PassReport], None] | None = None,
) -> ServedHearth:
    """Everything a long-running process serves for the home at ``root``: the use
    cases kept fresh by a reconcile worker (``on_pass`` told of every pass) and a
    file watcher, with the scheduled jobs' and recovery's notices in ACTIVE.md."""
    import threading

    from hearth.app.reflection import Reflector
    from hearth.app.served.service import OwnedPasses, RuntimeNotices, ServedHearth
    from hearth.app.status.progress import PassProgress
    from hearth.app.status.snapshot import board_for
    from hearth.app.usecases import IndexEachWrite
    from hearth.heap import give_back
    from hearth.index.semantic import VectorFiller
    from hearth.reconcile.worker import ReconcileWorker
    from hearth.store.tokens import TokenStore

    parts = _parts(root, clock)
    owner = threading.RLock()
    semantic = _semantic(parts)
    syncer = _syncer(parts, semantic)
    log = _reflection_log(parts)
    notices = RuntimeNotices(parts.store.index_lock)
    reconciler = _reconciler(parts, notices, syncer, log, semantic=semantic)
    # The status snapshot reads through operations of its own (reads need no indexing).
    board = board_for(_operations(parts, None), reconciler, syncer, log, owner)

    def passed(report: PassReport) -> None:
        board.pass_done(report)
        if on_pass is not None:
            on_pass(report)

    passes = PassProgress()
    worker = ReconcileWorker(OwnedPasses(reconciler, owner, passes), on_pass=passed)
    ops = _operations(parts, IndexEachWrite(reconciler, worker))
    writes = _runtime_writes(parts, IndexEachWrite(reconciler, worker), owner)
    notices.sources += [w.attention for w in writes]
    live = reconciler.index

    def fill(stop: threading.Event, told: Progress) -> None:
        try:
            live.fill_vectors(told, stop)
        finally:
            # A fill lists every section's text the first time (40,000 on a
            # 10,000-file home), then drops them: give the freed heap back.
            give_back()

    filler = VectorFiller(fill, live.semantic.wake) if live.semantic is not None else None
    return ServedHearth(
        ops,
        reconciler,
        syncer,
        Reflector(ops, log, _matcher(parts, semantic)),
        owner,
        tokens=TokenStore(parts.store.state_dir),
        worker=worker,
        notices=notices,
        filler=filler,
        board=board,
        passes=passes,
        runtime_writes=writes,
    )


def _runtime_writes(
    parts: _Parts, after_write: AfterWrite, owner: Any
) -> tuple[RuntimeWriteCommits, ...]:
    """The committers of runtimes' own writes that hearth.toml turns on."""
    from hearth.app.served.runtime_writes import RuntimeWriteCommits

    return tuple(
        RuntimeWriteCommits(
            parts.root,
            parts.files,
            parts.store,
            parts.settings,
            parts.clock,
            rules,
            after_write,
            owned=lambda: owner,
        )
        for rules in parts.settings.committed_writes()
    )


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
    from hearth.errors import RuleFailure

    result = init_home.init_home(
        root,
        template_dir(),
        clock,
        default_actor(),
        Settings().bounds,
        checking=checking,
        storing=storing,
    )
    try:
        install_hooks(root)
    except Conflict as exc:
        skipped = RuleFailure("core.hooksPath", "hooks", exc.message, "see docs/hooks.md")
        return dataclasses.replace(result, warnings=(*result.warnings, skipped))
    return result
