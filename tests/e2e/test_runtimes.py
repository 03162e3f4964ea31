"""``hearth setup`` and ``hearth agent-hook`` against the real runtimes' CLIs.

Claude Code, Codex, Gemini CLI and OpenCode come from npm, installed once into
``<versions>/`` of the machine's agent CLIs folder (tests/e2e/agent_clis.py);
without npm, or when the install fails (no network), these tests skip and say
why. Every test runs with
HOME in a scratch folder (the suite's autouse fixture). The only stand-in is the
model API (tests/e2e/standin.py): the runtimes, their hooks, hearth and git
are real.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth.runtimes import known as rt
from tests.e2e.agent_clis import CLIS, npm_install
from tests.e2e.run import hearth
from tests.e2e.standin import StandIn

REPO = Path(__file__).resolve().parents[2]
PACKAGES = (
    "@anthropic-ai/claude-code@2.1.328",
    "@openai/codex@0.169.0",
    "@google/gemini-cli@0.61.0",
    "opencode-ai",
)
CACHE = CLIS / "claude-code-2.1.328_codex-0.169.0_gemini-cli-0.61.0_opencode-ai"
TOOLS = ("claude", "codex", "gemini", "opencode")
NOTE = "Planning the otter sanctuary fundraiser for Saturday with Marguerite and the lanterns"
#: Files a runtime's own CLI keeps for itself (Gemini CLI's list of project folders).
BOOKKEEPING = {"projects.json"}
QUESTION = "What did we plan for the otter sanctuary fundraiser?"
#: Where the figures of what reached the stand-in are kept (docs/runtimes.md quotes them).
REACHED = REPO / ".cache" / "agent-clis" / "reached.json"


@pytest.fixture(scope="session")
def agent_clis() -> Path:
    """The bin folder of the four runtimes' CLIs, installed once."""
    bin_dir = CACHE / "node_modules" / ".bin"
    if all((bin_dir / tool).exists() for tool in TOOLS):
        return bin_dir
    npm_install(CACHE, PACKAGES, os.environ["PATH"])
    works = subprocess.run([str(bin_dir / "claude"), "--version"], capture_output=True, check=False)
    if works.returncode != 0:
        pytest.skip(f"the runtimes' CLIs do not run with this node: {works.stderr[-300:]!r}")
    return bin_dir


@pytest.fixture
def runtimes_env(agent_clis: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH with the runtimes' CLIs; the scratch HOME, which it returns."""
    monkeypatch.setenv("PATH", f"{agent_clis}{os.pathsep}{os.environ['PATH']}")
    for name in (
        "DISABLE_TELEMETRY",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_AUTOUPDATER",
    ):
        monkeypatch.setenv(name, "1")
    monkeypatch.setenv("NO_COLOR", "1")
    return Path(os.environ["HOME"])


@pytest.fixture
def home(runtimes_env: Path) -> Path:
    root = runtimes_env / "assistant"
    assert hearth("init", str(root)).returncode == 0
    done = hearth("--home", str(root), "note", NOTE)
    assert done.returncode == 0, done.stderr
    return root


def run(
    *argv: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(argv),
        capture_output=True,
        text=True,
        check=False,
        timeout=180,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
    )


def setup(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = hearth("--home", str(home), "setup", *args)
    assert done.returncode == 0, done.stderr + done.stdout
    return done


def snapshot(user_home: Path) -> dict[str, str]:
    """Every configuration file under the scratch HOME, by path."""
    out = {}
    for folder in (".claude", ".codex", ".gemini", ".cursor", ".config/opencode"):
        for path in sorted((user_home / folder).rglob("*")):
            if (
                path.is_file()
                and path.suffix in (".json", ".jsonc", ".toml")
                and path.name not in BOOKKEEPING
            ):
                out[str(path.relative_to(user_home))] = path.read_text()
    if (user_home / ".claude.json").exists():
        out[".claude.json"] = json.dumps(_claude_servers(user_home))
    return out


def _claude_servers(user_home: Path) -> object:
    # Claude Code keeps its own bookkeeping (start-up counts) in ~/.claude.json too.
    return json.loads((user_home / ".claude.json").read_text()).get("mcpServers")


def test_each_runtime_lists_hearth_connected(home: Path, runtimes_env: Path) -> None:
    for name in ("claude-code", "gemini", "opencode", "codex", "cursor"):
        setup(home, name)
    # Claude Code gives a server 5 s to connect unless its environment says more;
    # this is about the wiring, and a loaded machine starts every process slower.
    waits = {"MCP_TIMEOUT": "60000", "MCP_CONNECT_TIMEOUT_MS": "60000"}
    claude = run("claude", "mcp", "list", cwd=runtimes_env, env=waits)
    assert "hearth" in claude.stdout and "✔ Connected" in claude.stdout, claude.stdout
    gemini = run(
        "gemini", "mcp", "list", cwd=runtimes_env, env={"GEMINI_CLI_TRUST_WORKSPACE": "true"}
    )
    listed = gemini.stdout + gemini.stderr
    assert "hearth" in listed and "Connected" in listed, listed
    opencode = run("opencode", "mcp", "list", cwd=runtimes_env)
    listed = opencode.stdout + opencode.stderr
    assert "hearth" in listed and "connected" in listed.lower(), listed
    codex = run("codex", "mcp", "list", cwd=runtimes_env)
    assert "hearth" in codex.stdout, codex.stdout + codex.stderr
    cursor = json.loads((runtimes_env / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["hearth"]["args"][:2] == ["--home", str(home)]
    doctor = run("claude", "doctor", cwd=runtimes_env)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert "No installation issues found" in doctor.stdout, doctor.stdout
    assert "invalid" not in doctor.stdout.lower(), doctor.stdout


def test_a_persons_settings_survive_setup_and_remove(home: Path, runtimes_env: Path) -> None:
    user = runtimes_env
    theirs_hook = {"type": "command", "command": "echo theirs", "timeout": 5}
    files: dict[str, Any] = {
        ".claude/settings.json": {
            "model": "opus",
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {"UserPromptSubmit": [{"hooks": [theirs_hook]}]},
        },
        ".gemini/settings.json": {
            "ui": {"theme": "Dracula"},
            "mcpServers": {"other": {"command": "other-server"}},
            "hooks": {"BeforeAgent": [{"hooks": [theirs_hook]}]},
        },
        ".codex/hooks.json": {"hooks": {"SessionStart": [{"hooks": [theirs_hook]}]}},
        ".cursor/mcp.json": {"mcpServers": {"other": {"command": "other-server"}}},
        ".config/opencode/opencode.jsonc": {
            "theme": "tokyonight",
            "mcp": {"other": {"type": "local", "command": ["x"]}},
        },
    }
    for rel, data in files.items():
        (user / rel).parent.mkdir(parents=True, exist_ok=True)
        (user / rel).write_text(json.dumps(data, indent=2) + "\n")
    codex_toml = '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "other-server"\n'
    (user / ".codex" / "config.toml").write_text(codex_toml)
    assert run("claude", "mcp", "add", "-s", "user", "other", "--", "other-server").returncode == 0
    before = snapshot(user)

    names = ("claude-code", "codex", "gemini", "cursor", "opencode")
    for name in names:
        dry = setup(home, name, "--dry-run", "--trust")
        assert "would change" in dry.stdout
    assert snapshot(user) == before, "--dry-run changed a file"

    for name in names:
        setup(home, name, "--trust")
    after = snapshot(user)
    claude = json.loads(after[".claude/settings.json"])
    assert claude["model"] == "opus" and claude["permissions"] == {"allow": ["Bash(ls:*)"]}
    assert claude["hooks"]["UserPromptSubmit"][0] == {"hooks": [theirs_hook]}
    assert set(claude["hooks"]) == {"SessionStart", "UserPromptSubmit"}
    assert set(json.loads(after[".claude.json"])) == {"other", "hearth"}
    gemini = json.loads(after[".gemini/settings.json"])
    assert gemini["ui"] == {"theme": "Dracula"} and set(gemini["mcpServers"]) == {"other", "hearth"}
    codex = tomllib.loads(after[".codex/config.toml"])
    assert codex["model"] == "o3" and set(codex["mcp_servers"]) == {"other", "hearth"}
    assert after[".codex/config.toml"].startswith("# mine\n")
    assert len(codex["hooks"]["state"]) == 2
    opencode = json.loads(after[".config/opencode/opencode.jsonc"])
    assert opencode["theme"] == "tokyonight" and set(opencode["mcp"]) == {"other", "hearth"}

    for name in names:
        again = setup(home, name, "--trust")
        assert "nothing to change" in again.stdout, again.stdout
    assert snapshot(user) == after, "a second setup changed a file"

    for name in names:
        setup(home, name, "--remove")
    removed = snapshot(user)
    for rel, text in before.items():
        if rel == ".codex/config.toml":
            assert tomllib.loads(removed[rel]) == tomllib.loads(text)
        elif rel == ".claude.json":
            assert removed[rel] == text
        else:
            assert json.loads(removed[rel]) == json.loads(text), rel
    assert set(removed) == set(before)
    assert "nothing to change" in setup(home, "claude-code", "--remove").stdout


def test_codex_trusts_exactly_hearths_hooks(home: Path, runtimes_env: Path) -> None:
    setup(home, "codex", "--trust")
    listed = _codex_hooks_list(runtimes_env)
    ours = [h for h in listed if "agent-hook codex" in h["command"]]
    assert len(ours) == 2
    assert {h["trustStatus"] for h in ours} == {"trusted"}
    state = tomllib.loads((runtimes_env / ".codex" / "config.toml").read_text())["hooks"]["state"]
    assert {h["key"]: h["currentHash"] for h in ours} == {
        k: v["trusted_hash"] for k, v in state.items()
    }


def _codex_hooks_list(cwd: Path) -> list[dict[str, Any]]:
    """``codex app-server``'s ``hooks/list``: what Codex itself says of each hook."""
    proc = subprocess.Popen(
        ["codex", "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def call(ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(
            json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}) + "\n"
        )
        proc.stdin.flush()
        while True:
            message = json.loads(proc.stdout.readline())
            if message.get("id") == ident:
                return message

    try:
        call(1, "initialize", {"clientInfo": {"name": "hearth-tests", "version": "0"}})
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "initialized"}) + "\n")
        proc.stdin.flush()
        answer = call(2, "hooks/list", {"cwds": [str(cwd)]})
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    return [hook for entry in answer["result"]["data"] for hook in entry["hooks"]]


def _strings(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _hook_text(home: Path, runtime: str, event: str, hook_input: dict[str, Any]) -> str:
    done = hearth("--home", str(home), "agent-hook", runtime, event, stdin=json.dumps(hook_input))
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])


#: Each hook answer's fence draws a random salt: the text this test asked the hook
#: for and the one the runtime asked for are the same once their fences are alike.
_FENCE = re.compile(r"(fence,? )[0-9a-f]{16}")


def _unfenced(text: str) -> str:
    return _FENCE.sub(r"\1F", text)


def _reached(model: StandIn, text: str) -> bool:
    # Gemini CLI escapes < and > inside its <hook_context> as HTML entities.
    wanted = _unfenced(text.strip())
    return any(
        wanted in _unfenced(html.unescape(s)) for body in model.bodies for s in _strings(body)
    )


def _record(runtime: str, figures: dict[str, int]) -> None:
    REACHED.parent.mkdir(parents=True, exist_ok=True)
    known = json.loads(REACHED.read_text()) if REACHED.exists() else {}
    known[runtime] = figures
    REACHED.write_text(json.dumps(known, indent=2) + "\n")


def _check_turn(home: Path, model: StandIn, runtime: str) -> None:
    persona = _hook_text(
        home, runtime, "session-start", {"hook_event_name": "SessionStart", "source": "startup"}
    )
    recall = _hook_text(
        home, runtime, "prompt", {"hook_event_name": "UserPromptSubmit", "prompt": QUESTION}
    )
    soul = (home / "SOUL.md").read_text().splitlines()[2]
    assert soul and soul in persona
    assert "Marguerite" in recall and "memory/" in recall
    assert model.bodies, "the runtime never asked the model"
    assert _reached(model, persona), "the persona did not reach the model whole"
    assert _reached(model, recall), "the recall did not reach the model whole"
    assert soul in model.text() and "Marguerite" in model.text()
    _record(runtime, {"persona_chars": len(persona), "recall_chars": len(recall)})


def test_a_claude_code_turn_gets_the_persona_and_the_recall(home: Path, runtimes_env: Path) -> None:
    setup(home, "claude-code")
    with StandIn() as model:
        done = run(
            "claude",
            "-p",
            QUESTION,
            cwd=runtimes_env,
            env={"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-stand-in"},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "stand-in" in done.stdout
        _check_turn(home, model, "claude-code")


def test_a_codex_turn_gets_the_persona_and_the_recall(home: Path, runtimes_env: Path) -> None:
    setup(home, "codex", "--trust")
    config = runtimes_env / ".codex" / "config.toml"
    with StandIn() as model:
        config.write_text(
            'model = "stand-in"\nmodel_provider = "mock"\n\n'
            + config.read_text()
            + f'\n[model_providers.mock]\nname = "mock"\nbase_url = "{model.url}/v1"\n'
            'wire_api = "responses"\nenv_key = "MOCK_KEY"\n'
        )
        done = run(
            "codex",
            "exec",
            "--skip-git-repo-check",
            QUESTION,
            cwd=runtimes_env,
            env={"MOCK_KEY": "k"},
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "hook: UserPromptSubmit Completed" in done.stderr
        _check_turn(home, model, "codex")


def test_gemini_prompt_recall_leaves_out_the_session_context(home: Path) -> None:
    persona = _hook_text(home, "gemini", "session-start", {"hook_event_name": "SessionStart"})
    prompt = f"<hook_context>{persona}</hook_context>\n{QUESTION}"
    recall = _hook_text(
        home, "gemini", "prompt", {"hook_event_name": "BeforeAgent", "prompt": prompt}
    )
    assert "Marguerite" in recall and "SOUL.md" not in recall
    assert rt.RUNTIMES["gemini"].hooks[1].runtime_event == "BeforeAgent"


def test_a_gemini_turn_gets_the_persona_and_the_recall(home: Path, runtimes_env: Path) -> None:
    settings = runtimes_env / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
    setup(home, "gemini")
    with StandIn() as model:
        done = run(
            "gemini",
            "-m",
            "gemini-2.5-flash",
            "-p",
            QUESTION,
            cwd=runtimes_env,
            env={
                "GOOGLE_GEMINI_BASE_URL": model.url,
                "GEMINI_API_KEY": "k",
                "GEMINI_CLI_TRUST_WORKSPACE": "true",
            },
        )
        assert done.returncode == 0, done.stdout + done.stderr
        _check_turn(home, model, "gemini")
