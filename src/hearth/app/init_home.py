"""``hearth init``: make a folder a home, or adopt one that already has files.

Nothing that exists is overwritten. Missing template files, ``hearth.toml``,
and the lines hearth needs in ``.gitignore`` and ``.gitattributes`` are added
in one commit, built like every other hearth write (HEAD's tree plus exactly
these paths). When the repository is brand new (no commit, nothing staged),
the files already in the folder are adopted into that same first commit,
except any that look like credentials: those stay untracked and are reported.
In a repository that already has commits, nothing of the person's is
committed: the files left untracked are listed instead. Running init again
finds nothing missing and commits nothing.

``BOOTSTRAP.md`` (the first-run ritual) is only for a brand-new home. It is
never added to a folder that has history, whose ``IDENTITY.md`` already names
the assistant, or that OpenClaw manages (``.openclaw/workspace-state.json``:
OpenClaw deletes its BOOTSTRAP.md after the first run, and its AGENTS.md tells
the agent to follow BOOTSTRAP.md whenever it exists).

A folder that already holds LionClaw's ``continuity/daily/`` gets a
``hearth.toml`` that keeps that daily-note layout.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from hearth.domain import gitattributes, layout
from hearth.domain.settings import default_settings_toml
from hearth.domain.validation import Bounds, check_blob, has_identity_name
from hearth.errors import Conflict, PathRefused, RuleFailure, StoreError
from hearth.store.git import GitStore
from hearth.store.plans import FileChange, Plan, Snapshot, Trailers
from hearth.store.private import exposure, private_dir
from hearth.store.remote import Remote
from hearth.store.repository import (
    Repository,
    init_repository,
    is_ignored,
)
from hearth.store.repository import (
    untracked as untracked_paths,
)
from hearth.store.rooted import RootedFiles

if TYPE_CHECKING:
    from hearth.index.semantic import Progress

_SECRET_RULES = ("secret-file", "secret-text")
BOOTSTRAP = "BOOTSTRAP.md"
#: OpenClaw's record of a workspace it seeded (and, later, finished bootstrapping).
OPENCLAW_STATE = ".openclaw/workspace-state.json"


@dataclass(frozen=True)
class InitResult:
    root: Path
    created_repo: bool
    commit: str | None
    #: Files hearth wrote (template files, hearth.toml, ignore and attribute lines).
    added: tuple[str, ...]
    #: The person's files committed as they were (brand-new repositories only).
    adopted: tuple[str, ...] = ()
    #: Files in the folder that are still untracked after init.
    untracked: tuple[str, ...] = ()
    skipped: tuple[RuleFailure, ...] = ()
    warnings: tuple[RuleFailure, ...] = ()
    daily_layout: layout.DailyLayout = "hearth"
    #: Why BOOTSTRAP.md was not added, when it was not ("" when it was, or was there).
    bootstrap_skipped: str = ""
    #: The remote branch whose home an empty clone checked out (``origin/main``), or "".
    from_remote: str = ""
    #: git has no identity for the person's commits here (hearth's own commits
    #: sign as hearth, but a person's first ``git commit`` would fail).
    identity_missing: bool = False
    #: Who else can read the folder, and the command that stops it (None: nobody).
    exposed: tuple[str, str] | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "home": str(self.root),
            "created_repo": self.created_repo,
            "commit": self.commit,
            "added": list(self.added),
            "adopted": list(self.adopted),
            "untracked": list(self.untracked),
            "skipped": [f.as_dict() for f in self.skipped],
            "warnings": [f.as_dict() for f in self.warnings],
            "daily_layout": self.daily_layout,
            "bootstrap_skipped": self.bootstrap_skipped,
            "from_remote": self.from_remote,
            "identity_missing": self.identity_missing,
            "exposed": (
                {"message": self.exposed[0], "fix": self.exposed[1]} if self.exposed else None
            ),
        }


def _bootstrap_refusal(files: RootedFiles, has_history: bool, has_staged: bool) -> str:
    """Why this folder must not get BOOTSTRAP.md, or "" for a brand-new home."""
    if has_history:
        return "the repository already has history"
    if has_staged:
        return "the repository already has staged files"
    try:
        identity = files.read("IDENTITY.md")
        openclaw = files.read(OPENCLAW_STATE)
    except PathRefused:
        return "IDENTITY.md or .openclaw/ is not a regular file"
    if identity is not None and has_identity_name(identity.decode("utf-8", "replace")):
        return "IDENTITY.md already names the assistant"
    if openclaw is not None:
        return f"OpenClaw manages this workspace's first run ({OPENCLAW_STATE})"
    return ""


def _with_lines(current: bytes | None, wanted: str) -> bytes:
    """``current`` plus whichever of ``wanted``'s rule lines it lacks."""
    text = (current or b"").decode("utf-8", "replace")
    have = {line.strip() for line in text.splitlines()}
    missing = [line for line in wanted.splitlines() if line.strip() and line.strip() not in have]
    if current is None:
        return wanted.encode()
    if not [line for line in missing if not line.startswith("#")]:
        return current
    if text and not text.endswith("\n"):
        text += "\n"
    return (text + "\n" + "\n".join(missing) + "\n").encode()


def _with_attributes(current: bytes | None) -> bytes:
    """``current`` .gitattributes without the lines older hearths wrote, plus hearth's."""
    if current is not None:
        lines = current.decode("utf-8", "replace").splitlines(keepends=True)
        kept = [line for line in lines if line.strip() not in gitattributes.LEGACY_GITATTRIBUTES]
        if len(kept) != len(lines):
            current = "".join(kept).lstrip("\n").encode()
    return _with_lines(current or None, gitattributes.GITATTRIBUTES)


def _attributes_change(base: bytes | None) -> FileChange | None:
    """The change that brings .gitattributes up to date, or None when it is."""
    new = _with_attributes(base)
    if new == base:
        return None
    return FileChange(".gitattributes", new, rebase=_with_attributes)


def update_attributes(root: Path, clock: Callable[[], dt.datetime], actor: str) -> tuple[str, ...]:
    """Commit hearth's current ``.gitattributes`` lines when they are missing or old.

    Homes made before daily notes had their own merge driver union-merged all
    of ``memory/``; this moves them over in one commit (a person's uncommitted
    edit of the file is kept, with the same change applied to it).
    """
    files = RootedFiles(root)
    try:
        store = GitStore(root, files, clock)

        def planner(snap: Snapshot) -> Plan:
            change = _attributes_change(snap.read(".gitattributes"))
            changes = () if change is None else (change,)
            return Plan("home: merge daily notes and entry files entry by entry", changes)

        result = store.commit(planner, Trailers(op="home.attributes", actor=actor))
    finally:
        files.close()
    return result.paths if result.changed else ()


def _adoptable(files: RootedFiles, repo: Repository) -> list[str]:
    return [
        path for path in files.walk() if path != layout.ACTIVE_PATH and not is_ignored(repo, path)
    ]


#: Files read through one batch reader (its folders' descriptors stay open meanwhile).
READ_CHUNK = 500


def _read_all(files: RootedFiles, paths: list[str]) -> Iterator[tuple[int, str, bytes | None]]:
    """``(count so far, path, bytes)`` of each of ``paths``, in order; None for a
    file that is gone or refused (a symlink, a special file, a name hearth refuses).
    Each folder is opened once a chunk, not once for every file read in it (an
    adopted folder of 100,000 notes: 300,000 opens less)."""
    for start in range(0, len(paths), READ_CHUNK):
        with files.batch_reader() as read:
            for done, path in enumerate(paths[start : start + READ_CHUNK], start=start + 1):
                try:
                    yield done, path, read(path)
                except PathRefused:
                    yield done, path, None


def _line_adder(wanted: str) -> Callable[[bytes | None], bytes]:
    return lambda copy: _with_lines(copy, wanted)


def initialize(
    root: Path,
    template: Path,
    clock: Callable[[], dt.datetime],
    actor: str,
    bounds: Bounds,
    install_hooks: Callable[[Path], object],
    *,
    checking: Progress | None = None,
    storing: Progress | None = None,
) -> InitResult:
    """``hearth init``: create or adopt the home (``init_home``), then install the
    hooks with ``install_hooks``. A ``core.hooksPath`` set elsewhere (``Conflict``)
    does not undo the home: the result carries it as a warning."""
    result = init_home(root, template, clock, actor, bounds, checking=checking, storing=storing)
    try:
        install_hooks(root)
    except Conflict as exc:
        skipped = RuleFailure("core.hooksPath", "hooks", exc.message, "see docs/hooks.md")
        return dataclasses.replace(result, warnings=(*result.warnings, skipped))
    return result


def init_home(
    root: Path,
    template: Path,
    clock: Callable[[], dt.datetime],
    actor: str,
    bounds: Bounds,
    *,
    checking: Progress | None = None,
    storing: Progress | None = None,
) -> InitResult:
    """Make ``root`` a home (see the module's docstring). ``checking(done, total)``
    is told as the files to adopt are read and checked, ``storing`` as the
    commit's files are stored in git (both for a terminal: a large folder takes
    a while)."""
    if not root.exists() or (root.is_dir() and not any(root.iterdir())):
        private_dir(root)  # a new home, private as ~/.ssh is
    root.mkdir(parents=True, exist_ok=True)
    created = not (root / ".git").exists()
    if created:
        init_repository(root)
        private_dir(root / ".git")  # git made it as the umask says
    from_remote = _remote_home(root)
    files = RootedFiles(root)
    try:
        store = GitStore(root, files, clock)
        index = store.repo.index
        index.read(False)
        has_history = store.head_commit() is not None
        adopt = not has_history and len(index) == 0
        existing = _adoptable(files, store.repo) if adopt else []
        template_files = sorted(p.name for p in template.iterdir() if p.is_file())
        bootstrap_skipped = _bootstrap_refusal(files, has_history, len(index) > 0)
        had_bootstrap = (root / BOOTSTRAP).exists()
        if bootstrap_skipped:
            template_files.remove(BOOTSTRAP)
        lionclaw_daily = (root / layout.LIONCLAW_DAILY_DIR).is_dir()
        daily_layout: layout.DailyLayout = "lionclaw" if lionclaw_daily else "hearth"
        skipped: list[RuleFailure] = []
        warnings: list[RuleFailure] = []
        adopted: list[str] = []

        def planner(snap: Snapshot) -> Plan:
            skipped.clear()
            warnings.clear()
            adopted.clear()
            changes: dict[str, FileChange] = {}
            for done, path, data in _read_all(files, existing):
                if checking is not None:
                    checking(done, len(existing))
                if data is None:
                    continue  # gone, or a symlink or special file: never adopted
                failures = check_blob(path, data, bounds)
                if any(f.rule in _SECRET_RULES for f in failures):
                    skipped.extend(failures)
                    continue
                warnings.extend(failures)
                changes[path] = FileChange(path, data)
                adopted.append(path)
            for name in [] if from_remote else template_files:
                if name not in changes and files.read(name) is None and snap.read(name) is None:
                    changes[name] = FileChange(name, (template / name).read_bytes())
            if files.read(layout.SETTINGS_PATH) is None and snap.read(layout.SETTINGS_PATH) is None:
                changes[layout.SETTINGS_PATH] = FileChange(
                    layout.SETTINGS_PATH, default_settings_toml(daily_layout).encode()
                )
            base = snap.read(".gitignore")
            if base is None and ".gitignore" in changes:
                base = changes[".gitignore"].data
            new = _with_lines(base, layout.GITIGNORE)
            if new != base:
                changes[".gitignore"] = FileChange(
                    ".gitignore", new, rebase=_line_adder(layout.GITIGNORE)
                )
            base = snap.read(".gitattributes")
            if base is None and ".gitattributes" in changes:
                base = changes[".gitattributes"].data
            attributes = _attributes_change(base)
            if attributes is not None:
                changes[".gitattributes"] = attributes
            return Plan("home: initialize hearth home", tuple(changes.values()))

        result = store.commit(planner, Trailers(op="home.init", actor=actor), storing)
        untracked = untracked_paths(store.repo)
    finally:
        files.close()
    kept = set(adopted)
    return InitResult(
        root,
        created,
        result.commit if result.changed else None,
        added=tuple(p for p in result.paths if p not in kept),
        adopted=tuple(p for p in result.paths if p in kept),
        untracked=untracked,
        skipped=tuple(skipped),
        warnings=tuple(warnings),
        daily_layout=daily_layout,
        bootstrap_skipped="" if had_bootstrap else bootstrap_skipped,
        from_remote=from_remote,
        identity_missing=not Remote(root).has_identity(),
        exposed=exposure(root),
    )


def _remote_home(root: Path) -> str:
    """In an empty clone of a remote that already holds a home (on any branch),
    check that home out instead of making a second one; returns the remote
    branch checked out (``origin/main``), or "" when there is none to take."""
    remote = Remote(root)
    if not remote.unborn():
        return ""
    homes = remote.homes_on_remotes(layout.SETTINGS_PATH)
    if not homes:
        return ""
    try:
        remote.check_out_tracking(homes[0])
    except StoreError as exc:
        raise Conflict(
            f"{homes[0]} already holds a hearth home, and checking it out here failed: "
            f"{exc.message}. Move the files in the way aside and run 'hearth init' again"
        ) from exc
    return homes[0]
