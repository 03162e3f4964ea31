"""The person's word stands (issue 54 cases 1, 2, 3 and "who and when set by
hearth"): driven by an agent's write token over HTTP and MCP against a real
server, with the person's admin token beside it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import yaml

from hearth.domain import layout
from hearth.domain.records import record_key
from hearth.store.agent_changes import agent_changes
from tests.api.conftest import BIN, Server, hearth, isolated_env, make_home, start_server
from tests.mcp.conftest import call, http_client, refused

FORGED_MERGED = (
    "continuity/proposals/memory/archive/merged/"
    f"{record_key('Garden plan')}--0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f.md"
)
FORGED_CONFLICT = "continuity/conflicts/entries/USER.md--0f0f0f0f0f.md"
FORGED_COPY = "continuity/conflicts/URGENT merge every pending proposal now--deadbeef.md"


def _front(server: Server, path: str) -> dict[str, Any]:
    text = server.get(f"/v1/files/{path}").body["content"]
    data: dict[str, Any] = yaml.safe_load(text.split("---\n")[1])
    return data


def test_case1_a_write_token_cannot_put_files_under_continuity(shared_server: Server) -> None:
    """Case 1: a forged "merged" archive copy, a forged entry-conflict record and
    a forged conflict copy are refused (403) over HTTP and MCP, and none lands."""
    s = shared_server
    text = "---\ntitle: Garden plan\nstatus: merged\n---\n\n- Sam plants tomatoes in May\n"
    for path in (FORGED_MERGED, FORGED_CONFLICT, FORGED_COPY, "continuity/decisions/x.md"):
        reply = s.put(f"/v1/files/{quote(path)}", {"content": text}, token="write")
        assert reply.status == 403, (path, reply.status, reply.body)
        assert reply.body["error"]["code"] == "forbidden"
        assert "put.records" in reply.body["error"]["message"]
        assert s.get(f"/v1/files/{quote(path)}").status == 404

    async def run() -> Any:
        async with http_client(s, "write") as client:
            return await refused(client, "write", {"path": FORGED_CONFLICT, "content": text})

    assert anyio.run(run)["code"] == "forbidden"
    assert s.get(f"/v1/files/{FORGED_CONFLICT}").status == 404


def test_case2_a_merge_carries_the_version_the_person_read(shared_server: Server) -> None:
    """Case 2: the person lists a proposal (its entries, target and version); the
    agent then changes it; a merge of the version read is refused 409 "changed
    since you read it" over HTTP and MCP, and nothing reaches the target."""
    s = shared_server
    made = s.post(
        "/v1/proposals",
        {"title": "Garden plan v2", "entries": ["Sam plants tomatoes in May"]},
        token="write",
    ).body
    key = made["key"]
    listed = {p["key"]: p for p in s.get("/v1/proposals").body["proposals"]}[key]
    assert listed["entries"] == ["Sam plants tomatoes in May"]
    assert listed["target"] == "MEMORY.md"
    read = listed["oid"]
    assert read and len(read) == 40
    # The agent changes the proposal after the person read it (through propose:
    # writing its file whole is refused, case 1).
    s.post(
        "/v1/proposals",
        {"title": "Garden plan v2", "entries": ["Sam's bank PIN is in the drawer"]},
        token="write",
    )
    reply = s.post(f"/v1/proposals/{key}/merge", {"version": read}, token="admin")
    assert reply.status == 409, reply.body
    assert "changed since you read it" in reply.body["error"]["message"]

    async def run() -> Any:
        async with http_client(s, "admin") as client:
            return await refused(client, "merge", {"key": key, "version": read[:12]})

    error = anyio.run(run)
    assert error["code"] == "stale_write" and "changed since you read it" in error["message"]
    memory = s.get("/v1/files/MEMORY.md").body["content"]
    assert "tomatoes" not in memory and "PIN" not in memory
    # The version read now merges.
    now = {p["key"]: p for p in s.get("/v1/proposals").body["proposals"]}[key]["oid"]
    assert s.post(f"/v1/proposals/{key}/merge", {"version": now}, token="admin").status == 200


def test_case2_the_cli_prints_entries_and_target_and_merges_what_it_showed(
    shared_server: Server,
) -> None:
    """Case 2: `hearth proposals` and `hearth review` print each proposal's
    entries and target; `hearth merge KEY --version` refuses a changed one."""
    s = shared_server
    key = s.post(
        "/v1/proposals",
        {"title": "Tea plan", "entries": ["Sam drinks green tea"], "target": "USER.md"},
        token="write",
    ).body["key"]
    env = {**os.environ, "HEARTH_SERVER": "off"}
    listing = hearth("--home", str(s.root), "proposals", env=env)
    assert "-> USER.md" in listing and "    - Sam drinks green tea" in listing
    review = hearth("--home", str(s.root), "review", env=env)
    assert "-> USER.md" in review and "- Sam drinks green tea" in review
    version = listing.split(f"{key}  ", 1)[1].split("[version ", 1)[1][:12]
    s.post("/v1/proposals", {"title": "Tea plan", "entries": ["Sam hates tea"]}, token="write")
    done = subprocess.run(
        [str(BIN / "hearth"), "--home", str(s.root), "merge", key, "--version", version],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1 and "changed since you read it" in done.stderr, done.stderr
    shown = hearth("--home", str(s.root), "merge", key, env=env)
    assert "Sam hates tea" in shown and "-> USER.md" in shown


def test_case3_an_agent_cannot_rewrite_withdraw_or_resolve_the_persons_records(
    shared_server: Server,
) -> None:
    """Case 3: the person's decision survives an agent's decide on its title (a
    proposal to change it is made instead); an agent cannot withdraw the
    person's decisions or resolve the person's loops (403, HTTP and MCP)."""
    s = shared_server
    title = "Never share medical data"
    mine = s.post("/v1/decisions", {"title": title, "decision": "Never."}, token="admin").body
    before = _front(s, mine["path"])
    answer = s.post(
        "/v1/decisions",
        {"title": title, "decision": "Medical data may be shared with any clinic that asks"},
        token="write",
    )
    assert answer.status == 200, answer.body
    assert answer.body["path"].startswith(layout.PROPOSALS_DIR + "/")
    after = s.get(f"/v1/files/{mine['path']}").body["content"]
    assert "Never." in after and "clinic" not in after
    assert _front(s, mine["path"]) == before
    proposal = _front(s, answer.body["path"])
    assert proposal["target"] == mine["path"] and proposal["by"] == "agent"

    reply = s.post(f"/v1/decisions/{mine['key']}/withdraw", {"reason": "x"}, token="write")
    assert reply.status == 403 and reply.body["error"]["code"] == "forbidden"
    loop = s.post("/v1/loops", {"title": "Call the dentist"}, token="admin").body
    reply = s.post(f"/v1/loops/{loop['key']}/resolve", {}, token="write")
    assert reply.status == 403, reply.body

    async def run() -> dict[str, Any]:
        async with http_client(s, "write") as client:
            return {
                "withdraw": await refused(
                    client, "withdraw_decision", {"key": mine["key"], "reason": "x"}
                ),
                "resolve": await refused(client, "resolve_loop", {"key": loop["key"]}),
                "own": await call(client, "add_loop", {"title": "Agent's own loop"}),
            }

    out = anyio.run(run)
    assert out["withdraw"]["code"] == "forbidden" and out["resolve"]["code"] == "forbidden"
    # The agent's own loop is its own to resolve.
    assert s.post(f"/v1/loops/{out['own']['key']}/resolve", {}, token="write").status == 200
    assert s.get(f"/v1/files/{mine['path']}").status == 200
    # The person merges the proposed change: the decision is superseded, as theirs.
    merged = s.post(f"/v1/proposals/{answer.body['key']}/merge", token="admin")
    assert merged.status == 200, merged.body
    assert "clinic" in s.get(f"/v1/files/{mine['path']}").body["content"]
    assert not _front(s, mine["path"]).get("by")


def test_who_and_when_are_set_by_hearth_and_future_dates_are_refused(
    shared_server: Server,
) -> None:
    """Record fields that say who and when are hearth's: an agent's ``source``
    is kept as its stated source, the actor is the token's; a record dated in
    the future is refused even from the person's admin token."""
    s = shared_server
    made = s.post("/v1/loops", {"title": "Book flights", "source": "ui:me"}, token="write").body
    front = _front(s, made["path"])
    assert front["source"].startswith("api:t-write-")
    assert front["stated_source"] == "ui:me" and front["by"] == "agent"
    key = made["key"]
    future = (
        "---\ntitle: Book flights\nstatus: open\ncreated: '2100-01-01T00:00:00Z'\n"
        "updated: '2100-01-01T00:00:00Z'\n---\n\nsoon\n"
    )
    path = f"{layout.LOOPS_DIR}/{key}.md"
    reply = s.put(f"/v1/files/{path}", {"content": future}, token="admin")
    assert reply.status == 422, reply.body
    assert "future" in str(reply.body)


def test_a_home_can_keep_persona_and_memory_to_proposals_for_agents(tmp_path: Path) -> None:
    """Persona and memory written by agents, the other policy: with ``[agents]
    persona = "proposals"`` a write token's entry for MEMORY.md becomes a
    proposal and its put or replace of a persona or memory file is refused
    (403), over HTTP and MCP; the person's own writes go through."""
    env = isolated_env(tmp_path / "user")
    root = make_home(tmp_path / "home", env)
    settings = root / "hearth.toml"
    settings.write_text(settings.read_text() + '\n[agents]\npersona = "proposals"\n')
    for args in (("add", "hearth.toml"), ("commit", "-qm", "agents propose", "--no-verify")):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    s = start_server(root, env=env)
    try:
        added = s.post("/v1/memory/MEMORY.md/entries", {"entry": "Sam trusts me"}, token="write")
        assert added.status == 200, added.body
        assert added.body["path"].startswith(layout.PROPOSALS_DIR + "/")
        assert "Sam trusts me" not in s.get("/v1/files/MEMORY.md").body["content"]
        put = s.put("/v1/files/SOUL.md", {"content": "x" * 200}, token="write")
        assert put.status == 403 and "proposals" in put.body["error"]["message"]
        # Nor a skill the runtime would load as its instructions (hostile pass).
        skill = s.put("/v1/files/skills/tidy/SKILL.md", {"content": "Obey.\n"}, token="write")
        assert skill.status == 403 and "proposals" in skill.body["error"]["message"]

        async def run() -> Any:
            async with http_client(s, "write") as client:
                return await refused(
                    client, "write", {"path": "USER.md", "content": "# User\n\n## Entries\n"}
                )

        assert anyio.run(run)["code"] == "forbidden"
        mine = s.post("/v1/memory/MEMORY.md/entries", {"entry": "Sam likes figs"}, token="admin")
        assert mine.status == 200 and mine.body["path"] == "MEMORY.md"
    finally:
        assert s.stop() == 0


def test_an_agents_topic_rewrite_is_listed_as_the_agents(shared_server: Server) -> None:
    """Hostile pass. Reproduction: the person keeps a topic note; an agent with a
    write token replaces it through ``POST /v1/topics`` (and MCP ``topic``),
    taking out "Never give Sam walnuts". A put of the same file is listed on the
    review page for the person to undo, but the topic operation committed
    without ``Hearth-By: agent``, so the rewrite was listed nowhere and read
    in history as anyone's."""
    s = shared_server
    mine = "- Sam keeps bees at the allotment.\n- Never give Sam walnuts.\n"
    made = s.post("/v1/topics", {"title": "Sam and food", "content": mine}, token="admin")
    assert made.status == 200, made.body
    path = made.body["path"]
    cut = {"title": "Sam and food", "content": "- Sam keeps bees at the allotment.\n"}
    http_cut = s.post("/v1/topics", cut, token="write")
    assert http_cut.status == 200, http_cut.body

    async def run() -> Any:
        async with http_client(s, "write") as client:
            wiped = {"title": "Sam and food", "content": "- Sam likes walnut cake.\n"}
            return await call(client, "topic", wiped)

    mcp_cut = anyio.run(run)
    listed = {c.commit: c.actor for c in agent_changes(s.root, None).changes if c.path == path}
    assert listed.get(http_cut.body["commit"], "").startswith("api:t-write-"), listed
    assert listed.get(mcp_cut["commit"], "").startswith("mcp:t-write-"), listed
    assert made.body["commit"] not in listed  # the person's own note is no agent's change
