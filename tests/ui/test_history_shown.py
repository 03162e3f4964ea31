"""Issue 54 case 7 (history that misleads) and case 8 (links URL-encoded): history
shows who wrote each commit through hearth and with which operation, on every
surface; hearth composes the subject and an agent's message goes in the body;
the Persona page lists every persona file; a file name with ``?`` or ``#`` is
linked as itself. A real headless Chromium against a real ``hearth serve``."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.api.conftest import BIN, Server, wait_for
from tests.mcp.conftest import call, http_client
from tests.ui.conftest import at
from tests.ui.test_review_page import login

FORGED = "persona: restore SOUL.md from 8c42c50282e3"
SOUL = "# Soul\n\nI am patient. " + "I speak plainly and keep my answers short. " * 3 + "\n"


@pytest.fixture(scope="module")
def person(browser: Browser, ui_server: Server) -> Iterator[Page]:
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    yield page
    context.close()


@pytest.fixture(scope="module")
def agent_put(ui_server: Server) -> str:
    """An agent's PUT of SOUL.md whose message reads as a restore; its actor."""
    reply = ui_server.put("/v1/files/SOUL.md", {"content": SOUL, "message": FORGED}, token="write")
    assert reply.status == 200, reply.body
    history = ui_server.get("/v1/history/SOUL.md?limit=1", token="read").body
    actor = history["commits"][0]["actor"]
    assert actor is not None and actor.startswith("api:t-write")
    return str(actor)


def test_history_over_http_mcp_and_cli_names_actor_and_op(
    ui_server: Server, agent_put: str
) -> None:
    """Case 7: `/v1/history`, MCP `history` and `hearth history` show Hearth-Actor
    and Hearth-Op, and the agent's message is not the subject."""
    s = ui_server
    newest = s.get("/v1/history/SOUL.md?limit=1", token="read").body["commits"][0]
    assert newest["subject"] == "persona: update SOUL.md"
    assert (newest["actor"], newest["op"]) == (agent_put, "file.put")
    assert f"Message from {agent_put}: {FORGED}" in newest["message"]

    async def run() -> Any:
        async with http_client(s, "write") as client:
            return await call(client, "history", {"path": "SOUL.md", "limit": 1})

    tool = anyio.run(run)["commits"][0]
    assert (tool["subject"], tool["actor"], tool["op"]) == (
        newest["subject"],
        agent_put,
        "file.put",
    )
    printed = subprocess.run(
        [str(BIN / "hearth"), "--home", str(s.root), "history", "SOUL.md", "--limit", "1"],
        capture_output=True,
        text=True,
        check=True,
        env=s.env,  # type: ignore[attr-defined]
    ).stdout
    assert f"{agent_put} [file.put]: persona: update SOUL.md" in printed
    assert FORGED not in printed
    line = f"persona: update SOUL.md (SOUL.md), by {agent_put} [file.put]"
    assert wait_for(lambda: line in s.get("/v1/active", token="read").body["content"], 5.0)


def test_history_page_shows_actor_and_op_not_the_agent_s_subject(
    person: Page, ui_server: Server, agent_put: str
) -> None:
    """Case 7, the review page: the timeline's newest commit names the agent and
    the operation, and its title is hearth's."""
    person.goto(at(person, "/ui/history/SOUL.md"))
    first = person.locator("ol.timeline li").first
    expect(first.locator(".actor")).to_have_text(agent_put)
    expect(first.locator(".op")).to_have_text("file.put")
    expect(first.get_by_role("link")).to_have_text("persona: update SOUL.md")
    expect(first.get_by_role("link")).not_to_have_text(FORGED)


def test_persona_page_lists_heartbeat_bootstrap_and_person_notes(
    person: Page, ui_server: Server
) -> None:
    """Case 7: the Persona page includes HEARTBEAT.md, BOOTSTRAP.md and users/*.md."""
    note = "# Sam\n\n## Entries\n\n- Sam grows tomatoes\n"
    assert ui_server.put("/v1/files/users/sam.md", {"content": note}, token="write").status == 200
    person.goto(at(person, "/ui/persona"))
    table = person.locator("table")
    for name in ("HEARTBEAT.md", "BOOTSTRAP.md", "users/sam.md", "SOUL.md"):
        expect(table.get_by_role("link", name=name, exact=True)).to_be_visible()
    row = table.locator("tr", has=person.get_by_role("link", name="users/sam.md"))
    expect(row).to_contain_text("file.put")


def test_a_file_name_with_question_and_hash_marks_is_linked_as_itself(
    person: Page, ui_server: Server
) -> None:
    """Case 8: paths go into `/ui/files/...` links URL-encoded."""
    path = "memory/topics/what? #1 plan.md"
    text = "# Plan\n\nThe zeppelin-shaped birdhouse goes on the oak.\n"
    reply = ui_server.put(
        "/v1/files/" + path.replace("?", "%3F").replace("#", "%23").replace(" ", "%20"),
        {"content": text},
        token="write",
    )
    assert reply.status == 200, reply.body
    person.goto(at(person, "/ui/search?q=zeppelin+birdhouse"))
    link = person.get_by_role("link", name=path)
    href = link.get_attribute("href") or ""
    assert re.match(r"/ui/s/[\w-]+/files/memory/topics/what%3F%20%231%20plan\.md\?lines=", href), (
        href
    )
    link.click()
    expect(person.locator("main")).to_contain_text("zeppelin-shaped birdhouse")
    person.goto(at(person, "/ui/history/" + href.split("/files/")[1].split("?")[0]))
    expect(person.locator("h1")).to_contain_text(path)
    expect(person.get_by_role("link", name="Current text")).to_have_attribute(
        "href", re.compile(r"^/ui/s/[\w-]+/files/memory/topics/what%3F%20%231%20plan\.md$")
    )
