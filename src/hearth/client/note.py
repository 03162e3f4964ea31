"""``hearth --home H [--actor A] note TEXT [--title T] [--json]`` beside the home's
running server, without click or the CLI: one request, and the answer printed
as the ``note`` command prints it (``cli/records.py``).

A daily note is the write a person (or a script) makes most, and beside a
server the command is nothing but that request: parsing its few arguments with
click, and importing the CLI and the store to reach the server, was most of
its time. Like the prompt hook's path (``client/hook.py``) it loads what
Python starts with, ``json``, ``socket`` and ``base64``. Anything it does not
take as it is (another shape of arguments, no running server, a server that
refuses the connection) is the CLI's, which answers as before; once the server
has the request, its answer (or its silence) is this path's to tell.
"""

from __future__ import annotations

import json
import os
import sys

from hearth.client import transport

TYPE_CHECKING = False  # typing's own costs the start-up this path is for
if TYPE_CHECKING:
    from typing import Any

#: A local token's prefix (``store/server_file.LOCAL_TOKEN_PREFIX``, which the
#: server parses; a test holds the two alike).
LOCAL_TOKEN_PREFIX = "hearth-local"


def shape(home: str | None, actor: str | None, rest: list[str]) -> dict[str, Any] | None:
    """The note's request when ``rest`` (what follows the global options) is
    ``note`` with one TEXT and at most ``--title T`` and ``--json``, each once,
    and a home is named; None for anything else (the CLI parses it)."""
    if home is None or not rest or rest[0] != "note":
        return None
    text: str | None = None
    title: str | None = None
    as_json = False
    args = rest[1:]
    while args:
        arg = args.pop(0)
        if arg == "--json" and not as_json:
            as_json = True
        elif arg == "--title" and title is None and args:
            title = args.pop(0)
        elif arg.startswith("--title=") and title is None:
            title = arg.partition("=")[2]
        elif not arg.startswith("-") and text is None:
            text = arg
        else:
            return None
    if text is None:
        return None
    expanded = os.path.expanduser(home)  # noqa: PTH111  (no pathlib: start-up)
    # As ``wiring.resolve_home`` spells it: ``Path(home).expanduser().absolute()``.
    if not os.path.isabs(expanded):  # noqa: PTH117
        try:
            expanded = os.path.join(os.getcwd(), expanded)  # noqa: PTH109, PTH118
        except OSError:  # the working folder was deleted: the CLI says so
            return None
    root = expanded
    body: dict[str, Any] = {"text": text, **({"title": title} if title is not None else {})}
    return {
        "root": root.rstrip("/") or "/",
        "actor": actor or os.environ.get("HEARTH_ACTOR") or "cli",
        "body": body,
        "json": as_json,
    }


def run(asked: dict[str, Any]) -> int | None:
    """Send the note to the running server and print its answer: the exit status,
    or None when no server took it (the CLI then does what it always did)."""
    server = transport.find(asked["root"])
    if server is None:
        return None
    import base64  # noqa: PLC0415  (only once a server runs)

    encoded = base64.urlsafe_b64encode(asked["actor"].encode()).decode().rstrip("=")
    headers = {
        "Authorization": f"Bearer {LOCAL_TOKEN_PREFIX}.admin.{encoded}.{server.key}",
        "Accept": "application/json",
        "Content-Type": "application/json",
    }
    payload = json.dumps(asked["body"]).encode()
    try:
        status, _headers, raw = transport.exchange(
            server, "POST", "/v1/daily", headers, payload, 600.0
        )
    except (ConnectionRefusedError, FileNotFoundError):
        return None  # nothing was sent
    except OSError as exc:
        sys.stderr.write(
            f"hearth: the home's server at {server.url} took the request but did not answer "
            f"({exc}); see 'git log -1' before trying again\n"
        )
        return 1
    try:
        data = json.loads(raw)
    except ValueError:
        data = {"error": {"message": raw[:200].decode(errors="replace")}}
    data = data if isinstance(data, dict) else {}
    if status != 200:
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        said = message or f"the home's server answered {status}"
        _say(f"hearth: {said}", sys.stderr)
        return 1
    if asked["json"]:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        short = str(data.get("commit") or "")[:12]
        _say(f"appended to {data.get('path')} (commit {short})", sys.stdout)
    return 0


def _say(text: str, stream: Any) -> None:
    """One line as the CLI prints it: what is not plain text shown visibly
    (``text.shown``, loaded only for such a line)."""
    if not text.isascii() or not text.isprintable():
        from hearth.domain.text import shown  # noqa: PLC0415  (rare: not plain ASCII)

        text = shown(text)
    stream.write(text + "\n")
