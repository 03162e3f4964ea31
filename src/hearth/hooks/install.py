"""Putting hearth's hook shims in a home, and naming its daily-note merge driver.

The shims (``shims/`` beside this module) are shell: ``pre-commit`` (bash
when the machine has it, for its ``/dev/tcp``; else sh) and one ``post``
text for the four post hooks. Installing writes the absolute path of the
Python that runs hearth into them.
"""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

from hearth.domain import gitattributes, layout
from hearth.errors import Conflict
from hearth.store.repository import config_value, git_dir, open_repository, set_config

HOOK_NAMES = layout.HOOK_NAMES
HOOK_MARKER = "Installed by hearth"
CHAINED_SUFFIX = ".before-hearth"
SHIMS = Path(__file__).with_name("shims")


def hooks_folder(root: Path) -> Path:
    """Where git looks for this repository's hooks (``core.hooksPath`` or .git/hooks)."""
    repo = open_repository(root)
    configured = config_value(repo, "core.hooksPath")
    if configured is None:
        return git_dir(repo) / "hooks"
    path = Path(configured).expanduser()
    folder = path if path.is_absolute() else root / path
    resolved, home = folder.resolve(), root.resolve()
    if resolved != home and home not in resolved.parents:
        # A shared hooks folder (a global core.hooksPath) serves other
        # repositories too: hearth's hooks do not belong there.
        raise Conflict(
            f"core.hooksPath points to {folder}, outside this home; hearth did not install "
            "its git hooks there. Unset it for this repository "
            "(git config core.hooksPath .git/hooks) and run 'hearth hooks install'"
        )
    inside_git = git_dir(repo).resolve()
    if resolved != inside_git and inside_git not in resolved.parents:
        # A folder of the work tree is committed content: a commit from the
        # remote could add or rewrite a hook there, which git then runs.
        raise Conflict(
            f"core.hooksPath points to {folder}, in the home's work tree, where a commit "
            "from the remote could rewrite a hook that git then runs; hearth did not "
            "install its git hooks there. Unset it for this repository "
            "(git config core.hooksPath .git/hooks) and run 'hearth hooks install'"
        )
    return folder


_DRIVER_NAMES = {
    gitattributes.MERGE_DRIVER: "hearth: daily notes, entry by entry",
    gitattributes.ENTRY_MERGE_DRIVER: "hearth: USER.md, MEMORY.md and person notes, entry by entry",
}


def merge_driver_config(interpreter: str) -> dict[str, str]:
    """The git config naming hearth's merge drivers, run by ``interpreter`` (one
    command for both: it tells a daily note from an entry file by the path).

    When the interpreter is gone (a removed virtual environment), the command
    falls back to git's own line merge, which leaves markers where the sides
    differ, rather than failing with ours left in place and nothing shown.

    ``-P``: git runs a driver at the top of the work tree, and ``-m`` would put
    that folder first on the module path, where a commit from the remote can
    put a module of its own."""
    python = shlex.quote(interpreter)
    command = (
        f"if test -x {python}; then exec {python} -P -m hearth.mergedriver %O %A %B %P; "
        "else git merge-file -L ours -L base -L theirs %A %O %B; fi"
    )
    config: dict[str, str] = {}
    for driver in gitattributes.MERGE_DRIVERS:
        config[f"merge.{driver}.name"] = _DRIVER_NAMES[driver]
        config[f"merge.{driver}.driver"] = command
    return config


def register_merge_driver(root: Path, interpreter: str) -> None:
    """Name hearth's merge drivers in the repository's own config.

    ``hearth sync`` passes the same settings on its own command line, so it
    needs neither; a plain ``git pull`` does.
    """
    repo = open_repository(root)
    for key, value in merge_driver_config(interpreter).items():
        if config_value(repo, key) != value:
            set_config(repo, key, value)


def shim_text(name: str, interpreter: str, shell: str | None) -> str:
    """The shim for hook ``name``, starting hearth with ``interpreter``; the
    pre-commit shim runs under ``shell`` (bash for the server path), else sh."""
    template = "pre-commit" if name == "pre-commit" else "post"
    if not shell or not shell.startswith("/") or any(c.isspace() for c in shell):
        shell = "/bin/sh"  # a #! line cannot hold a space; the shim works under sh
    return (
        (SHIMS / template)
        .read_text()
        .replace("@SHELL@", shell)
        .replace("@NAME@", name)
        .replace("@PYTHON@", shlex.quote(interpreter))
    )


def _check_parses(name: str, text: str) -> None:
    """Refuse a shim its shell would not parse: a broken pre-commit shim would
    block every commit, so nothing is installed instead."""
    import subprocess  # noqa: PLC0415  (install only)

    first = text.split("\n", 1)[0]
    shell = first[2:] if first.startswith("#!") else "/bin/sh"
    try:
        proc = subprocess.run(
            [shell, "-n"], input=text.encode(), capture_output=True, check=False, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Conflict(f"the {name} hook shim could not be checked with {shell}: {exc}") from exc
    if proc.returncode != 0:
        said = proc.stderr.decode(errors="replace").strip()
        raise Conflict(
            f"the {name} hook shim would not parse under {shell} ({said}); no hook was "
            "installed. Run hearth from a Python whose path the shell can read"
        )


def install_hooks(root: Path, interpreter: str, shell: str | None = None) -> list[str]:
    """Put hearth's hook shims in place; idempotent.

    A hook that was there before hearth (not one of its shims) is renamed to
    ``<name>.before-hearth`` and the shim runs it first, so it keeps working.
    The shims skip (with a warning, never blocking git) when ``interpreter``
    is gone. ``shell`` (the pre-commit shim's) defaults to the bash on PATH.
    """
    shell = shell or shutil.which("bash")
    folder = hooks_folder(root)
    folder.mkdir(parents=True, exist_ok=True)
    installed = []
    texts = {name: shim_text(name, interpreter, shell) for name in HOOK_NAMES}
    for name, text in texts.items():
        _check_parses(name, text)
    for name, text in texts.items():
        target = folder / name
        if target.exists() or target.is_symlink():
            current = target.read_bytes() if target.is_file() else b""
            if HOOK_MARKER.encode() not in current:
                chained = folder / (name + CHAINED_SUFFIX)
                if chained.exists():
                    raise Conflict(
                        f"{target} and {chained} both exist and neither is hearth's; "
                        "merge them into one hook and run 'hearth hooks install' again"
                    )
                target.rename(chained)
        temp = folder / f".{name}.hearth-new"
        temp.write_text(text)
        temp.chmod(0o755)
        temp.replace(target)
        installed.append(name)
    return installed


def install(root: Path, interpreter: str) -> list[str]:
    """``hearth hooks install``: the merge driver, then the shims."""
    register_merge_driver(root, interpreter)
    return install_hooks(root, interpreter)
