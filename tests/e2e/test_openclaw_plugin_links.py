"""hearth's OpenClaw plugin never reads through a symlink (issue 49 case 4).

The plugin runs in a plain ``node`` (any Node that runs ES modules; no OpenClaw):
its ``register`` with a stand-in of OpenClaw's API, then ``memory_get`` and the
search manager's ``readFile`` as OpenClaw calls them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hearth import wiring

PLUGIN = Path(__file__).parents[2] / "src" / "hearth" / "openclaw_plugin" / "index.js"

DRIVER = """
const [plugin, home, calls] = process.argv.slice(1);
const entry = (await import(plugin)).default;
const tools = {};
let capability = null;
entry.register({
  pluginConfig: { home, hearth: "/nonexistent/hearth" },
  registerTool: (tool) => { tools[tool.name] = tool; },
  registerMemoryCapability: (found) => { capability = found; },
});
const manager = (await capability.runtime.getMemorySearchManager({})).manager;
const out = [];
for (const path of JSON.parse(calls)) {
  const got = (await tools.memory_get.execute("call", { path })).details;
  let managed;
  try {
    managed = await manager.readFile({ relPath: path });
  } catch (error) {
    managed = { status: "error", code: error.code };
  }
  out.push({ got, managed });
}
console.log(JSON.stringify(out));
"""

SECRET = "hth_hook_key_0123456789abcdef"


def test_memory_get_refuses_every_symlink_a_commit_can_bring(tmp_path: Path) -> None:
    """Issue 49 case 4: ``leak.md -> .git/hearth/server.json``, ``cfg.md -> .git/config``,
    a symlinked folder into ``.git/hearth`` and a link to another file of the home
    are all refused (MEMORY_PATH_NOT_ALLOWED) and none of their text comes back;
    a plain file still reads."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is needed to run the plugin")
    home = tmp_path / "assistant"
    wiring.initialize(home)
    state_dir = home / ".git" / "hearth"
    state_dir.mkdir(exist_ok=True)
    (state_dir / "server.json").write_text(json.dumps({"hook_key": SECRET, "pid": 1}))
    (state_dir / "notes.md").write_text(f"# Key\n\n{SECRET}\n")
    with (home / ".git" / "config").open("a") as config:
        config.write(f'[remote "origin"]\n\turl = https://me:{SECRET}@example.com/h.git\n')
    (home / "leak.md").symlink_to(".git/hearth/server.json")
    (home / "cfg.md").symlink_to(".git/config")
    (home / "box").symlink_to(".git/hearth")
    (home / "memory").mkdir(exist_ok=True)
    (home / "memory" / "again.md").symlink_to("../MEMORY.md")
    calls = ["leak.md", "cfg.md", "box/notes.md", "memory/again.md", "MEMORY.md"]
    done = subprocess.run(
        [node, "--input-type=module", "-e", DRIVER, "--", PLUGIN.as_uri(), str(home),
         json.dumps(calls)],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert SECRET not in done.stdout
    for path, answer in zip(calls[:-1], answers[:-1], strict=True):
        for way in ("got", "managed"):
            assert answer[way]["status"] == "error", (path, way, answer[way])
            assert answer[way]["code"] == "MEMORY_PATH_NOT_ALLOWED", (path, way)
    plain = answers[-1]
    assert plain["got"]["status"] == "ok" and plain["got"]["text"].startswith("#")
    assert plain["managed"]["status"] == "ok"
