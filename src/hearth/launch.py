"""The ``hearth`` command's entry point: the thin relay without the CLI, else the CLI.

A runtime starts ``hearth --home H [--actor A] mcp [--scope S]`` for every
session (``hearth setup`` writes exactly that). When the home's server runs, or
may be started on demand, that session is only a relay (``client/relay.py``),
and loading click and every command to parse four arguments would make each
one twice the size. So those exact shapes (``--home`` given, or
``HEARTH_HOME``) go straight to the relay; anything else, and a relay that
cannot be used (``HEARTH_SERVER=off``, not a home, no server and none may be
started), goes to the CLI as before.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _relay_shape(args: list[str]) -> tuple[Path, str, str | None] | None:
    """(home, scope, actor) when ``args`` ask for nothing but a stdio MCP session."""
    home: str | None = os.environ.get("HEARTH_HOME") or None
    actor: str | None = None
    scope = "write"
    rest = list(args)
    while rest and rest[0] != "mcp":
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
    if not rest or home is None:
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
    return Path(home).expanduser().absolute(), scope, actor


def main() -> None:
    shape = _relay_shape(sys.argv[1:])
    if shape is not None:
        from hearth.client import relay  # noqa: PLC0415  (only the relay: lean)

        code = relay.serve_stdio(*shape)
        if code is not None:
            sys.exit(code)
    from hearth.cli import main as cli_main  # noqa: PLC0415  (click and every command)

    cli_main()
