"""The ``hearth`` command line: a thin shell over the application's use cases.

Each command parses its arguments, makes one call on the use cases
(``hearth.app``, built by ``wiring``) and renders the answer. Exit statuses:
0 done, 1 refused (validation, conflict, not found, bad path) with the reason
on stderr, 2 usage. Every command that prints data takes ``--json``. This
package and ``api/problems.py`` are the only places that turn errors into
statuses. The commands live by topic (each imported only when it runs:
``support.COMMAND_MODULES``): ``home`` (the home as a whole),
``records`` (notes, proposals, loops, files), ``memory`` (entries, topics,
reflection), ``running`` (serve, watch, context, sync, review, hooks) and
``mcp``; ``support`` holds the group and what they share.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from hearth.cli import support
from hearth.cli.support import is_light
from hearth.domain.text import shown
from hearth.errors import HearthError

__all__ = ["cli", "git_main", "main"]


def __getattr__(name: str) -> click.Group:
    """``cli``: the group with every command registered (a run registers only its
    own: ``support.COMMAND_MODULES``)."""
    if name != "cli":
        raise AttributeError(name)
    support.load_commands()
    return support.cli


def _run(argv: Sequence[str] | None, default_map: dict[str, Any] | None = None) -> int:
    try:
        support.cli.main(
            args=list(argv) if argv is not None else None,
            prog_name="hearth",
            standalone_mode=False,
            default_map=default_map,
            terminal_width=_help_width(),
        )
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        click.echo("hearth: aborted", err=True)
        return 1
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except HearthError as exc:
        click.echo(f"hearth: {shown(exc.message)}", err=True)
        return 1
    except OSError as exc:
        click.echo(f"hearth: {exc}", err=True)
        return 1
    except Exception as exc:
        from hearth.store.repository import GitError  # noqa: PLC0415  (pygit2 is slow to import)

        if not isinstance(exc, GitError):
            raise
        click.echo(f"hearth: {exc}", err=True)
        return 1
    return 0


def _help_width() -> int:
    """The width click's help formatter takes, without the ``shutil`` import it would
    make for it (``shutil`` loads the compression modules: start-up for nothing)."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return max(min(columns or 80, 80) - 2, 50)


def main(argv: Sequence[str] | None = None) -> None:
    _leave(_started(argv))


def git_main(argv: Sequence[str] | None = None) -> None:
    """``git hearth ...``: the same command line, finding the home the same way
    (``--home``, ``HEARTH_HOME``, the home holding the current folder, the default)."""
    _leave(_started(argv))


def _started(argv: Sequence[str] | None) -> int:
    """``_run`` as the entry points run it: without the cyclic garbage collector
    until the command turns out to do real work (``support.heavy``). A light
    command's few thousand objects die with the process; collecting them while
    it imports costs about a tenth of its start-up (docs/cli.md, "Start-up")."""
    gc.disable()
    return _run(argv)


def _leave(code: int) -> NoReturn:
    """Exit with ``code``. A light run (see ``support._Run``) leaves at once once
    its output is flushed: the interpreter's teardown (freeing every module, a
    last collection) would cost it another tenth, and it holds nothing to close.
    Anything still running or registered to run at exit gets the normal exit."""
    if is_light() and _nothing_left_to_run():
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):
            sys.exit(code)  # a closed pipe: reported as the interpreter always does
        os._exit(code)
    sys.exit(code)


def _nothing_left_to_run() -> bool:
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return False
    import atexit  # noqa: PLC0415  (built in: free)

    count = getattr(atexit, "_ncallbacks", None)
    return count is None or count() == 0
