"""The reads a person (or a script) runs most, beside the home's running server,
without click or the CLI: ``hearth --home H status [--json]``, ``get PATH
[--json]``, ``search QUERY [--json]`` and ``context [--session S] [--query Q]
[--json]``. The same requests as the commands' (``cli/home.py``, ``cli/files.py``,
``cli/running.py``), and the answer printed by the same code
(``client/printed.py``).

Beside a server each of these is one or two requests: loading click, the CLI
and the store to make them was most of the command's time, as it was for the
prompt hook (``client/hook.py``) and the writes (``client/write.py``). Anything
it does not take as it is goes to the CLI, which answers as before: another
shape of arguments (``--verbose``, ``--limit``, ``--rev``, ``--explain``...), a
home not named plainly, no running server, or an answer this path does not
print itself (a refusal, a server whose index is behind the files, a file
holding an escape sequence).
"""

from __future__ import annotations

import json
import os
import sys

from hearth.client import printed, transport
from hearth.client.write import LOCAL_TOKEN_PREFIX, _inside, _quoted, _root

TYPE_CHECKING = False  # typing's own costs the start-up this path is for
if TYPE_CHECKING:
    from typing import Any

#: What ``status`` shows, whoever computes it (a server adds its own parts).
STATUS_KEYS = (
    "home",
    "branch",
    "head",
    "dirty",
    "changes",
    "pending_proposals",
    "open_loops",
    "active_decisions",
    "index",
    "sync",
    "conflicts",
    "reflection",
    "runtimes",
)
#: What ``status`` says of the server, from its record (``server.json``).
SERVER_KEYS = ("pid", "url", "mode", "started", "uds")
#: The keys of a search's answer (``hearth search --json``).
SEARCH_KEYS = ("ranking", "vectors", "left_out", "nearest", "hits")
#: The keys of a context bundle (``/v1/context``, ``hearth context --json``).
BUNDLE_KEYS = ("session", "truncated", "total_chars", "files", "query", "recall")
#: Each command's options: those that take a value, and those that do not.
_OPTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...], int]] = {
    # command: (options with a value, flags, positional words)
    "status": ((), ("--json",), 0),
    "get": ((), ("--json",), 1),
    "search": ((), ("--json",), 1),
    "context": (("--session", "--query", "-q"), ("--json",), 0),
}


def shape(home: str | None, actor: str | None, rest: list[str]) -> dict[str, Any] | None:
    """The read when ``rest`` (what follows the global options) is one of this
    path's commands in a shape it takes, and a home is named plainly; None for
    anything else (the CLI parses it)."""
    if home is None or not rest or rest[0] not in _OPTIONS:
        return None
    root = _root(home)
    if root is None or any(part in ("", ".", "..") for part in root.split("/")[1:]):
        return None  # not spelled as pathlib would name it: the CLI names it
    command = rest[0]
    valued, flags, words = _OPTIONS[command]
    given: list[str] = []
    options: dict[str, str] = {}
    args = rest[1:]
    while args:
        arg = args.pop(0)
        name = "--query" if arg == "-q" else arg
        if arg in flags and arg not in options:
            options[arg] = ""
        elif arg in valued and name not in options and args:
            options[name] = args.pop(0)
        elif not arg.startswith("-") and len(given) < words:
            given.append(arg)
        else:
            return None
    if len(given) != words:
        return None
    asked: dict[str, Any] = {
        "command": command,
        "root": root,
        "actor": actor or os.environ.get("HEARTH_ACTOR") or "cli",
        "json": "--json" in options,
    }
    if command == "get":
        path = given[0]
        if not path or os.path.isabs(path) or _inside(root):  # noqa: PTH117
            return None  # a path the CLI reads from the working folder (``home_path``)
        asked["path"] = f"/v1/files/{_quoted(path)}"
    elif command == "search":
        asked["path"] = _query("/v1/search", {"q": given[0], "limit": 10})
    elif command == "context":
        session = options.get("--session", "main")
        if session not in ("main", "subagent"):
            return None  # the CLI refuses it in click's words
        asked["path"] = _query("/v1/context", {"session": session, "q": options.get("--query")})
    return asked


def _query(path: str, params: dict[str, Any]) -> str:
    """``path`` with the parameters not None (``delegate.query``)."""
    from urllib.parse import urlencode  # noqa: PLC0415  (only once a read is taken)

    given = {name: value for name, value in params.items() if value is not None}
    return f"{path}?{urlencode(given)}" if given else path


def run(asked: dict[str, Any]) -> int | None:
    """Ask the running server and print its answer as the command does: 0, or
    None when this path has no answer to print (the CLI then does the read)."""
    server = transport.find(asked["root"])
    if server is None:
        return None
    command = asked["command"]
    if command == "get":
        return _get(server, asked)
    if command == "search":
        data = _fresh(server, asked["path"], SEARCH_KEYS, says_fresh=True)
        text = None if data is None else printed.search_text(data)
    elif command == "context":
        data = _fresh(server, asked["path"], BUNDLE_KEYS, says_fresh=False)
        text = None if data is None else printed.context_text(data)
    else:
        data = _status(server, asked["root"])
        text = None if data is None else printed.status_text(data)
    if data is None or text is None:
        return None
    _emit(data if asked["json"] else None, text)
    return 0


def _fresh(
    server: transport.Server, path: str, keys: tuple[str, ...], *, says_fresh: bool
) -> dict[str, Any] | None:
    """``delegate.ask``: the server's answer once its index holds the files as
    a pass would leave them (a search says so itself; any other read, the
    status snapshot), waiting ``transport.FRESH_SECONDS`` at most while it catches up."""
    import time  # noqa: PLC0415  (built in: free)

    deadline = time.monotonic() + transport.FRESH_SECONDS
    while True:
        if says_fresh:
            data = transport.get(server, path)
            fresh = data is not None and data.get("fresh") is not False
            catching_up = data is not None and "pending" in str(data.get("stale_reason"))
        else:
            status = transport.get(server, "/v1/status")
            snapshot = (status or {}).get("snapshot")
            fresh = isinstance(snapshot, dict) and bool(snapshot.get("current"))
            catching_up = status is not None
            data = transport.get(server, path) if fresh else None
        if fresh or not catching_up or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if not fresh or data is None or not all(key in data for key in keys):
        return None
    return {key: data[key] for key in keys}


def served_status(served: dict[str, Any], root: str) -> dict[str, Any]:
    """``status``' answer from the server's: its keys, the home as this command
    names it, and each runtime's ``wired`` read from this person's ``$HOME``
    (where ``hearth setup`` wrote their runtimes' configuration), not the
    server's: it may run as another user, or with another HOME."""
    data = {key: served.get(key) for key in STATUS_KEYS}
    data["home"] = root
    rows = data.get("runtimes")
    if isinstance(rows, list):
        from hearth.runtimes.wired import wired_runtimes  # noqa: PLC0415  (status only)

        wired = set(wired_runtimes(root))
        data["runtimes"] = [
            {**row, "wired": row.get("runtime") in wired} if isinstance(row, dict) else row
            for row in rows
        ]
    return data


def server_record(root: str) -> dict[str, Any] | None:
    """Which process serves the home, how it was started and since when
    (``store.server_file.read``: None when its process is gone)."""
    try:
        with open(os.path.join(root, transport.RECORD), "rb") as file:  # noqa: PTH118
            record = json.loads(file.read())
        pid = int(record["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(record, dict) or not transport.alive(pid, record.get("since")):
        return None
    return {key: record.get(key) for key in SERVER_KEYS}


def _status(server: transport.Server, root: str) -> dict[str, Any] | None:
    """The server's status once its snapshot is current, waiting
    ``transport.FRESH_SECONDS`` at most while a pass runs (as ``_fresh``)."""
    import time  # noqa: PLC0415  (built in: free)

    deadline = time.monotonic() + transport.FRESH_SECONDS
    while True:
        served = transport.get(server, "/v1/status")
        snapshot = (served or {}).get("snapshot")
        current = isinstance(snapshot, dict) and bool(snapshot.get("current"))
        if current or served is None or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    if served is None or not current:
        return None
    data = served_status(served, root)
    data["server"] = server_record(root)
    return data


def _get(server: transport.Server, asked: dict[str, Any]) -> int | None:
    """``get PATH``: the file's text as the server reads it from the work tree."""
    import base64  # noqa: PLC0415  (only once a server runs)

    encoded = base64.urlsafe_b64encode(asked["actor"].encode()).decode().rstrip("=")
    headers = {
        "Authorization": f"Bearer {LOCAL_TOKEN_PREFIX}.admin.{encoded}.{server.key}",
        "Accept": "application/json",
    }
    try:
        status, _headers, raw = transport.exchange(
            server, "GET", asked["path"], headers, b"", transport.WRITE_SECONDS
        )
        data = json.loads(raw) if status == 200 else None
    except (OSError, ValueError):
        return None
    content = data.get("content") if isinstance(data, dict) else None
    if not isinstance(content, str) or "\x1b" in content:
        # click drops escape sequences from what it prints to a file or pipe.
        return None
    if asked["json"]:
        _emit(data, "")
    elif sys.stdout.isatty():
        # On a terminal the text is read, not stored: shown visibly (``cli/files.py``).
        sys.stdout.write(_shown(content))
    else:
        sys.stdout.write(content)  # to a file or pipe: the text as it is
    return 0


def _emit(data: dict[str, Any] | None, text: str) -> None:
    """``cli.support._emit``: the JSON when ``data`` is given, else ``text``
    shown visibly; each followed by a newline, as ``click.echo`` prints."""
    if data is not None:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    elif text:
        sys.stdout.write(_shown(text) + "\n")


#: The characters ``str.isprintable`` passes that ``domain.text.shown`` still
#: replaces: its invisible letters and marks (Hangul fillers, Khmer vowels),
#: and the variation selectors and combining grapheme joiner it judges by where
#: they stand. A test holds this alike with ``shown`` over every character.
_PRINTABLE_SHOWN = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


def plain(text: str) -> bool:
    """Whether ``shown`` would print ``text`` as it is, told without loading it."""
    return text.replace("\n", "").replace("\t", "").isprintable() and (
        text.isascii() or _PRINTABLE_SHOWN.isdisjoint(text)
    )


def _shown(text: str) -> str:
    """``domain.text.shown(text)``, loaded (with ``re`` and ``dataclasses``)
    only for text that holds a character it may replace: a text whose every
    character but its lines and tabs is printable, none of them one of
    ``_PRINTABLE_SHOWN``, is shown as it is."""
    if plain(text):
        return text
    from hearth.domain.text import shown  # noqa: PLC0415  (rare: such a character)

    return shown(text)
