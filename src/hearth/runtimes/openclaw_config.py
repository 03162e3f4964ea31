"""OpenClaw's configuration as ``hearth setup openclaw`` changes it (pure).

What hearth owns in ``openclaw.json`` and nothing else:

- ``agents.defaults.workspace``: the home (so OpenClaw's bootstrap files,
  AGENTS.md, SOUL.md, IDENTITY.md, USER.md and MEMORY.md, are the home's);
- ``plugins.slots.memory``: ``hearth-memory``, the plugin hearth ships
  (``src/hearth/openclaw_plugin/``), with ``plugins.entries.hearth-memory``
  (enabled, its ``home`` and ``hearth`` executable);
- ``plugins.entries.memory-core.enabled``: false while hearth holds the slot
  (OpenClaw's default memory plugin registers the same tool names, and two
  owners of ``memory_search`` make OpenClaw skip the second);
- ``mcp.servers.hearth``: hearth's stdio MCP server.

Setup takes the slot only from OpenClaw's default (``memory-core``, or no
value); another memory plugin in the slot is the person's choice and is
refused. What setup replaces (the workspace, the slot, memory-core's
``enabled``) is kept in the home's own state so that ``--remove`` puts it
back. Changes are computed as one JSON merge patch (RFC 7386: objects merge,
``null`` deletes), which ``openclaw config patch`` applies and validates as one
write.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any

from hearth.errors import InvalidInput
from hearth.runtimes.known import get_in

PLUGIN_ID = "hearth-memory"
#: OpenClaw's own memory plugin: the slot's default, the only owner setup replaces.
DEFAULT_MEMORY = "memory-core"
#: The oldest OpenClaw hearth's plugin is built and tested against.
MIN_VERSION = (2026, 9, 6)
SERVER_NAME = "hearth"
_VERSION = re.compile(r"\bOpenClaw\s+v?(\d+)\.(\d+)\.(\d+)")

_WORKSPACE = ("agents", "defaults", "workspace")
_SLOT = ("plugins", "slots", "memory")
_ENTRY = ("plugins", "entries", PLUGIN_ID)
_CORE_ENABLED = ("plugins", "entries", DEFAULT_MEMORY, "enabled")
_SERVER = ("mcp", "servers", SERVER_NAME)


def parse_version(text: str) -> tuple[int, int, int] | None:
    """``OpenClaw 2026.9.6 (eb377ac)`` as (2026, 9, 6)."""
    found = _VERSION.search(text)
    if found is None:
        return None
    return int(found[1]), int(found[2]), int(found[3])


def shown_version(version: tuple[int, ...]) -> str:
    return ".".join(map(str, version))


@dataclass(frozen=True)
class Saved:
    """What setup replaced, kept in the home's state for ``--remove``
    (None: the key was absent)."""

    workspace: str | None
    memory_slot: str | None
    memory_core_enabled: bool | None

    def as_dict(self) -> dict[str, object]:
        return {
            "workspace": self.workspace,
            "memory_slot": self.memory_slot,
            "memory_core_enabled": self.memory_core_enabled,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Saved:
        workspace, slot = data.get("workspace"), data.get("memory_slot")
        enabled = data.get("memory_core_enabled")
        return cls(
            workspace if isinstance(workspace, str) else None,
            slot if isinstance(slot, str) else None,
            enabled if isinstance(enabled, bool) else None,
        )


@dataclass(frozen=True)
class Plan:
    """One merge patch of ``openclaw.json`` and what it does, line by line."""

    patch: dict[str, Any]
    steps: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return bool(self.patch)


def _put(patch: dict[str, Any], key: tuple[str, ...], value: object) -> None:
    node = patch
    for part in key[:-1]:
        node = node.setdefault(part, {})
    node[key[-1]] = value


def plugin_entry(home: str, hearth: str) -> dict[str, Any]:
    return {"enabled": True, "config": {"home": home, "hearth": hearth}}


def server_entry(argv: list[str]) -> dict[str, Any]:
    return {"command": argv[0], "args": list(argv[1:])}


def saved_from(config: dict[str, Any]) -> Saved:
    """What the values setup replaces are now."""
    workspace, slot = get_in(config, _WORKSPACE), get_in(config, _SLOT)
    enabled = get_in(config, _CORE_ENABLED)
    return Saved(
        workspace if isinstance(workspace, str) else None,
        slot if isinstance(slot, str) else None,
        enabled if isinstance(enabled, bool) else None,
    )


def check_slot(config: dict[str, Any]) -> None:
    """Refuse a memory slot held by anything but OpenClaw's default or hearth."""
    slot = get_in(config, _SLOT)
    if slot in (None, DEFAULT_MEMORY, PLUGIN_ID):
        return
    raise InvalidInput(
        f"OpenClaw's memory slot (plugins.slots.memory) holds {slot!r}: hearth takes the "
        f"slot only from OpenClaw's default memory plugin, {DEFAULT_MEMORY}, and leaves "
        "another choice of yours alone. To use hearth's memory instead, put the default "
        f"back (openclaw config set plugins.slots.memory {DEFAULT_MEMORY}) and run setup "
        "again; nothing was changed"
    )


def setup_plan(config: dict[str, Any], home: str, hearth: str, argv: list[str]) -> Plan:
    """The patch that points OpenClaw at the home (empty when it already is)."""
    check_slot(config)
    patch: dict[str, Any] = {}
    steps = []
    if get_in(config, _WORKSPACE) != home:
        _put(patch, _WORKSPACE, home)
        was = get_in(config, _WORKSPACE)
        steps.append(f"agents.defaults.workspace: {home}" + (f" (was {was})" if was else ""))
    if get_in(config, _SLOT) != PLUGIN_ID:
        _put(patch, _SLOT, PLUGIN_ID)
        steps.append(f"plugins.slots.memory: {PLUGIN_ID} (was {DEFAULT_MEMORY})")
    entry = plugin_entry(home, hearth)
    found = get_in(config, _ENTRY)
    if not isinstance(found, dict) or any(found.get(k) != v for k, v in entry.items()):
        _put(patch, _ENTRY, entry)
        steps.append(f"plugins.entries.{PLUGIN_ID}: enabled, home {home}")
    if get_in(config, _CORE_ENABLED) is not False:
        _put(patch, _CORE_ENABLED, False)
        steps.append(f"plugins.entries.{DEFAULT_MEMORY}.enabled: false (hearth answers memory)")
    server = server_entry(argv)
    found = get_in(config, _SERVER)
    if not isinstance(found, dict) or any(found.get(k) != v for k, v in server.items()):
        _put(patch, _SERVER, server)
        steps.append(f"mcp.servers.{SERVER_NAME}: {' '.join(argv)}")
    return Plan(patch, tuple(steps))


def holds_slot(config: dict[str, Any]) -> bool:
    return get_in(config, _SLOT) == PLUGIN_ID


def remove_plan(
    config: dict[str, Any], saved: Saved | None, home: str, held_slot: bool | None = None
) -> Plan:
    """The patch that takes hearth out and puts back what setup replaced (a value
    someone changed since setup is theirs, and stays). ``held_slot``: whether
    hearth's plugin held the slot before ``openclaw plugins uninstall`` reset it
    to the default (else read from ``config``)."""
    saved = saved or Saved(None, None, None)
    patch: dict[str, Any] = {}
    steps = []
    if get_in(config, _WORKSPACE) == home:
        _put(patch, _WORKSPACE, saved.workspace)
        steps.append(f"agents.defaults.workspace: {saved.workspace or 'unset (the default)'}")
    held = holds_slot(config) if held_slot is None else held_slot
    if held and get_in(config, _SLOT) != saved.memory_slot:
        _put(patch, _SLOT, saved.memory_slot)
        steps.append(f"plugins.slots.memory: {saved.memory_slot or 'unset (memory-core)'}")
    if get_in(config, _ENTRY) is not None:
        _put(patch, _ENTRY, None)
        steps.append(f"plugins.entries.{PLUGIN_ID}: removed")
    if get_in(config, _CORE_ENABLED) is False and saved.memory_core_enabled is not False:
        _put(patch, _CORE_ENABLED, saved.memory_core_enabled)
        what = "unset" if saved.memory_core_enabled is None else "true"
        steps.append(f"plugins.entries.{DEFAULT_MEMORY}.enabled: {what}")
    if get_in(config, _SERVER) is not None:
        _put(patch, _SERVER, None)
        steps.append(f"mcp.servers.{SERVER_NAME}: removed")
    return Plan(_pruned(config, patch), tuple(steps))


def _pruned(config: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``patch`` that also deletes each object its deletions leave empty (hearth
    made them: ``plugins.slots``, ``mcp.servers``, memory-core's entry), up to but
    not including the top level."""
    after = merge_patch(config, patch)
    out = copy.deepcopy(patch)
    for key in (_WORKSPACE, _SLOT, _ENTRY, _CORE_ENABLED, _SERVER):
        for depth in range(len(key) - 1, 0, -1):
            parent = key[:depth]
            if get_in(config, parent) is not None and get_in(after, parent) == {}:
                _put(out, parent, None)
                after = merge_patch(config, out)
    return out


def merge_patch(document: object, patch: object) -> Any:
    """``document`` with the JSON merge patch applied (RFC 7386)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = copy.deepcopy(document) if isinstance(document, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out
