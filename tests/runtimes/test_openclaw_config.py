"""What ``hearth setup openclaw`` changes in openclaw.json, and what ``--remove``
puts back (``runtimes/openclaw_config.py``; the real OpenClaw: tests/e2e/test_openclaw.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from hearth.errors import InvalidInput
from hearth.runtimes import openclaw_config as oc

HOME = "/home/pat/.hearth/home"
HEARTH = "/opt/bin/hearth"
ARGV = [HEARTH, "--home", HOME, "mcp", "--scope", "write"]

ORIGINALS: list[dict[str, Any]] = [
    {},
    {"agents": {"defaults": {"workspace": "/home/pat/.openclaw/workspace", "model": "x/y"}}},
    {
        "plugins": {
            "slots": {"memory": "memory-core"},
            "entries": {"memory-core": {"enabled": True, "config": {"dreaming": {}}}},
        },
        "mcp": {"servers": {"docs": {"command": "docs-mcp"}}},
        "gateway": {"port": 18789},
    },
    {"plugins": {"entries": {"brave": {"enabled": True}}}, "meta": {"lastTouchedVersion": "x"}},
]


def _setup(config: dict[str, Any]) -> dict[str, Any]:
    after: dict[str, Any] = oc.merge_patch(config, oc.setup_plan(config, HOME, HEARTH, ARGV).patch)
    return after


@pytest.mark.parametrize("original", ORIGINALS)
def test_setup_then_remove_gives_back_the_file(original: dict[str, Any]) -> None:
    before = copy.deepcopy(original)
    after = _setup(original)
    assert original == before  # pure
    assert oc.get_in(after, ("agents", "defaults", "workspace")) == HOME
    assert oc.get_in(after, ("plugins", "slots", "memory")) == oc.PLUGIN_ID
    assert oc.get_in(after, ("plugins", "entries", oc.PLUGIN_ID)) == {
        "enabled": True,
        "config": {"home": HOME, "hearth": HEARTH},
    }
    assert oc.get_in(after, ("plugins", "entries", "memory-core", "enabled")) is False
    assert oc.get_in(after, ("mcp", "servers", "hearth")) == {"command": HEARTH, "args": ARGV[1:]}
    # Every key hearth does not own is kept as it was.
    for key in ("gateway", "meta"):
        assert after.get(key) == original.get(key)
    if "docs" in str(original):
        assert after["mcp"]["servers"]["docs"] == {"command": "docs-mcp"}
        assert after["plugins"]["entries"]["memory-core"]["config"] == {"dreaming": {}}
    # A second setup changes nothing.
    assert not oc.setup_plan(after, HOME, HEARTH, ARGV).changed
    # Remove, with what setup kept, gives the original back exactly.
    saved = oc.saved_from(original)
    back = oc.merge_patch(after, oc.remove_plan(after, saved, HOME).patch)
    assert back == original


def test_remove_after_openclaws_uninstall_reset_the_slot() -> None:
    after = _setup({})
    # openclaw plugins uninstall: the slot back to the default, a marker entry left.
    uninstalled = copy.deepcopy(after)
    uninstalled["plugins"]["slots"]["memory"] = "memory-core"
    uninstalled["plugins"]["entries"][oc.PLUGIN_ID] = {"enabled": False}
    plan = oc.remove_plan(uninstalled, oc.saved_from({}), HOME, held_slot=oc.holds_slot(after))
    assert oc.merge_patch(uninstalled, plan.patch) == {}


def test_a_value_changed_since_setup_is_left_alone() -> None:
    after = _setup({})
    after["agents"]["defaults"]["workspace"] = "/elsewhere"
    after["agents"]["defaults"]["thinking"] = "low"
    back = oc.merge_patch(after, oc.remove_plan(after, oc.saved_from({}), HOME).patch)
    assert back == {"agents": {"defaults": {"workspace": "/elsewhere", "thinking": "low"}}}


@pytest.mark.parametrize("slot", ["memory-lancedb", "none", "memory-wiki"])
def test_another_memory_plugin_in_the_slot_is_refused(slot: str) -> None:
    config = {"plugins": {"slots": {"memory": slot}}}
    with pytest.raises(InvalidInput, match=f"holds '{slot}'.*memory-core.*nothing was changed"):
        oc.setup_plan(config, HOME, HEARTH, ARGV)


def test_the_default_slot_or_hearths_own_is_taken() -> None:
    for slot in ("memory-core", oc.PLUGIN_ID):
        assert oc.setup_plan({"plugins": {"slots": {"memory": slot}}}, HOME, HEARTH, ARGV)


def test_scope_and_a_moved_home_update_hearths_entries() -> None:
    after = _setup({})
    read_only = [HEARTH, "--home", "/moved", "mcp", "--scope", "read"]
    plan = oc.setup_plan(after, "/moved", HEARTH, read_only)
    moved = oc.merge_patch(after, plan.patch)
    assert moved["mcp"]["servers"]["hearth"]["args"][-1] == "read"
    assert moved["plugins"]["entries"][oc.PLUGIN_ID]["config"]["home"] == "/moved"
    assert moved["agents"]["defaults"]["workspace"] == "/moved"


def test_versions() -> None:
    assert oc.parse_version("OpenClaw 2026.9.6 (eb377ac)") == (2026, 9, 6)
    assert oc.parse_version("2026.9.6") is None
    assert oc.parse_version("OpenClaw 2026.10.1") > oc.MIN_VERSION  # type: ignore[operator]
    assert oc.parse_version("OpenClaw 2026.3.24") < oc.MIN_VERSION  # type: ignore[operator]


def test_merge_patch_is_rfc_7386() -> None:
    document = {"a": "b", "c": {"d": "e", "f": "g"}}
    patch = {"a": "z", "c": {"f": None}}
    assert oc.merge_patch(document, patch) == {"a": "z", "c": {"d": "e"}}
    assert oc.merge_patch({"a": [1]}, {"a": [2]}) == {"a": [2]}
