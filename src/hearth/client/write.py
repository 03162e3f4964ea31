"""The writes a person (or a script) makes most, beside the home's running
server, without click or the CLI: ``hearth --home H [--actor A] note TEXT
[--title T] [--json]`` and ``... memory add FILE TEXT [--section S] [--json]``.
One request, and the answer printed as the command prints it
(``cli/records.py``, ``cli/memory.py``).

Beside a server each command is nothing but that request: parsing its few
arguments with click, and importing the CLI and the store to reach the server,
was most of its time. Like the prompt hook's path (``client/hook.py``) it loads what
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
    """The request when ``rest`` (what follows the global options) is ``note``
    with one TEXT and at most ``--title T`` and ``--json``, or ``memory add`` with
    FILE and TEXT and at most ``--section S`` and ``--json``, each once, and a
    home is named; None for anything else (the CLI parses it)."""
    if home is None or not rest:
        return None
    root = _root(home)
    if root is None:
        return None
    if rest[0] == "note":
        command, option, words = "note", "--title", 1
    elif rest[:2] == ["memory", "add"]:
        command, option, words = "memory add", "--section", 2
    else:
        return None
    parsed = _parse(rest[len(command.split()) :], option, words)
    if parsed is None:
        return None
    given, value, as_json = parsed
    asked: dict[str, Any] = {
        "command": command,
        "root": root,
        "actor": actor or os.environ.get("HEARTH_ACTOR") or "cli",
        "json": as_json,
    }
    if command == "note":
        if not given[0]:
            return None  # the schema would refuse it in its words, not the command's
        asked["path"] = "/v1/daily"
        asked["body"] = {"text": given[0], **({"title": value} if value is not None else {})}
        return asked
    file, text = given
    if not file or os.path.isabs(file) or _inside(root):  # noqa: PTH117
        return None  # a path the CLI reads from the working folder (``home_path``)
    asked["path"] = f"/v1/memory/{_quoted(file)}/entries"
    asked["body"] = {"entry": text, **({"section": value} if value else {})}
    asked["done"] = f"added to {file}" + (f" under '## {value}'" if value else "")
    return asked


def _parse(args: list[str], option: str, words: int) -> tuple[list[str], str | None, bool] | None:
    """(the positional words, ``option``'s value, ``--json``) when ``args`` hold
    exactly ``words`` words, ``option`` and ``--json`` at most once each, and
    nothing else (a word that starts with ``-`` is click's to read)."""
    given: list[str] = []
    value: str | None = None
    seen = as_json = False
    args = list(args)
    while args:
        arg = args.pop(0)
        if arg == "--json" and not as_json:
            as_json = True
        elif arg == option and not seen and args:
            value, seen = args.pop(0), True
        elif arg.startswith(option + "=") and not seen:
            value, seen = arg.partition("=")[2], True
        elif not arg.startswith("-") and len(given) < words:
            given.append(arg)
        else:
            return None
    return (given, value, as_json) if len(given) == words else None


def _root(home: str) -> str | None:
    """The home as ``wiring.resolve_home`` names it (``Path(home).expanduser().absolute()``)."""
    expanded = os.path.expanduser(home)  # noqa: PTH111  (no pathlib: start-up)
    if not os.path.isabs(expanded):  # noqa: PTH117
        try:
            expanded = os.path.join(os.getcwd(), expanded)  # noqa: PTH109, PTH118
        except OSError:  # the working folder was deleted: the CLI says so
            return None
    return expanded.rstrip("/") or "/"


def _inside(root: str) -> bool:
    """Whether the working folder is in the home (a path is then read from it)."""
    try:
        here = os.path.realpath(os.getcwd())  # noqa: PTH109
    except OSError:
        return True
    home = os.path.realpath(root)
    return here == home or here.startswith(home.rstrip("/") + "/")


def _quoted(path: str) -> str:
    """``path`` in a URL, as ``cli.support.quoted`` spells it."""
    if all(c.isascii() and (c.isalnum() or c in "._-/~") for c in path):
        return path
    from urllib.parse import quote  # noqa: PLC0415  (rare: other letters)

    return quote(path, safe="/")


#: What the server refuses as input it does not take: ``memory add`` then does
#: the write (or says why not) itself, as ``cli.support.served_write`` does.
_SAID_HERE = (400, 413, 422)


def run(asked: dict[str, Any]) -> int | None:
    """Send the write to the running server and print its answer: the exit status,
    or None when no server took it, or (``memory add``) it refused the input (the
    CLI then does what it always did)."""
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
            server, "POST", asked["path"], headers, payload, transport.WRITE_SECONDS
        )
    except (ConnectionRefusedError, FileNotFoundError):
        return None  # nothing was sent
    except TimeoutError:
        # Never sent again: a stopped server that resumes still makes the write.
        sys.stderr.write(
            f"hearth: the home's server at {server.url} did not answer in "
            f"{transport.WRITE_SECONDS:.0f} s; it may still write it; check 'hearth status' "
            "and 'git log -1' before trying again\n"
        )
        return 1
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
    note = asked["command"] == "note"
    if status in _SAID_HERE and not note:
        return None
    if status != 200:
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        said = message or f"the home's server answered {status}"
        _say(f"hearth: {said}", sys.stderr)
        return 1
    short = str(data.get("commit") or "")[:12]
    if note:
        line = f"appended to {data.get('path')} (commit {short})"
    else:
        data = {key: data.get(key) for key in ("commit", "path", "changed")} | (
            {"key": data["key"]} if data.get("key") is not None else {}
        )
        done = asked["done"]
        line = f"{done} (commit {short})" if data.get("changed") else f"{done}: nothing changed"
    if asked["json"]:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        _say(line, sys.stdout)
    return 0


def _say(text: str, stream: Any) -> None:
    """One line as the CLI prints it: what is not plain text shown visibly
    (``text.shown``, loaded only for such a line)."""
    if not text.isascii() or not text.isprintable():
        from hearth.domain.text import shown  # noqa: PLC0415  (rare: not plain ASCII)

        text = shown(text)
    stream.write(text + "\n")
