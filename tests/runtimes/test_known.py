"""The runtimes' declarations and the pure merge of hearth's entries into their files."""

from __future__ import annotations

import json
import tomllib
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from hearth.runtimes import agent_context as ac
from hearth.runtimes import config_text as ct
from hearth.runtimes import known as rt

CLAUDE = rt.RUNTIMES["claude-code"]
CODEX = rt.RUNTIMES["codex"]
GEMINI = rt.RUNTIMES["gemini"]
THEIRS = {"type": "command", "command": "echo theirs", "timeout": 5}


def commands(runtime: rt.Runtime, exe: str = "/opt/bin/hearth") -> dict[rt.Event, str]:
    return {e: rt.hook_command(exe, "/h/home", runtime, e) for e in rt.EVENTS}


def test_every_runtime_is_declared_once_with_its_file_and_limits() -> None:
    assert list(rt.RUNTIMES) == ["claude-code", "codex", "gemini", "cursor", "opencode"]
    for runtime in rt.RUNTIMES.values():
        assert runtime.mcp.key[-1] == rt.SERVER_NAME
        assert not runtime.mcp.file.startswith("/")
        assert runtime.session_chars <= 10_000  # what Claude Code and Codex show whole
        assert {h.event for h in runtime.hooks} in (set(), set(rt.EVENTS))


def test_hooks_are_added_after_a_persons_and_taken_out_exactly() -> None:
    settings: dict[str, Any] = {
        "model": "opus",
        "hooks": {"UserPromptSubmit": [{"hooks": [THEIRS]}], "Stop": [{"hooks": [THEIRS]}]},
    }
    added = rt.add_hooks(CLAUDE, settings, commands(CLAUDE))
    assert added["model"] == "opus"
    assert added["hooks"]["UserPromptSubmit"][0] == {"hooks": [THEIRS]}
    ours = added["hooks"]["UserPromptSubmit"][1]["hooks"][0]
    assert ours["command"].endswith("agent-hook claude-code prompt") and ours["timeout"] == 15
    assert added["hooks"]["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert rt.add_hooks(CLAUDE, added, commands(CLAUDE)) == added  # idempotent
    assert rt.remove_hooks(CLAUDE, added) == settings
    assert settings["hooks"]["UserPromptSubmit"] == [{"hooks": [THEIRS]}]  # not mutated


def test_a_moved_executable_is_updated_in_place() -> None:
    first = rt.add_hooks(CODEX, {}, commands(CODEX, "/old/hearth"))
    moved = rt.add_hooks(CODEX, first, commands(CODEX, "/new/hearth"))
    assert [p[1:] for p in rt.hook_positions(CODEX, moved)] == [(0, 0), (0, 0)]
    assert "/new/hearth" in json.dumps(moved) and "/old/hearth" not in json.dumps(moved)
    assert rt.remove_hooks(CODEX, moved) == {}


def test_a_handler_inside_a_persons_group_is_moved_out() -> None:
    ours = {"type": "command", "command": commands(CLAUDE)["prompt"], "timeout": 15}
    mixed = {"hooks": {"UserPromptSubmit": [{"hooks": [THEIRS, ours]}]}}
    added = rt.add_hooks(CLAUDE, mixed, commands(CLAUDE))
    assert added["hooks"]["UserPromptSubmit"][0] == {"hooks": [THEIRS]}
    assert rt.remove_hooks(CLAUDE, mixed) == {"hooks": {"UserPromptSubmit": [{"hooks": [THEIRS]}]}}


def test_hooks_of_another_runtime_are_not_ours() -> None:
    codex_in_claude = rt.add_hooks(CODEX, {}, commands(CODEX))
    assert rt.remove_hooks(CLAUDE, codex_in_claude) == codex_in_claude


def test_mcp_entries_in_each_runtimes_shape() -> None:
    argv = rt.server_argv("/b/hearth", "/h", "read")
    assert rt.mcp_entry(CLAUDE, argv) == {
        "type": "stdio",
        "command": "/b/hearth",
        "args": ["--home", "/h", "mcp", "--scope", "read"],
        "env": {},
    }
    assert rt.mcp_entry(rt.RUNTIMES["opencode"], argv) == {"type": "local", "command": argv}
    assert rt.mcp_matches(GEMINI, {**rt.mcp_entry(GEMINI, argv), "trust": True}, argv)
    assert not rt.mcp_matches(GEMINI, rt.mcp_entry(GEMINI, argv), [*argv[:-1], "write"])
    assert rt.mcp_add_argv(GEMINI, argv) == [
        "gemini", "mcp", "add", "-s", "user", "hearth", "/b/hearth", "--", *argv[1:]
    ]  # fmt: skip


def test_codex_trust_hash_is_what_codex_app_server_reports() -> None:
    # Reported by `codex app-server` (0.169.0) `hooks/list` as `currentHash`.
    start = rt.HookSpec("session-start", "SessionStart", "startup|resume", 10)
    handler = {"type": "command", "command": "/x/hearth --home /h agent-hook codex session-start"}
    assert rt.codex_trust_hash(start, {**handler, "timeout": 10}) == (
        "sha256:d52566434a9a3fef5be5314a729096132902e9979019622a26b58779b5a18baa"
    )
    prompt = rt.HookSpec("prompt", "UserPromptSubmit", None, 10)
    handler = {"type": "command", "command": "/x/hearth agent-hook codex prompt", "timeout": 10}
    assert rt.codex_trust_hash(prompt, handler) == (
        "sha256:c5807997d5ebc38e89e7a9be022909280579b2b4b4d8d33abb5f562960eb77b7"
    )
    assert rt.codex_trust_key("/u/.codex/hooks.json", prompt, 1, 0) == (
        "/u/.codex/hooks.json:user_prompt_submit:1:0"
    )


def test_toml_tables_are_added_and_taken_out_keeping_every_other_line() -> None:
    text = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x" # why\n'
    key = ("hooks", "state", "/u/.codex/hooks.json:session_start:0:0")
    added = ct.with_table(text, key, {"trusted_hash": "sha256:ab"})
    assert added.startswith(text)
    parsed = tomllib.loads(added)
    assert parsed["hooks"]["state"][key[-1]] == {"trusted_hash": "sha256:ab"}
    assert ct.with_table(added, key, {"trusted_hash": "sha256:ab"}) == added
    assert ct.without_table(added, key) == text
    server = ct.with_table(text, ("mcp_servers", "hearth"), {"command": "/b", "args": ["a", "b"]})
    assert tomllib.loads(server)["mcp_servers"]["hearth"] == {"command": "/b", "args": ["a", "b"]}
    assert ct.without_table(server, ("mcp_servers", "hearth")) == text


def test_jsonc_comments_and_trailing_commas() -> None:
    plain, commented = ct.strip_jsonc('{"a": ",}", // c\n "b": [1, 2,], /* x */}')
    assert json.loads(plain) == {"a": ",}", "b": [1, 2]} and commented
    assert ct.strip_jsonc('{"url": "http://x"}') == ('{"url": "http://x"}', False)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=20,
)


@given(_json, st.sampled_from([None, 2]))
def test_plain_json_passes_through_jsonc_unchanged(data: object, indent: int | None) -> None:
    text = json.dumps(data, indent=indent)
    assert ct.strip_jsonc(text) == (text, False)


def _bundle(**sizes: int) -> dict[str, Any]:
    files = [{"path": p, "content": f"{p} " + "x" * n, "missing": n < 0} for p, n in sizes.items()]
    return {"files": files, "recall": []}


def test_session_text_puts_who_first_and_stays_within_the_limit() -> None:
    bundle = _bundle(**{"AGENTS.md": 3000, "SOUL.md": 9000, "TOOLS.md": 2000, "USER.md": 500})
    text = ac.session_text(bundle, 6000, "/h")
    assert len(text) <= 6000
    assert (
        text.index("===== SOUL.md [")
        < text.index("===== USER.md [")
        < text.index("===== AGENTS.md [")
    )
    assert "hearth cut" in text  # the cut is visible
    whole = ac.session_text(_bundle(**{"SOUL.md": 100, "MEMORY.md": -1}), 6000, "/h")
    assert "x" * 100 in whole and "not in the home: MEMORY.md" in whole


def test_recall_text_is_empty_without_hits_beyond_the_session_files() -> None:
    hit = {"path": "SOUL.md", "start_line": 1, "end_line": 3, "text": "who you are " * 20}
    assert ac.recall_text({"recall": [hit]}, 2500) == ""
    note = {**hit, "path": "memory/2026-11-25.md", "text": "otters " * 1000}
    text = ac.recall_text({"recall": [note, note, note, note]}, 2500)
    assert len(text) <= 2500 and "===== memory/2026-11-25.md:1-3 [hearth fence " in text


def test_gemini_prompt_drops_the_repeated_session_context() -> None:
    prompt = "<hook_context>SOUL and all</hook_context>\n  where are the otters?"
    assert ac.prompt_of(GEMINI, {"prompt": prompt}) == "where are the otters?"
    assert ac.prompt_of(CLAUDE, {"prompt": 5}) == ""
    assert ac.hook_output(GEMINI, "prompt", "") is None
    assert ac.hook_output(GEMINI, "prompt", "t") == {
        "hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "t"}
    }


def _turn(day: int, line: int, words: str) -> dict[str, object]:
    text = f"## 10:{line:02d} UTC — Sam\n\n{words}"
    return {
        "path": f"memory/2026-01-{day:02d}.md",
        "start_line": line,
        "end_line": line + 2,
        "text": text,
    }


def test_recall_fills_its_budget_with_every_hits_lines_not_three_passages() -> None:
    """Issue 53: the prompt's recall handed at most 3 passages, whatever room
    was left; it now hands every passage the bundle recalled while the limit
    has room, and one too long for what is left gives way to a shorter one."""
    turns = [_turn(day, 5, f"Sam fed the otters on day {day}.") for day in range(1, 7)]
    text = ac.recall_text({"recall": turns}, 2500)
    assert len(text) <= 2500
    assert [d for d in range(1, 7) if f"on day {d}." in text] == [1, 2, 3, 4, 5, 6]
    huge = {**_turn(9, 5, "otters " * 600), "path": "memory/topics/otters.md"}
    squeezed = ac.recall_text({"recall": [*turns[:5], huge, turns[5]]}, 1400)
    assert "on day 6." in squeezed and len(squeezed) <= 1400
    assert "otters otters" not in squeezed  # no sliver of the long one


def test_recall_joins_touching_lines_of_one_file_under_one_fence() -> None:
    """Entries of one note recalled as separate runs are shown in line order,
    touching runs as one block with one line range (``path:start-end``)."""
    runs = [
        {"path": "users/sam.md", "start_line": 9, "end_line": 9, "text": "- Sam keeps bees"},
        {
            "path": "memory/2026-01-02.md",
            "start_line": 3,
            "end_line": 5,
            "text": "## 10:00\n\nBees.",
        },
        {"path": "users/sam.md", "start_line": 8, "end_line": 8, "text": "- Sam sells honey"},
        {"path": "users/sam.md", "start_line": 20, "end_line": 20, "text": "- Sam's hives"},
    ]
    handed = ac.recall_handed({"recall": runs}, 2500)
    assert [f.path for f in handed.files] == [
        "users/sam.md:8-9",
        "users/sam.md:20-20",
        "memory/2026-01-02.md:3-5",
    ]
    assert "users/sam.md:8-9 [hearth fence" in handed.text
    assert "- Sam sells honey\n- Sam keeps bees\n===== end of users/sam.md:8-9" in handed.text
