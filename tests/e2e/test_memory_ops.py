"""Memory entries, topic notes and person notes through the real CLI and the real server."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from urllib.parse import quote

from tests.api.conftest import Server, shared_server  # noqa: F401  (fixture)
from tests.conftest import git
from tests.e2e.test_cli_e2e import home, ok, refused  # noqa: F401  (fixture)


def _count(root: Path) -> int:
    return int(git(root, "rev-list", "--count", "HEAD"))


def test_add_replace_remove_each_one_commit(home: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    before = _count(home)
    ok(*h, "memory", "add", "MEMORY.md", "Sam likes green tea")
    ok(*h, "memory", "add", "MEMORY.md", "Sam lives in Lyon")
    assert _count(home) == before + 2
    listed = json.loads(ok(*h, "memory", "list", "MEMORY.md", "--json"))
    assert [e["text"] for e in listed["entries"]] == ["Sam likes green tea", "Sam lives in Lyon"]
    ok(*h, "memory", "replace", "MEMORY.md", "#2", "Sam lives in Paris")
    ok(*h, "memory", "remove", "MEMORY.md", "Sam likes green tea")
    assert _count(home) == before + 4
    text = (home / "MEMORY.md").read_text()
    assert "- Sam lives in Paris" in text and "green tea" not in text and "Lyon" not in text
    log = git(home, "log", "-4", "--format=%s%n%b")
    assert "Hearth-Op: memory.remove" in log and "Hearth-Op: memory.replace" in log
    assert 'memory: MEMORY.md: remove "Sam likes green tea"' in log
    assert git(home, "status", "--porcelain") == ""


def test_refusals_name_the_problem_and_change_nothing(home: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    ok(*h, "memory", "add", "USER.md", "Prefers mornings")
    head = git(home, "rev-parse", "HEAD")
    assert "no entry reads" in refused(*h, "memory", "remove", "USER.md", "Prefers evenings")
    assert "there is no entry #7" in refused(*h, "memory", "replace", "USER.md", "#7", "x")
    assert "already there" in refused(*h, "memory", "add", "USER.md", "Prefers mornings")
    assert "cannot receive" in refused(*h, "memory", "add", "SOUL.md", "x")
    # A person's uncommitted edit of the file is never overwritten.
    edited = (home / "USER.md").read_text() + "\nmy draft\n"
    (home / "USER.md").write_text(edited)
    assert "uncommitted edits" in refused(*h, "memory", "add", "USER.md", "Another")
    assert (home / "USER.md").read_text() == edited
    git(home, "checkout", "USER.md")
    # The bound of USER.md holds (8,000 characters by default).
    for n in range(3):
        ok(*h, "memory", "add", "USER.md", f"{n} " + "x" * 1900)
    assert "size-bound" in refused(*h, "memory", "add", "USER.md", "one too many " + "y" * 1900)
    assert git(home, "rev-parse", "HEAD") != head
    assert git(home, "status", "--porcelain") == ""


def test_topic_and_person_notes(home: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    ok(*h, "topic", "Garden Shed", "--content", "Plans for the shed.")
    ok(*h, "topic", "Garden Shed", "--append", "Ordered the timber today.")
    text = (home / "memory/topics/garden-shed.md").read_text()
    assert text.startswith("# Garden Shed\n\nPlans for the shed.\n")
    assert text.rstrip().endswith("Ordered the timber today.")
    topics = json.loads(ok(*h, "topic", "--json"))["topics"]
    assert {"path": "memory/topics/garden-shed.md", "title": "Garden Shed"} in topics
    ok(*h, "memory", "add", "users/sam.md", "Sam's birthday is 3 May")
    assert "- Sam's birthday is 3 May" in (home / "users/sam.md").read_text()
    assert "users/sam.md" in ok(*h, "search", "birthday")


def test_entries_over_http_and_concurrent_adds_all_land(shared_server: Server) -> None:  # noqa: F811
    s = shared_server
    url = "/v1/memory/MEMORY.md/entries"
    errors: list[object] = []

    def add(n: int) -> None:
        reply = s.post(url, {"entry": f"fact number {n}"}, token="write")
        if reply.status != 200:
            errors.append(reply.body)

    threads = [threading.Thread(target=add, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    # The module's server is shared: MEMORY.md holds other cases' entries too.
    listed = [e for e in s.get(url, token="read").body["entries"] if e["text"].startswith("fact ")]
    assert sorted(e["text"] for e in listed) == sorted(f"fact number {n}" for n in range(12))
    assert s.put(url, {"old": "fact number 3", "new": "fact three"}, token="write").status == 200
    entries = s.get(url, token="read").body["entries"]
    five = next(e["number"] for e in entries if e["text"] == "fact number 5")
    gone = s.request("DELETE", f"{url}?entry={quote(f'#{five}')}", token="write")
    assert gone.status == 200, gone.body
    texts = [e["text"] for e in s.get(url, token="read").body["entries"]]
    assert "fact three" in texts and "fact number 5" not in texts
    assert len(texts) == len(entries) - 1 and len([t for t in texts if t.startswith("fact ")]) == 11
    missing = s.request("DELETE", f"{url}?entry=nothing%20like%20it", token="write")
    assert missing.status == 409 and missing.error_code == "entry_missing"
    assert s.post(url, {"entry": "x"}, token="read").status == 403
    assert s.post("/v1/memory/SOUL.md/entries", {"entry": "x"}, token="write").status == 422
    assert git(s.root, "status", "--porcelain") == ""


def test_context_with_a_person_note_and_recall(shared_server: Server) -> None:  # noqa: F811
    s = shared_server
    assert (
        s.post(
            "/v1/memory/users/sam.md/entries",
            {"entry": "Sam's dog is called Biscuit"},
            token="write",
        ).status
        == 200
    )
    assert (
        s.post(
            "/v1/daily", {"text": "Sam asked to move the dentist to Thursday."}, token="write"
        ).status
        == 200
    )
    body = s.get("/v1/context?user=sam&q=" + quote("when is the dentist?")).body
    paths = [f["path"] for f in body["files"]]
    assert paths.index("users/sam.md") == paths.index("USER.md") + 1
    assert "Biscuit" in body["files"][paths.index("users/sam.md")]["content"]
    assert body["query"] == "when is the dentist?"
    first = next(p for p in body["recall"] if "dentist to Thursday" in p["text"])
    assert first["path"].startswith("memory/")
    lines = (s.root / first["path"]).read_text().split("\n")
    assert "dentist" in "\n".join(lines[first["start_line"] - 1 : first["end_line"]])
    assert body["total_chars"] <= 150_000
    assert s.get("/v1/context?user=../etc").status == 422
    plain = s.get("/v1/context").body
    assert plain["recall"] == [] and plain["query"] is None


def test_recall_stays_inside_the_budget(home: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    settings = home / "hearth.toml"
    settings.write_text(settings.read_text().replace("total_chars = 150000", "total_chars = 8000"))
    git(home, "commit", "-qam", "settings: small context")
    for n in range(6):
        ok(*h, "note", f"Budget test {n}: " + "tomato soup recipe " * 150)
    bundle = json.loads(ok(*h, "context", "--query", "tomato soup", "--json"))
    assert bundle["total_chars"] <= 8000
    assert bundle["recall"] and bundle["truncated"] is True
    assert all(len(p["text"]) <= 3000 for p in bundle["recall"])


def test_removing_by_text_one_of_two_alike_entries_is_refused(
    shared_server: Server,  # noqa: F811
) -> None:
    """Case (hostile follow-up 3): two entries read the same, one with
    sub-bullets; ``memory remove FILE TEXT`` took the first, sub-bullets and
    all (words lost). By text it is refused, naming both numbers; ``#N`` removes
    the one meant. Through the real CLI beside the real server."""
    root = shared_server.root
    memory = root / "MEMORY.md"
    memory.write_text(
        memory.read_text()
        + "- Call the vet\n  - about the otter's paw, Tuesdays only\n- Call the vet\n"
    )
    git(root, "commit", "-qam", "two alike")
    head = git(root, "rev-parse", "HEAD")
    h = ["--home", str(root)]
    said = refused(*h, "memory", "remove", "MEMORY.md", "Call the vet")
    assert "read 'Call the vet' alike" in said and "by its number" in said, said
    assert git(root, "rev-parse", "HEAD") == head
    assert "Tuesdays only" in memory.read_text()
    listed = json.loads(ok(*h, "memory", "list", "MEMORY.md", "--json"))["entries"]
    second = [e["number"] for e in listed if e["text"] == "Call the vet"][1]
    ok(*h, "memory", "remove", "MEMORY.md", f"#{second}")
    text = memory.read_text()
    assert text.count("Call the vet") == 1 and "Tuesdays only" in text
