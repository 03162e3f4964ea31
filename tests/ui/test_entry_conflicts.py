"""Entries two machines changed in different ways, settled on the Health page
(issue 34): a real Chromium against a real ``hearth serve``; the conflict is the
record a sync's entry merge writes, committed as a sync commits it."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from hearth.domain.entry_merge import EntryConflict, render_record
from tests.api.conftest import Server
from tests.ui.conftest import git
from tests.ui.test_review_page import login


def _plant(server: Server) -> str:
    root = server.root
    memory = root / "MEMORY.md"
    both = (
        "\n- Sam lives in Braga\n- Sam lives in Lisbon\n"  # both versions, as a merge leaves them
    )
    memory.write_text(memory.read_text().rstrip("\n") + both)
    record, text = render_record(
        "MEMORY.md",
        EntryConflict("Sam lives in Porto", "Sam lives in Braga", "Sam lives in Lisbon", "ours"),
    )
    (root / record).parent.mkdir(parents=True, exist_ok=True)
    (root / record).write_text(text)
    git(root, "add", "MEMORY.md", record)
    git(root, "commit", "-qm", "sync: merge origin/main", "--no-verify")
    return record


def test_the_person_settles_an_entry_conflict_on_the_health_page(
    browser: Browser, ui_server: Server
) -> None:
    record = _plant(ui_server)
    reader_context, reader = login(browser, ui_server, ui_server.tokens["write"])
    reader.goto(ui_server.url + "/ui/health")
    expect(reader.get_by_text("Other version: «Sam lives in Lisbon»")).to_be_visible()
    expect(reader.get_by_role("button", name="Use the other version")).to_have_count(0)
    reader_context.close()
    context, page = login(browser, ui_server, ui_server.tokens["admin"])
    page.goto(ui_server.url + "/ui/health")
    expect(page.get_by_text("One version: «Sam lives in Braga»")).to_be_visible()
    page.get_by_role("button", name="Use the other version").click()
    expect(page.get_by_text("Settled the entry conflict")).to_be_visible()
    memory = (ui_server.root / "MEMORY.md").read_text()
    assert "- Sam lives in Lisbon" in memory and "Braga" not in memory
    assert not (ui_server.root / record).exists()
    message = git(ui_server.root, "log", "-1", "--format=%B")
    assert "Hearth-Op: memory.settle" in message and "Hearth-Actor: ui:" in message
    assert git(ui_server.root, "status", "--porcelain", "--", "MEMORY.md") == ""
    context.close()
