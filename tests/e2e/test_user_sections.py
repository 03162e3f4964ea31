"""USER.md entries go to a named section on every surface (issue 50, case 8):
``hearth memory add USER.md ... --section Preferences``, the HTTP ``section``
field, and the MCP ``memory`` tool's ``section`` argument; none named, they go
under Context as before."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio

from tests.api.conftest import BIN, make_home, start_server
from tests.mcp.conftest import call, http_client


def _under(text: str, heading: str) -> list[str]:
    lines = text.split("\n")
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [line[2:] for line in lines[start:end] if line.startswith("- ")]


def test_user_entries_go_to_the_section_named_on_every_surface(tmp_path: Path) -> None:
    root = make_home(tmp_path / "home")
    cli = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "memory", "add", "USER.md",
         "Likes short answers", "--section", "Preferences"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    server = start_server(root)
    try:
        url = "/v1/memory/USER.md/entries"
        http = server.post(url, {"entry": "Prefers tea", "section": "Preferences"}, token="write")
        assert http.status == 200, http.body
        plain = server.post(url, {"entry": "Works on the Kestrel project"}, token="write")
        assert plain.status == 200, plain.body
        missing = server.post(url, {"entry": "Climbs", "section": "Hobbies"}, token="write")
        assert missing.status == 409 and "Hobbies" in str(missing.body), missing.body

        async def by_mcp() -> None:
            async with http_client(server, "write") as client:
                await call(
                    client,
                    "memory",
                    {"op": "add", "file": "USER.md", "entry": "Writes in English",
                     "section": "Preferences"},
                )  # fmt: skip

        anyio.run(by_mcp)
        listed = server.get(url).body
    finally:
        assert server.stop() == 0
    text = (root / "USER.md").read_text()
    assert _under(text, "## Preferences") == [
        "Likes short answers",
        "Prefers tea",
        "Writes in English",
    ]
    assert _under(text, "## Context") == ["Works on the Kestrel project"]
    assert [e["text"] for e in listed["entries"]] == [
        "Likes short answers",
        "Prefers tea",
        "Writes in English",
        "Works on the Kestrel project",
    ]
