"""Status and search agree on freshness with symlinks in the home (issue 35),
and status says why whenever it says STALE.

A symlink a person makes inside a served home (``memory/pw.md -> /etc/passwd``,
``memory/outside -> /etc``) reaches the worker as a watcher event on that path;
the targeted pass parks it, as a full pass does, so status is fresh and lists
it as parked, and search says fresh too. Reads through the links stay refused."""

from __future__ import annotations

from hearth.reconcile import freshness
from tests.api.conftest import Server, wait_for
from tests.conftest import Workspace


def _index(server: Server) -> dict[str, object]:
    reply = server.get("/v1/status")
    assert reply.status == 200, reply.body
    index = reply.body["index"]
    assert isinstance(index, dict)
    return index


def test_status_and_search_agree_with_symlinks_in_the_home(server: Server) -> None:
    s = server
    assert s.post("/v1/daily", {"text": "a note, so memory/ exists"}).status == 200
    (s.root / "memory" / "pw.md").symlink_to("/etc/passwd")
    (s.root / "memory" / "outside").symlink_to("/etc")

    def settled() -> bool:
        index = _index(s)
        parked = {p["path"] for p in index["parked"]}  # type: ignore[attr-defined]
        return parked == {"memory/pw.md", "memory/outside"}

    assert wait_for(settled, timeout=20), _index(s)
    index = _index(s)
    assert index["fresh"] is True, index
    assert index["stale_files"] == 0 and index["stale_reasons"] == [], index
    search = s.get("/v1/search?q=root")
    assert search.status == 200 and search.body["fresh"] is True, search.body
    assert all(not h["path"].startswith("memory/pw") for h in search.body["hits"])
    assert s.get("/v1/files/memory/pw.md").status in (400, 403, 404, 422)


def test_status_says_why_it_is_stale(workspace: Workspace) -> None:
    ws = workspace
    ws.app.reconcile()
    ws.write("memory/topics/hand.md", "# Written by hand\n\nnot indexed yet\n")
    (ws.root / "memory" / "outside").symlink_to("/etc")
    index = freshness.status(ws.app.reconciler)
    assert index.fresh is False
    assert index.stale_files == 2
    (why,) = index.stale_reasons
    assert "2 files differ" in why and "memory/topics/hand.md" in why, why
    assert "memory/outside" in why, why
    ws.app.reconcile()
    after = freshness.status(ws.app.reconciler)
    assert after.fresh is True and after.stale_reasons == (), after
