"""The ``hearth`` command's entry point: the thin clients without the CLI, else the CLI.

Two commands are run by agent runtimes often enough that loading click and
every command to parse a few arguments is most of their cost:

- ``hearth --home H [--actor A] mcp [--scope S]``, started for every session
  (``hearth setup`` writes exactly that): when the home's server runs, or may
  be started on demand, that session is only a relay (``client/relay.py``);
- ``hearth --home H agent-hook RUNTIME EVENT``, run before every prompt: when
  the home's server runs, one request to it (``client/hook.py``);

and the writes a person or a script makes most, ``hearth --home H note TEXT``
and ``memory add FILE TEXT``, are one request to a running server too
(``client/write.py``), as are the reads ``status``, ``get``, ``search`` and
``context`` in their plain shapes (``client/read.py``).

So those exact shapes (``--home`` given, or ``HEARTH_HOME``) go straight to the
thin client; anything else, and a thin client that cannot answer
(``HEARTH_SERVER=off`` for the relay, not a home, no server, a server that does
not answer), goes to the CLI as before.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing's own costs the hook's start-up
if TYPE_CHECKING:
    from pathlib import Path


def _global_options(args: list[str]) -> tuple[str | None, str | None, list[str]] | None:
    """(home, actor, the rest) of ``args`` when they start with nothing but
    ``--home`` and ``--actor`` (home: ``HEARTH_HOME`` when not given)."""
    home: str | None = os.environ.get("HEARTH_HOME") or None
    actor: str | None = None
    rest = list(args)
    while rest and rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("--home", "--actor") and rest:
            value = rest.pop(0)
        elif flag.startswith(("--home=", "--actor=")):
            flag, _, value = flag.partition("=")
        else:
            return None
        if flag == "--home":
            home = value
        else:
            actor = value
    return home, actor, rest


def _relay_shape(args: list[str]) -> tuple[Path, str, str | None] | None:
    """(home, scope, actor) when ``args`` ask for nothing but a stdio MCP session."""
    parsed = _global_options(args)
    if parsed is None:
        return None
    home, actor, rest = parsed
    scope = "write"
    if not rest or rest[0] != "mcp" or home is None:
        return None
    rest.pop(0)
    if rest and rest[0] == "--scope" and len(rest) == 2:
        scope = rest[1]
    elif rest and len(rest) == 1 and rest[0].startswith("--scope="):
        scope = rest[0].partition("=")[2]
    elif rest:
        return None
    if scope not in ("read", "write", "admin"):
        return None
    from pathlib import Path  # noqa: PLC0415  (not on the hook's path)

    return Path(home).expanduser().absolute(), scope, actor


def _hook_shape(args: list[str]) -> tuple[str, str, str] | None:
    """(home, runtime, event) when ``args`` ask for nothing but ``agent-hook
    RUNTIME EVENT`` (the names are checked by whoever answers)."""
    parsed = _global_options(args)
    if parsed is None:
        return None
    home, _actor, rest = parsed
    if home is None or len(rest) != 3 or rest[0] != "agent-hook":
        return None
    if rest[2] not in ("session-start", "prompt") or rest[1].startswith("-"):
        return None
    home = os.path.expanduser(home)  # noqa: PTH111  (no pathlib on the prompt's path)
    if rest[2] == "session-start":
        # Named in the session text: spelled as the command spells the home.
        from pathlib import Path  # noqa: PLC0415  (not on the prompt's path)

        home = str(Path(home).absolute())
    return home, rest[1], rest[2]


def main() -> None:
    args = sys.argv[1:]
    hook = _hook_shape(args)
    if hook is not None:
        from hearth.client import hook as lean  # noqa: PLC0415  (only the request: lean)

        if lean.run(*hook):
            _leave()
    if hook is None:
        _write(args)
        _read(args)
    shape = _relay_shape(args) if hook is None else None
    if shape is not None:
        from hearth.client import relay  # noqa: PLC0415  (only the relay: lean)

        code = relay.serve_stdio(*shape)
        if code is not None:
            sys.exit(code)
    from hearth.cli import main as cli_main  # noqa: PLC0415  (click and every command)

    cli_main()


def _write(args: list[str]) -> None:
    """``note`` or ``memory add`` beside a running server, as ``client/write.py``
    takes them; returns when that path does not (the CLI does it, as before)."""
    parsed = _global_options(args)
    if parsed is None or not parsed[2] or parsed[2][0] not in ("note", "memory"):
        return
    from hearth.client import write  # noqa: PLC0415  (only the request: lean)

    asked = write.shape(*parsed)
    code = write.run(asked) if asked is not None else None
    if code == 0:
        _leave()
    if code is not None:
        _leave(code)


#: The reads ``client/read.py`` may take.
_READS = ("status", "get", "search", "context")


def _read(args: list[str]) -> None:
    """``status``, ``get``, ``search`` or ``context`` beside a running server, as
    ``client/read.py`` takes them; returns when that path does not (the CLI
    does it, as before)."""
    parsed = _global_options(args)
    if parsed is None or not parsed[2] or parsed[2][0] not in _READS:
        return
    from hearth.client import read  # noqa: PLC0415  (only the request: lean)

    asked = read.shape(*parsed)
    if asked is not None and read.run(asked) == 0:
        _leave()


def _leave(code: int = 0) -> None:
    """Exit with ``code`` once the output is out, without the interpreter's
    teardown (the command's light runs do the same: ``cli._leave``)."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(code)  # a closed pipe: reported as the interpreter always does
    os._exit(code)
