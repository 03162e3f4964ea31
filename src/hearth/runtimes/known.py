"""Agent runtimes as data: where each keeps its MCP servers and hooks, and how
hearth's entries look there (docs/runtimes.md).

One ``Runtime`` declaration per runtime; ``hearth setup`` and ``hearth
agent-hook`` loop over what these declare and never ask "which runtime is
this?" in an if/else. The functions below are pure: a settings document (the
parsed JSON of a runtime's file) in, a new document out. hearth owns exactly
two things in a runtime's configuration: the MCP server named ``hearth`` and
the hook handlers whose command runs ``agent-hook <runtime> <event>``; every
other key, server and hook is left as it was.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import shlex
from dataclasses import dataclass
from typing import Any, Literal

#: The name hearth's MCP server is registered under, in every runtime.
SERVER_NAME = "hearth"

Event = Literal["session-start", "prompt"]
EVENTS: tuple[Event, ...] = ("session-start", "prompt")
Format = Literal["json", "jsonc", "toml"]
EntryStyle = Literal["claude", "plain", "opencode"]


@dataclass(frozen=True)
class McpSpec:
    """Where a runtime keeps its MCP servers and how it registers one."""

    file: str  # relative to the person's home folder ($HOME)
    format: Format
    key: tuple[str, ...]  # the path of hearth's entry in that file
    style: EntryStyle
    #: The runtime's own CLI commands (``{command}`` and ``{args}`` filled in), or
    #: () when the runtime has no such command and hearth writes the file.
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()


@dataclass(frozen=True)
class HookSpec:
    """One of hearth's two hooks in a runtime."""

    event: Event
    runtime_event: str  # the runtime's name for it (the key under "hooks")
    matcher: str | None
    timeout: int  # in the runtime's unit (seconds or milliseconds)


@dataclass(frozen=True)
class Runtime:
    name: str  # the RUNTIME argument of hearth setup / agent-hook
    title: str
    executable: str  # the runtime's CLI, looked up on PATH
    mcp: McpSpec
    hooks_file: str | None = None  # relative to $HOME; None: no shell hooks
    hooks: tuple[HookSpec, ...] = ()
    #: Characters of the session-start and prompt contexts (the runtime shows
    #: about this much whole; see docs/runtimes.md, "Limits").
    session_chars: int = 9_000
    recall_chars: int = 2_500
    #: Gemini wraps hook context in <hook_context> and repeats it in the prompt.
    strips_hook_context: bool = False
    #: What a person still has to do after setup (``--trust`` drops the first
    #: of Codex's, which ``trust_note`` marks).
    todo: tuple[str, ...] = ()
    trust_note: str | None = None


_CLAUDE_MATCHER = "startup|resume|clear|compact"

RUNTIMES: dict[str, Runtime] = {
    r.name: r
    for r in (
        Runtime(
            "claude-code",
            "Claude Code",
            "claude",
            McpSpec(
                ".claude.json",
                "json",
                ("mcpServers", SERVER_NAME),
                "claude",
                add=("mcp", "add", "-s", "user", SERVER_NAME, "--", "{command}", "{args}"),
                remove=("mcp", "remove", "-s", "user", SERVER_NAME),
            ),
            ".claude/settings.json",
            (
                HookSpec("session-start", "SessionStart", _CLAUDE_MATCHER, 30),
                HookSpec("prompt", "UserPromptSubmit", None, 15),
            ),
            todo=("start a new Claude Code session: the hooks and the server load at start",),
        ),
        Runtime(
            "codex",
            "Codex",
            "codex",
            McpSpec(
                ".codex/config.toml",
                "toml",
                ("mcp_servers", SERVER_NAME),
                "plain",
                add=("mcp", "add", SERVER_NAME, "--", "{command}", "{args}"),
                remove=("mcp", "remove", SERVER_NAME),
            ),
            ".codex/hooks.json",
            (
                HookSpec("session-start", "SessionStart", "startup|resume|clear", 30),
                HookSpec("prompt", "UserPromptSubmit", None, 15),
            ),
            todo=(
                "approve hearth's two hooks in Codex's /hooks (Codex skips untrusted hooks "
                "silently), or run setup again with --trust",
            ),
            trust_note="approve hearth's two hooks",
        ),
        Runtime(
            "gemini",
            "Gemini CLI",
            "gemini",
            McpSpec(
                ".gemini/settings.json",
                "json",
                ("mcpServers", SERVER_NAME),
                "plain",
                add=("mcp", "add", "-s", "user", SERVER_NAME, "{command}", "--", "{args}"),
                remove=("mcp", "remove", "-s", "user", SERVER_NAME),
            ),
            ".gemini/settings.json",
            (
                HookSpec("session-start", "SessionStart", None, 30_000),
                HookSpec("prompt", "BeforeAgent", None, 15_000),
            ),
            strips_hook_context=True,
            todo=(
                "trust the folder you run gemini in (Gemini CLI starts MCP servers only "
                "in a trusted folder)",
            ),
        ),
        Runtime(
            "cursor",
            "Cursor",
            "cursor",
            McpSpec(".cursor/mcp.json", "json", ("mcpServers", SERVER_NAME), "plain"),
            todo=("enable the hearth server in Cursor's MCP settings if Cursor asks",),
        ),
        Runtime(
            "opencode",
            "OpenCode",
            "opencode",
            McpSpec(".config/opencode/opencode.jsonc", "jsonc", ("mcp", SERVER_NAME), "opencode"),
        ),
    )
}


def server_argv(executable: str, home: str, scope: str) -> list[str]:
    """The command line of hearth's stdio MCP server."""
    return [executable, "--home", home, "mcp", "--scope", scope]


def mcp_entry(runtime: Runtime, argv: list[str]) -> dict[str, Any]:
    """hearth's MCP entry as the runtime's file holds it."""
    if runtime.mcp.style == "opencode":
        return {"type": "local", "command": list(argv)}
    entry: dict[str, Any] = {"command": argv[0], "args": list(argv[1:])}
    if runtime.mcp.style == "claude":
        return {"type": "stdio", **entry, "env": {}}
    return entry


def mcp_matches(runtime: Runtime, found: object, argv: list[str]) -> bool:
    """Whether the entry ``found`` already runs ``argv`` (extra keys a person or
    the runtime added, such as ``env`` or ``enabled``, do not count)."""
    if not isinstance(found, dict):
        return False
    wanted = mcp_entry(runtime, argv)
    return all(found.get(k) == v for k, v in wanted.items() if v != {})


def mcp_add_argv(runtime: Runtime, argv: list[str]) -> list[str]:
    """The runtime's own command that registers ``argv`` as hearth's server."""
    out = [runtime.executable]
    for part in runtime.mcp.add:
        if part == "{command}":
            out.append(argv[0])
        elif part == "{args}":
            out.extend(argv[1:])
        else:
            out.append(part)
    return out


def get_in(document: dict[str, Any], key: tuple[str, ...]) -> object:
    node: object = document
    for part in key:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def set_in(document: dict[str, Any], key: tuple[str, ...], value: object) -> dict[str, Any]:
    """A copy of ``document`` with ``value`` at ``key`` (tables made as needed)."""
    out = copy.deepcopy(document)
    node = out
    for part in key[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = {}
            node[part] = child
        node = child
    node[key[-1]] = value
    return out


def delete_in(document: dict[str, Any], key: tuple[str, ...]) -> dict[str, Any]:
    """A copy of ``document`` without ``key`` (the tables above it are kept)."""
    out = copy.deepcopy(document)
    node: object = out
    for part in key[:-1]:
        if not isinstance(node, dict):
            return out
        node = node.get(part)
    if isinstance(node, dict):
        node.pop(key[-1], None)
    return out


# -- hooks ------------------------------------------------------------------------


def hook_command(executable: str, home: str, runtime: Runtime, event: Event) -> str:
    """The shell command a runtime runs for one of hearth's hooks."""
    return shlex.join([executable, "--home", home, "agent-hook", runtime.name, event])


def _ours(runtime: Runtime) -> re.Pattern[str]:
    return re.compile(rf"\bagent-hook\s+{re.escape(runtime.name)}\s+(session-start|prompt)\b")


def is_ours(runtime: Runtime, handler: object) -> bool:
    """Whether a hook handler is one of hearth's (whatever executable it names)."""
    if not isinstance(handler, dict):
        return False
    command = handler.get("command")
    return isinstance(command, str) and _ours(runtime).search(command) is not None


def hook_group(spec: HookSpec, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {} if spec.matcher is None else {"matcher": spec.matcher}
    group["hooks"] = [{"type": "command", "command": command, "timeout": spec.timeout}]
    return group


def add_hooks(
    runtime: Runtime, settings: dict[str, Any], commands: dict[Event, str]
) -> dict[str, Any]:
    """``settings`` with hearth's hooks in place: a group of hearth's own that is
    already there is updated where it stands (Codex's trust is keyed by
    position), a handler of hearth's inside a person's group is moved out to a
    group of its own, and a missing one is appended after the person's hooks."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        hooks = {}
        out["hooks"] = hooks
    for spec in runtime.hooks:
        wanted = hook_group(spec, commands[spec.event])
        groups = hooks.get(spec.runtime_event)
        if not isinstance(groups, list):
            groups = []
            hooks[spec.runtime_event] = groups
        placed = False
        for i, group in enumerate(list(groups)):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list) or not any(is_ours(runtime, h) for h in handlers):
                continue
            if all(is_ours(runtime, h) for h in handlers) and not placed:
                groups[i] = wanted
                placed = True
            else:
                group["hooks"] = [h for h in handlers if not is_ours(runtime, h)]
        groups[:] = [g for g in groups if not _emptied(g)]
        if not placed:
            groups.append(wanted)
    return out


def remove_hooks(runtime: Runtime, settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without any of hearth's hook handlers; a group, event list or
    ``hooks`` table left empty by that goes too."""
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    emptied = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        touched = False
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(is_ours(runtime, h) for h in handlers):
                group["hooks"] = [h for h in handlers if not is_ours(runtime, h)]
                touched = True
        if touched:
            groups[:] = [g for g in groups if not _emptied(g)]
            if not groups:
                del hooks[event]
                emptied = True
    if not hooks and emptied:
        del out["hooks"]
    return out


def _emptied(group: object) -> bool:
    return isinstance(group, dict) and group.get("hooks") == []


def hook_positions(runtime: Runtime, settings: dict[str, Any]) -> list[tuple[HookSpec, int, int]]:
    """Where hearth's handlers stand: (hook, group index, handler index)."""
    found = []
    hooks = settings.get("hooks")
    for spec in runtime.hooks:
        groups = hooks.get(spec.runtime_event) if isinstance(hooks, dict) else None
        for i, group in enumerate(groups if isinstance(groups, list) else []):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for j, handler in enumerate(handlers if isinstance(handlers, list) else []):
                if is_ours(runtime, handler):
                    found.append((spec, i, j))
    return found


# -- Codex's trust -----------------------------------------------------------------


def codex_event(runtime_event: str) -> str:
    """Codex's snake_case name of an event (``UserPromptSubmit``: ``user_prompt_submit``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", runtime_event).lower()


def codex_trust_key(hooks_path: str, spec: HookSpec, group: int, handler: int) -> str:
    return f"{hooks_path}:{codex_event(spec.runtime_event)}:{group}:{handler}"


def codex_trust_hash(spec: HookSpec, handler: dict[str, Any]) -> str:
    """The hash Codex compares with a hook's ``trusted_hash``: SHA-256 of the
    compact JSON, keys sorted, of the hook's identity (its event, its matcher
    when it has one, and the one handler with Codex's defaults filled in).
    Checked against ``codex app-server``'s ``hooks/list`` (tests/e2e)."""
    identity: dict[str, Any] = {
        "event_name": codex_event(spec.runtime_event),
        "hooks": [
            {
                "async": bool(handler.get("async", False)),
                "command": handler["command"],
                "timeout": handler.get("timeout", 600),
                "type": "command",
            }
        ],
    }
    if spec.matcher is not None:
        identity["matcher"] = spec.matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
