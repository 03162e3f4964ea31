"""Decisions on the review page, in a real headless Chromium: an agent's write
token sees and withdraws them (a write, DESIGN section 5); a read token gets no
button; the withdrawal lands as one commit with the reason."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.api.conftest import Server
from tests.ui.conftest import git
from tests.ui.test_review_page import login


def test_withdraw_a_decision_on_the_page(browser: Browser, ui_server: Server) -> None:
    made = ui_server.post(
        "/v1/decisions",
        {"title": "Garden watering", "decision": "Water at dawn only.", "why": "less loss"},
        token="write",
    )
    assert made.status == 200, made.body
    key = made.body["key"]

    context, page = login(browser, ui_server, ui_server.tokens["read"])
    card = page.locator(f"#d-{key}")
    expect(card).to_contain_text("Water at dawn only.")
    expect(card).to_contain_text("less loss")
    expect(card.get_by_role("button", name="Withdraw")).to_have_count(0)
    context.close()

    context, page = login(browser, ui_server, ui_server.tokens["write"])
    card = page.locator(f"#d-{key}")
    card.get_by_label("Reason").fill("the rain barrel does it now")
    card.get_by_role("button", name="Withdraw").click()
    expect(page.get_by_role("status")).to_contain_text("Withdrew the decision")
    expect(page.locator(f"#d-{key}")).to_have_count(0)
    context.close()

    listed = ui_server.get("/v1/decisions", token="read").body["decisions"]
    assert key not in {d["key"] for d in listed}
    message = git(ui_server.root, "log", "-1", "--format=%s%n%b")
    assert message.startswith("decisions: withdraw Garden watering")
    assert "Reason: the rain barrel does it now" in message
    assert "Hearth-Actor: ui:" in message
