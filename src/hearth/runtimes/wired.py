"""Which runtimes this person wired to a home: those whose MCP configuration
(under the person's home folder, ``$HOME``, where ``hearth setup`` wrote it)
names the home.

``hearth status`` shows it beside a running server too, from the person's
``$HOME`` rather than the server's, so the lean read path (``client/read.py``)
needs it without ``runtimes/known.py``'s imports (dataclasses, shlex, typing):
the files and keys are spelled here, and a test holds them alike with
``known.RUNTIMES``. ``tomllib`` and the JSONC reader load only for a file that
exists in that format.
"""

from __future__ import annotations

import itertools
import json
import os

TYPE_CHECKING = False  # typing's own costs the lean path's start-up
if TYPE_CHECKING:
    from pathlib import Path

#: (runtime, its MCP configuration under $HOME, the file's format, the path of
#: hearth's entry in it), in ``known.RUNTIMES``' order.
MCP_FILES: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("claude-code", ".claude.json", "json", ("mcpServers", "hearth")),
    ("codex", ".codex/config.toml", "toml", ("mcp_servers", "hearth")),
    ("gemini", ".gemini/settings.json", "json", ("mcpServers", "hearth")),
    ("cursor", ".cursor/mcp.json", "json", ("mcpServers", "hearth")),
    ("opencode", ".config/opencode/opencode.jsonc", "jsonc", ("mcp", "hearth")),
)


def wired_runtimes(home: Path | str, user_home: Path | str | None = None) -> list[str]:
    """The runtimes whose MCP configuration (under ``user_home``, default the
    person's ``$HOME``) names the home at ``home``."""
    folder = os.path.expanduser("~") if user_home is None else os.fspath(user_home)  # noqa: PTH111
    found = []
    for runtime, file, form, key in MCP_FILES:
        entry = _mcp_entry(os.path.join(folder, file), form, key)  # noqa: PTH118
        if _names_home(entry, os.fspath(home)):
            found.append(runtime)
    return found


def _names_home(entry: object, home: str) -> bool:
    """Whether an MCP entry's words give ``--home`` exactly ``home`` (a home
    whose path another's begins with, ``~/hearth`` of ``~/hearth-work``, is not
    it)."""
    words: list[str] = []

    def walk(value: object) -> None:
        if isinstance(value, str):
            words.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(entry)
    pairs = itertools.pairwise(words)
    return f"--home={home}" in words or any(a == "--home" and b == home for a, b in pairs)


def _mcp_entry(path: str, form: str, key: tuple[str, ...]) -> object:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        if form == "toml":
            import tomllib  # noqa: PLC0415  (only for a file that exists)

            document = tomllib.loads(text)
        elif form == "jsonc":
            from hearth.runtimes.config_text import strip_jsonc  # noqa: PLC0415  (likewise)

            document = json.loads(strip_jsonc(text)[0])
        else:
            document = json.loads(text)
    except (OSError, ValueError):
        return None
    node: object = document
    for part in key:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node
