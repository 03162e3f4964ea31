"""The one place that reads the environment and settings and builds objects."""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pygit2

from hearth import home_init
from hearth.domain import layout
from hearth.domain.settings import Settings, parse_settings
from hearth.domain.validation import RuleFailure
from hearth.errors import Conflict, NotAHome
from hearth.home import Clock, Home
from hearth.home_init import InitResult, init_home
from hearth.hooks import install as hook_install
from hearth.index.embedding import load_embedder
from hearth.reconcile.reconciler import Reconciler
from hearth.reconcile.semantic import SemanticRanking
from hearth.reflector import Reflector
from hearth.service import HomeService
from hearth.store.discovery import discover_home
from hearth.store.git import GitStore
from hearth.store.rooted import RootedFiles
from hearth.store.tokens import TokenStore
from hearth.sync import Syncer

DEFAULT_HOME = Path("~/.hearth/home")


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


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
        found = discover_home(start, os.environ.get("GIT_CEILING_DIRECTORIES", ""))
        if found is not None:
            return found
    return DEFAULT_HOME.expanduser().absolute()


def default_actor(fallback: str = "cli") -> str:
    return os.environ.get("HEARTH_ACTOR") or fallback


def template_dir() -> Path:
    """home_template/: packaged in the wheel, or at the top of a source checkout."""
    packaged = Path(str(resources.files("hearth"))) / "home_template"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[2] / "home_template"


def _settings(files: RootedFiles) -> Settings:
    data = files.read(layout.SETTINGS_PATH)
    if data is None:
        return Settings()
    return parse_settings(data.decode("utf-8", "replace"))


def open_home(root: Path, clock: Clock = utc_now, *, index: bool = True) -> Home:
    """The home at ``root``; with ``index``, every write is indexed before it returns."""
    if not (root / ".git").exists():
        raise NotAHome(f"{root} is not a hearth home; create it with 'hearth init {root}'")
    files = RootedFiles(root)
    store = GitStore(root, files, clock)
    home = Home(root, files, store, _settings(files), clock)
    if index:
        reconciler_of(home)
    return home


def semantic_of(home: Home) -> SemanticRanking | None:
    """Semantic ranking as hearth.toml's ``[search]`` says; ``HEARTH_SEMANTIC=off``
    turns it off for one process (tests, or a machine too small for the model)."""
    if not home.settings.search.semantic or os.environ.get("HEARTH_SEMANTIC") == "off":
        return None
    embedder = load_embedder(home.settings.search.model)
    return SemanticRanking(home.store.state_dir / "vectors", embedder)


def reconciler_of(home: Home) -> Reconciler:
    """The home's reconciler (created on first use; it opens the index lazily)."""
    if home.reconciler is None:
        home.reconciler = Reconciler(
            home.root,
            home.files,
            home.store.repo,
            home.store.state_dir,
            home.settings.bounds,
            home.clock,
            attention=_attention(syncer_of(home), reflector_of(home)),
            semantic=semantic_of(home),
        )
    return home.reconciler


def open_service(root: Path, clock: Clock = utc_now) -> HomeService:
    """Everything ``hearth serve`` runs for the home at ``root``."""
    home = open_home(root, clock)
    return HomeService(
        home,
        reconciler_of(home),
        TokenStore(home.store.state_dir),
        syncer_of(home),
        reflector_of(home),
    )


def reflector_of(home: Home) -> Reflector:
    return Reflector(home, home.settings.reflection)


def _attention(*sources: Syncer | Reflector) -> Callable[[], list[str]]:
    """ACTIVE.md's Needs attention from the sources outside the reconciler."""
    return lambda: [note for source in sources for note in source.attention()]


def syncer_of(home: Home) -> Syncer:
    return Syncer(home.root, home.store.state_dir, home.clock, merge_config=merge_driver_config())


def token_store(root: Path) -> TokenStore:
    if not (root / ".git").exists():
        raise NotAHome(f"{root} is not a hearth home; create it with 'hearth init {root}'")
    return TokenStore(Path(pygit2.Repository(str(root)).path) / "hearth")


def install_hooks(root: Path) -> list[str]:
    if not (root / ".git").exists():
        raise NotAHome(f"{root} is not a hearth home; create it with 'hearth init {root}'")
    # The hooks and the merge driver start hearth with this very interpreter.
    return hook_install.install(root, sys.executable)


def update_attributes(root: Path, clock: Clock = utc_now) -> tuple[str, ...]:
    """Commit hearth's current .gitattributes lines when they are missing or old."""
    return home_init.update_attributes(root, clock, default_actor())


def merge_driver_config() -> dict[str, str]:
    """The git config naming hearth's daily-note merge driver, for this interpreter."""
    return hook_install.merge_driver_config(sys.executable)


def initialize(root: Path, clock: Clock = utc_now) -> InitResult:
    """``hearth init``: create or adopt the home, commit what it added, install the hooks."""
    result = init_home(root, template_dir(), clock, default_actor(), Settings().bounds)
    try:
        install_hooks(root)
    except Conflict as exc:
        skipped = RuleFailure("core.hooksPath", "hooks", exc.message, "see docs/hooks.md")
        return dataclasses.replace(result, warnings=(*result.warnings, skipped))
    return result
