"""Where the home is and whether it is one: the environment's part of the
composition root (``$HEARTH_HOME``, ``$HEARTH_ACTOR``, the working folder,
``GIT_CEILING_DIRECTORIES``), read here and nowhere below. ``wiring``'s
names for callers.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from hearth.errors import NotAHome

# Start-up: what a check needs is imported where it is needed (see ``wiring``).
# ruff: noqa: PLC0415

__all__ = ["DEFAULT_HOME", "default_actor", "require_home", "resolve_home", "template_dir"]

DEFAULT_HOME = Path("~/.hearth/home")


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
