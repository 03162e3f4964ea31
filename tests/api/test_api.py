"""The HTTP API over a real server on loopback."""

from __future__ import annotations

import http.client
import os
import subprocess
from pathlib import Path
from urllib.parse import quote

import pytest

from tests.api.conftest import Server, wait_for
from tests.conftest import consistent_since, git, settle_point

pytestmark = pytest.mark.e2e  # real servers


def test_health_needs_no_token_and_v1_does(shared_server: Server) -> None:
    assert shared_server.get("/healthz", token=None).body == {"ok": True}
    none = shared_server.get("/v1/status", token=None)
    wrong = shared_server.get("/v1/status", token="hth_not-a-real-token")
    assert (none.status, wrong.status) == (401, 401)
    assert none.error_code == wrong.error_code == "unauthorized"
    assert shared_server.get("/v1/status", token="read").status == 200


def test_scopes(shared_server: Server) -> None:
    s = shared_server
    note = {"text": "scoped note"}
    assert s.post("/v1/daily", note, token="read").status == 403
    assert s.post("/v1/daily", note, token="read").error_code == "forbidden"
    assert s.post("/v1/daily", note, token="write").status == 200
    assert s.post("/v1/reconcile", token="write").status == 403
    assert s.post("/v1/reconcile", token="admin").status == 200


def test_revoked_token_is_refused_at_once(shared_server: Server) -> None:
    from tests.api.conftest import hearth

    s, h = shared_server, ("--home", str(shared_server.root))
    token = hearth(*h, "token", "create", "--name", "to-revoke", "--scope", "read").strip()
    assert s.get("/v1/status", token=token).status == 200
    hearth(*h, "token", "revoke", "to-revoke")
    assert s.get("/v1/status", token=token).status == 401
    assert s.get("/v1/status", token="read").status == 200  # the others still let in


HOSTILE = [
    "../outside.md",
    "..%2foutside.md",
    "%2e%2e/outside.md",
    "memory/../../outside.md",
    ".git/config",
    ".GIT/config",
    "%2Fetc%2Fpasswd",
    "/etc/passwd",
    "a%00b.md",
    "x" * 5000 + ".md",
    "link-out/secret.md",
    "link-file.md",
]


@pytest.mark.parametrize("path", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_paths_are_refused_and_touch_nothing(
    shared_server: Server, path: str, tmp_path: Path
) -> None:
    s = shared_server
    outside = s.root.parent / "outside.md"
    if not (s.root / "link-out").exists():
        target = s.root.parent / "elsewhere"
        target.mkdir(exist_ok=True)
        (target / "secret.md").write_text("# secret outside\n")
        (s.root / "link-out").symlink_to(target)
        (s.root / "link-file.md").symlink_to(target / "secret.md")
    before = sorted(p.name for p in s.root.parent.iterdir())
    head = git(s.root, "rev-parse", "HEAD")
    config = (s.root / ".git/config").read_bytes()
    for reply in (
        s.get(f"/v1/files/{path}"),
        s.put(f"/v1/files/{path}", {"content": "# pwned\n"}),
        s.get(f"/v1/diff?path={quote(path, safe='%')}"),
    ):
        assert 400 <= reply.status < 500, (path, reply.status, reply.raw[:200])
        assert "error" in reply.body
    # History reads only git's objects: a path through a symlink has none.
    history = s.get(f"/v1/history/{path}")
    assert 400 <= history.status < 500 or history.body["commits"] == [], history.raw[:200]
    assert not outside.exists()
    assert sorted(p.name for p in s.root.parent.iterdir()) == before
    assert (s.root.parent / "elsewhere" / "secret.md").read_text() == "# secret outside\n"
    assert git(s.root, "rev-parse", "HEAD") == head
    assert (s.root / ".git/config").read_bytes() == config


def test_write_then_search_finds_it(shared_server: Server) -> None:
    s = shared_server
    reply = s.post("/v1/daily", {"text": "The kingfisher dived twice.", "title": "Kingfisher"})
    assert reply.status == 200 and reply.body["changed"]
    assert s.search("kingfisher") == {reply.body["path"]}
    put = s.put("/v1/files/memory/topics/otters.md", {"content": "# Otters\n\nThey hold hands.\n"})
    assert put.status == 200
    assert s.search("otters", kind="topic") == {"memory/topics/otters.md"}


def test_files_get_put_with_oid_and_dirty(shared_server: Server) -> None:
    s = shared_server
    got = s.get("/v1/files/SOUL.md").body
    assert set(got) >= {"path", "content", "oid", "commit", "dirty"}
    assert got["dirty"] is False
    new = got["content"] + "\nI keep promises.\n"
    stale = s.put("/v1/files/SOUL.md", {"content": new, "expected_oid": "0" * 40})
    assert stale.status == 409 and stale.error_code == "stale_write"
    ok = s.put(
        "/v1/files/SOUL.md", {"content": new, "expected_oid": got["oid"], "message": "promises"}
    )
    assert ok.status == 200
    assert git(s.root, "log", "-1", "--format=%s").strip() == "persona: update SOUL.md"
    assert ": promises" in git(s.root, "log", "-1", "--format=%b")
    (s.root / "USER.md").write_text("# USER\n\nedited by hand, not committed\n")
    dirty = s.get("/v1/files/USER.md").body
    assert dirty["dirty"] is True
    refused = s.put("/v1/files/USER.md", {"content": "# USER\n\nfrom the API\n"})
    assert refused.status == 409 and refused.error_code == "dirty_file"
    assert "edited by hand" in (s.root / "USER.md").read_text()
    git(s.root, "checkout", "USER.md")


def test_validation_and_secret_guard_answer_422(shared_server: Server) -> None:
    s = shared_server
    short = s.put("/v1/files/SOUL.md", {"content": "too short"})
    assert short.status == 422 and short.error_code == "validation_failed"
    assert short.body["error"]["detail"]["failures"][0]["rule"] == "soul-length"
    secret = "ghp_" + "a1B2" * 10
    leak = s.post("/v1/daily", {"text": f"my token is {secret}"})
    assert leak.status == 422
    assert "secret-text" in leak.body["error"]["message"]
    assert secret not in git(s.root, "log", "-p", "--all")


def test_bad_input_gets_4xx_json_never_500(shared_server: Server) -> None:
    s = shared_server
    cases = [
        s.post("/v1/daily", raw_body=b"{not json", headers={"Content-Type": "application/json"}),
        s.post("/v1/daily", {"text": ""}),
        s.post("/v1/daily", {"text": "x", "unexpected": 1}),
        s.post("/v1/proposals", {"title": "t", "entries": []}),
        s.post("/v1/proposals", {"title": "t", "entries": ["e"], "target": "../x.md"}),
        s.post("/v1/proposals/not-a-key/merge"),
        s.post("/v1/proposals/x--00000000-0000-5000-8000-000000000000/reject", {"reason": "no"}),
        s.post("/v1/loops/not-a-key/resolve", {"note": "done"}),
        s.get("/v1/search?q=x&kind=nope"),
        s.get("/v1/search?q=x&limit=0"),
        s.get("/v1/search"),
        s.get("/v1/context?session=root"),
        s.get("/v1/history/SOUL.md?limit=-1"),
        s.get("/v1/diff?path=SOUL.md&from=no-such-rev"),
        s.get("/v1/files/no/such/file.md"),
        s.get("/v1/files/SOUL.md?rev=deadbeef"),
        s.get("/v1/nowhere"),
        s.request("DELETE", "/v1/files/SOUL.md"),
    ]
    for reply in cases:
        assert 400 <= reply.status < 500, (reply.status, reply.raw[:300])
        assert set(reply.body["error"]) == {"code", "message", "detail"}


def test_body_over_10_mib_is_413(shared_server: Server) -> None:
    big = b'{"text": "' + b"a" * (10 * 1024 * 1024 + 10) + b'"}'
    reply = shared_server.post(
        "/v1/daily", raw_body=big, headers={"Content-Type": "application/json"}
    )
    assert reply.status == 413 and reply.error_code == "too_large"
    over_bound = shared_server.post("/v1/daily", {"text": "b" * 30_000})
    assert over_bound.status == 413


def test_records_review_cycle(shared_server: Server) -> None:
    s = shared_server
    created = s.post(
        "/v1/proposals",
        {"title": "Sam's birds", "entries": ["Sam feeds the robins"], "rationale": "said twice"},
    )
    key = created.body["key"]
    assert key in {p["key"] for p in s.get("/v1/proposals").body["proposals"]}
    assert s.post(f"/v1/proposals/{key}/merge").status == 200
    assert "Sam feeds the robins" in (s.root / "MEMORY.md").read_text()
    assert s.post(f"/v1/proposals/{key}/merge").status == 404
    loop = s.post("/v1/loops", {"title": "Clean the feeder", "next_step": "buy a brush"}).body
    assert loop["key"] in {lp["key"] for lp in s.get("/v1/loops").body["loops"]}
    assert "Clean the feeder" in s.get("/v1/active").body["content"]
    assert s.post(f"/v1/loops/{loop['key']}/resolve", {"note": "done"}).status == 200
    assert s.get("/v1/loops").body["loops"] == [] or loop["key"] not in {
        lp["key"] for lp in s.get("/v1/loops").body["loops"]
    }


def test_history_and_diff(shared_server: Server) -> None:
    s = shared_server
    history = s.get("/v1/history/SOUL.md?limit=5").body
    assert history["commits"] and set(history["commits"][0]) >= {
        "id",
        "time",
        "author",
        "message",
        "trailers",
    }
    (s.root / "TOOLS.md").write_text((s.root / "TOOLS.md").read_text() + "\nA new tool line.\n")
    diff = s.get("/v1/diff?path=TOOLS.md").body
    assert diff["to"] == "work tree" and "+A new tool line." in diff["diff"]
    git(s.root, "checkout", "TOOLS.md")
    first = history["commits"][-1]["id"]
    between = s.get(f"/v1/diff?path=SOUL.md&from={first}&to=HEAD").body
    assert between["from"] == first


def test_context_bundle(shared_server: Server) -> None:
    s = shared_server
    main = s.get("/v1/context").body
    assert [f["path"] for f in main["files"]] == [
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "MEMORY.md",
        "continuity/ACTIVE.md",
    ]
    sub = s.get("/v1/context?session=subagent").body
    assert [f["path"] for f in sub["files"]] == ["AGENTS.md", "TOOLS.md"]
    for f in main["files"]:
        assert set(f) == {"path", "content", "chars", "truncated", "missing"}


def test_context_cuts_keep_head_and_tail(server: Server) -> None:
    s = server
    entries = "\n".join(f"- fact number {n}" for n in range(3000))
    (s.root / "MEMORY.md").write_text(
        f"# Memory\n\nHEAD-MARK\n\n## Entries\n\n{entries}\nTAIL-MARK\n"
    )
    (s.root / "TOOLS.md").unlink()
    bundle = s.get("/v1/context").body
    memory = next(f for f in bundle["files"] if f["path"] == "MEMORY.md")
    assert memory["truncated"] and bundle["truncated"]
    assert memory["chars"] > 20_000 >= len(memory["content"])
    assert "HEAD-MARK" in memory["content"] and "TAIL-MARK" in memory["content"]
    assert "hearth cut" in memory["content"] and "MEMORY.md" in memory["content"]
    tools = next(f for f in bundle["files"] if f["path"] == "TOOLS.md")
    assert tools["missing"] and tools["content"] == ""


def test_changes_behind_the_servers_back_reach_search(shared_server: Server) -> None:
    s = shared_server
    topic = s.root / "memory/topics/herons.md"
    topic.parent.mkdir(parents=True, exist_ok=True)
    # An editor's atomic save: temp file, then rename over the target.
    temp = topic.with_name(".herons.md.swp")
    temp.write_text("# Herons\n\nGrey herons stand still.\n")
    temp.replace(topic)
    assert wait_for(lambda: s.search("herons") == {"memory/topics/herons.md"}, 1.0)
    topic.write_text("# Herons\n\nHerons fish at dawn.\n")
    assert wait_for(lambda: "memory/topics/herons.md" in s.search("dawn"), 1.0)
    topic.unlink()
    assert wait_for(lambda: s.search("herons") == set(), 1.0)


def test_a_person_committing_with_git_keeps_status_fresh(server: Server) -> None:
    s = server
    (s.root / "memory/topics").mkdir(parents=True, exist_ok=True)
    (s.root / "memory/topics/plain.md").write_text("# Plain git\n\nCommitted by hand.\n")
    git(s.root, "add", "memory/topics/plain.md")
    commit = subprocess.run(
        ["git", "commit", "-qm", "memory: by hand"],
        cwd=s.root,
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
    )
    assert commit.returncode == 0, commit.stderr
    # The post-commit hook saw the running server and nudged it (no Python started)
    # to look at what the commit changed, not at every file.
    assert "hearth: told the server to reconcile; 0 pending proposals" in commit.stderr
    assert (s.root / ".git/hearth/nudge-commit").exists()
    assert not (s.root / ".git/hearth/nudge").exists()
    head = git(s.root, "rev-parse", "HEAD").strip()

    def fresh() -> bool:
        index = s.get("/v1/status").body["index"]
        return bool(index["fresh"]) and index["indexed_head"] == head

    assert wait_for(fresh, 3.0)


def test_bursts_of_files_leave_the_server_consistent(server: Server) -> None:
    s = server
    folder = s.root / "burst"
    folder.mkdir()
    for round_ in range(4):
        for n in range(500):
            (folder / f"r{round_}-{n}.md").write_text(f"# R{round_} {n}\n\nwombat{round_}x{n}\n")
        for n in range(0, 500, 2 if round_ % 2 else 1):
            (folder / f"r{round_}-{n}.md").unlink()
    assert s.get("/healthz", token=None).status == 200

    # Status is a snapshot: the one to trust was taken after the bursts ended.
    since = settle_point(s.root)
    assert wait_for(lambda: consistent_since(s.get("/v1/status").body, since), 10.0)
    survivors = {f"burst/{p.name}" for p in folder.iterdir()}
    assert len(survivors) == 500
    for name in sorted(survivors)[::50]:
        round_, n = name.removeprefix("burst/r").removesuffix(".md").split("-")
        assert s.search(f"wombat{round_}x{n}") == {name}
    assert s.search("wombat0x1") == set()  # round 0 deleted every file


def test_status_shows_watcher_and_scheduler(shared_server: Server) -> None:
    status = shared_server.get("/v1/status").body
    assert status["watcher"]["running"] is True
    assert status["scheduler"]["running"] is True
    assert {"fresh", "files_on_disk", "files_indexed", "documents", "parked"} <= set(
        status["index"]
    )


def test_openapi_lists_every_route(shared_server: Server) -> None:
    spec = shared_server.get("/openapi.json", token=None).body
    assert "/v1/search" in spec["paths"] and "/v1/files/{path}" in spec["paths"]


def test_refuses_non_loopback_without_allow_remote(tmp_path: Path) -> None:
    import sys

    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "hearth"),
            "--home",
            str(tmp_path),
            "serve",
            "--host",
            "0.0.0.0",
        ],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ.copy(),
        timeout=30,
    )
    assert proc.returncode == 2 and "--allow-remote" in proc.stderr


def test_sigterm_stops_cleanly_and_forgets_the_address(server: Server) -> None:
    address = server.root / ".git/hearth/server.json"
    assert address.exists()
    assert server.stop() == 0
    assert not address.exists()


def test_write_tokens_write_markdown_only(shared_server: Server) -> None:
    s = shared_server
    settings = s.put(
        "/v1/files/hearth.toml", {"content": "[bounds]\nmemory_md = 1\n"}, token="write"
    )
    assert settings.status == 403
    assert (
        s.put("/v1/files/.gitattributes", {"content": "* merge=ours\n"}, token="write").status
        == 403
    )
    assert "memory_md = 1" not in (s.root / "hearth.toml").read_text()
    active = s.put("/v1/files/continuity/ACTIVE.md", {"content": "# mine\n"}, token="admin")
    assert active.status == 422


@pytest.mark.parametrize("method", ["TRACE", "PATCH", "OPTIONS"])
def test_a_method_a_path_does_not_take_is_405_with_allow_and_a_json_body(
    shared_server: Server, method: str
) -> None:
    """RFC 9110 §15.5.6: a 405 names what the path supports, all its routes' methods."""
    s = shared_server
    for path, supported in (
        ("/healthz", {"GET"}),
        ("/v1/files/MEMORY.md", {"GET", "PUT"}),
        ("/v1/memory/MEMORY.md/entries", {"GET", "POST", "PUT", "DELETE"}),
        ("/v1/proposals", {"GET", "POST"}),
        ("/v1/sync", {"POST"}),
    ):
        reply = s.request(method, path)
        assert reply.status == 405, (path, reply.raw)
        assert reply.error_code == "method_not_allowed", (path, reply.body)
        allow = _allow_header(s, method, path)
        assert {m.strip() for m in allow.split(",")} == supported, (path, allow)


def _allow_header(s: Server, method: str, path: str) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
    try:
        conn.request(method, path, headers={"Authorization": f"Bearer {s.tokens['admin']}"})
        response = conn.getresponse()
        response.read()
        return response.getheader("Allow") or ""
    finally:
        conn.close()


def test_unix_socket(tmp_path: Path) -> None:
    import socket as socketlib
    import sys
    import time

    from tests.api.conftest import hearth, make_home

    root = make_home(tmp_path / "home")
    token = hearth(
        "--home", str(root), "token", "create", "--name", "uds", "--scope", "read"
    ).strip()
    sock_path = tmp_path / "hearth.sock"
    proc = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "hearth"),
            "--home",
            str(root),
            "serve",
            "--uds",
            str(sock_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=os.environ.copy(),
    )
    try:
        assert wait_for(sock_path.exists, 20.0)

        class UnixConnection(http.client.HTTPConnection):
            def connect(self) -> None:
                self.sock = socketlib.socket(socketlib.AF_UNIX, socketlib.SOCK_STREAM)
                self.sock.connect(str(sock_path))

        def get(path: str) -> int:
            conn = UnixConnection("localhost", timeout=10)
            try:
                conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
                return conn.getresponse().status
            finally:
                conn.close()

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if get("/healthz") == 200:
                    break
            except OSError:
                pass
            time.sleep(0.05)
        assert get("/v1/search?q=soul") == 200
    finally:
        proc.terminate()
        assert proc.wait(timeout=20) == 0


def test_sync_over_http(tmp_path: Path) -> None:
    from tests.api.conftest import make_home, start_server

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    root = make_home(tmp_path / "home")
    no_upstream = start_server(root)
    try:
        refused = no_upstream.post("/v1/sync")
        assert refused.status == 409 and refused.error_code == "no_upstream"
        assert no_upstream.post("/v1/sync", token="write").status == 403
    finally:
        no_upstream.stop()
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    server = start_server(root)
    try:
        server.post("/v1/daily", {"text": "synced over http"})
        done = server.post("/v1/sync")
        assert done.status == 200 and done.body["action"] == "pushed"
        assert "synced over http" in git(tmp_path, "--git-dir", str(remote), "log", "-p", "-1")
        status = server.get("/v1/status").body
        assert status["sync"]["upstream"] == "origin/main" and status["conflicts"] == []
    finally:
        assert server.stop() == 0


def test_active_md_deleted_or_edited_is_written_again_within_a_second(
    shared_server: Server,
) -> None:
    s = shared_server
    assert s.post("/v1/daily", {"text": "Fed the cat."}, token="write").status == 200
    active = s.root / "continuity/ACTIVE.md"
    assert wait_for(lambda: s.get("/v1/active").body["fresh"], 5)
    original = active.read_bytes()
    assert b"Fed the cat." in original
    active.unlink()
    assert wait_for(lambda: active.exists() and active.read_bytes() == original, 1.0)
    active.write_bytes(original.replace(b"Fed the cat.", b"Fed the dog."))
    assert wait_for(lambda: active.read_bytes() == original, 1.0)
    body = s.get("/v1/active").body
    assert body["fresh"] is True and body["state"] == "fresh"
    assert body["content"].encode() == original
    # Status is a snapshot: read it once it is current (taken after the pass).
    assert wait_for(lambda: s.get("/v1/status").body["snapshot"]["current"], 5)
    assert s.get("/v1/status").body["index"]["active"] == "fresh"


def test_host_and_origin_are_checked_on_every_route(shared_server: Server) -> None:
    s = shared_server
    here = f"127.0.0.1:{s.port}"
    for path, token in (("/healthz", None), ("/v1/status", "read"), ("/v1/search?q=x", "read")):
        rebound = s.get(path, token=token, headers={"Host": f"evil.example:{s.port}"})
        assert rebound.status == 400 and rebound.error_code == "host_refused"
        foreign = s.get(path, token=token, headers={"Origin": "http://evil.example"})
        assert foreign.status == 403 and foreign.error_code == "origin_refused"
        same = s.get(path, token=token, headers={"Origin": f"http://{here}"})
        assert same.status == 200
    # A cross-site form post never reaches the handler.
    head = git(s.root, "rev-parse", "HEAD")
    posted = s.post(
        "/v1/daily",
        {"text": "from a web page"},
        token="write",
        headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert posted.status == 403 and git(s.root, "rev-parse", "HEAD") == head
    assert s.get("/healthz", token=None, headers={"Origin": "null"}).status == 403
    assert s.get("/healthz", token=None, headers={"Host": f"localhost:{s.port}"}).status == 200
    assert s.get("/healthz", token=None, headers={"Host": f"[::1]:{s.port}"}).status == 200


def test_allow_remote_names_the_hosts_it_answers_for(tmp_path: Path) -> None:
    from tests.api.conftest import make_home, start_server

    server = start_server(make_home(tmp_path / "home"), "--allow-remote", "hearth.lan")
    try:
        ok = server.get("/healthz", token=None, headers={"Host": f"hearth.lan:{server.port}"})
        assert ok.status == 200
        other = server.get("/healthz", token=None, headers={"Host": "other.lan"})
        assert other.status == 400
    finally:
        assert server.stop() == 0


def test_lionclaw_records_over_the_api(shared_server: Server) -> None:
    from tests.conftest import git
    from tests.domain import lionclaw_files as lc

    s = shared_server
    key = lc.proposal_key("CAFÉ au lait")
    target = s.root / f"continuity/proposals/memory/{key}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(lc.proposal("CAFÉ au lait", ["Likes it strong"], "session:main"))
    listed = {p["key"]: p for p in s.get("/v1/proposals").body["proposals"]}
    assert listed[key]["style"] == "lionclaw"
    # An uncommitted file is never overwritten; LionClaw's commit goes through the hook.
    refused = s.post("/v1/proposals", {"title": "CAFÉ au lait", "entries": ["No sugar"]})
    assert refused.status == 409
    git(s.root, "add", str(target))
    git(s.root, "commit", "-qm", "LionClaw proposed")
    listed = {p["key"]: p for p in s.get("/v1/proposals").body["proposals"]}
    assert listed[key]["style"] == "lionclaw" and listed[key]["entries"] == ["Likes it strong"]
    created = s.post("/v1/proposals", {"title": "CAFÉ au lait", "entries": ["No sugar"]})
    assert created.status == 200 and created.body["key"] == key
    assert target.read_text().startswith("# Memory Proposal: CAFÉ au lait\n")
    assert s.post(f"/v1/proposals/{key}/merge").status == 200
    reply = s.post("/v1/proposals", {"title": "", "entries": ["untitled"]})
    assert reply.status == 200, reply.body
    empty = reply.body["key"]
    assert empty == lc.proposal_key("")
    assert s.post(f"/v1/proposals/{empty}/reject", {"reason": "no title"}).status == 200
