"""Replacing by its text one of two entries that read alike (a data-trust
leftover): ``memory replace FILE TEXT NEW`` changed the first of them, which may
be the one whose sub-bullets the person meant to keep. It is refused, naming the
entries' numbers as ``memory remove`` does, and ``#N`` replaces the one meant:
through the use case, the CLI beside a real server, HTTP and MCP alike."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from hearth.errors import Conflict
from tests.api.conftest import BIN, Server
from tests.conftest import Workspace
from tests.mcp.conftest import http_client, refused

CHANGE = ("Call the vet", "Call the vet at nine")
TWINS = "# {name}\n\n- Call the vet\n  - about the otter's paw, Tuesdays only\n- Call the vet\n"


def _twins(root: Path, note: str) -> str:
    """``users/<note>.md`` holding two entries that read alike, the first with
    a sub-bullet, committed; HEAD after it."""
    path = root / "users" / f"{note}.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(TWINS.format(name=note))
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", f"{note}: two alike"], check=True)
    return _head(root)


def _head(root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def _untouched(root: Path, note: str, head: str) -> None:
    assert _head(root) == head
    assert (root / "users" / f"{note}.md").read_text() == TWINS.format(name=note)


def test_the_use_case_refuses_replacing_one_of_two_alike_by_text(workspace: Workspace) -> None:
    """Case (1), the use case every surface calls: refused as a conflict naming
    #1 and #2, nothing committed; ``#2`` replaces the second and keeps the
    first's sub-bullet."""
    head = _twins(workspace.root, "ana")
    with pytest.raises(Conflict) as refusal:
        workspace.app.entry_replace("users/ana.md", "Call the vet", "Call the vet at nine", "t")
    said = refusal.value.message
    assert "#1 and #2" in said and "say which to replace by its number" in said, said
    _untouched(workspace.root, "ana", head)
    workspace.app.entry_replace("users/ana.md", "#2", "Call the vet at nine", "t")
    text = (workspace.root / "users" / "ana.md").read_text()
    assert "- Call the vet\n  - about the otter's paw, Tuesdays only\n" in text
    assert "- Call the vet at nine\n" in text


def test_the_cli_beside_a_server_refuses_it_naming_the_numbers(shared_server: Server) -> None:
    """Case (1), CLI: exit 1 with the numbers, no traceback, HEAD unmoved."""
    root = shared_server.root
    head = _twins(root, "bo")
    done = subprocess.run(
        [str(BIN / "hearth"), "--home", str(root), "memory", "replace", "users/bo.md", *CHANGE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "#1 and #2" in done.stderr and "Traceback" not in done.stderr, done.stderr
    _untouched(root, "bo", head)


def test_http_refuses_it_with_a_409_naming_the_numbers(shared_server: Server) -> None:
    """Case (1), HTTP: ``PUT /v1/memory/{file}/entries`` answers 409 with a JSON
    body naming the numbers; ``#1`` then replaces the one with the sub-bullet."""
    s = shared_server
    head = _twins(s.root, "cy")
    body = {"old": "Call the vet", "new": "Call the vet at nine"}
    reply = s.put("/v1/memory/users/cy.md/entries", body, token="write")
    assert reply.status == 409, reply.body
    assert "#1 and #2" in reply.body["error"]["message"], reply.body
    _untouched(s.root, "cy", head)
    named = s.put("/v1/memory/users/cy.md/entries", {**body, "old": "#1"}, token="write")
    assert named.status == 200, named.body
    text = (s.root / "users" / "cy.md").read_text()
    first = "- Call the vet at nine\n  - about the otter's paw, Tuesdays only\n"
    assert text.endswith(first + "- Call the vet\n"), text


def test_mcp_refuses_it_naming_the_numbers(shared_server: Server) -> None:
    """Case (1), MCP: the ``memory`` tool's replace is a tool error (conflict)
    naming the numbers."""
    s = shared_server
    head = _twins(s.root, "di")
    arguments = {
        "op": "replace",
        "file": "users/di.md",
        "entry": "Call the vet",
        "new_entry": "Call the vet at nine",
    }

    async def run() -> Any:
        async with http_client(s, "write") as client:
            return await refused(client, "memory", arguments)

    error = anyio.run(run)
    assert error["code"] == "conflict", json.dumps(error)
    assert "#1 and #2" in error["message"], error
    _untouched(s.root, "di", head)
