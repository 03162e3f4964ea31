"""``loop add`` and a one-key ``merge`` go through the home's one server when one
runs (issue 52), and answer exactly as the command answers alone
(``HEARTH_SERVER=off``): the same lines on stdout and stderr, the same JSON,
the same exit status. Two twin homes: one beside a real ``hearth serve`` over
loopback, one with no server; keys, commits and versions are named alike."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.api.conftest import Server, make_home, start_server

#: What differs between two homes by nature: record keys' ids, commits, versions.
_NAMED = (
    (re.compile(r"--[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "--ID"),
    (re.compile(r"\b[0-9a-f]{12,40}\b"), "HEX"),
)


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str
    modules: frozenset[str]

    def alike(self) -> tuple[int, str, str]:
        named = [self.out, self.err]
        for pattern, name in _NAMED:
            named = [pattern.sub(name, text) for text in named]
        return self.code, named[0], named[1]


def run(root: Path, *args: str) -> Ran:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hearth", "--home", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HEARTH_SERVER": "off"},
    )
    lines = done.stderr.splitlines()
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in lines
        if line.startswith("import time:") and "|" in line
    }
    err = "\n".join(line for line in lines if not line.startswith("import time:"))
    return Ran(done.returncode, done.stdout, err, frozenset(modules))


@dataclass(frozen=True)
class Twins:
    served: Server
    alone: Path

    def both(self, *args: str) -> tuple[Ran, Ran]:
        """``args`` run beside the server and alone: the served one opened no home
        (no libgit2, no application), the lone one did; their answers alike."""
        served, alone = run(self.served.root, *args), run(self.alone, *args)
        assert "pygit2" not in served.modules and "hearth.app" not in served.modules, args
        assert "pygit2" in alone.modules, args
        assert served.alike() == alone.alike(), args
        return served, alone


@pytest.fixture
def twins(tmp_path: Path) -> Iterator[Twins]:
    server = start_server(make_home(tmp_path / "served"))
    try:
        yield Twins(server, make_home(tmp_path / "alone"))
    finally:
        assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr


def test_loop_add_new_and_updated_is_the_servers_and_says_so(twins: Twins) -> None:
    """Case: ``loop add`` goes through the server; it still says on stderr when it
    updated the loop of that title (a record's ``updated`` stamp is to the
    second, so "found, unchanged" depends on the clock and is left out here), and ``--json`` carries
    ``updated``, as the command alone does."""
    first, _ = twins.both("loop", "add", "--title", "Otter lanterns", "--summary", "wicks")
    assert first.err == "" and first.out.startswith("otter-lanterns--")
    changed, _ = twins.both("loop", "add", "--title", "Otter lanterns", "--summary", "oil")
    assert changed.out == first.out
    assert changed.err.startswith("hearth: updated the open loop otter-lanterns--")
    as_json, _ = twins.both("loop", "add", "--title", "Otter lanterns", "--next", "buy", "--json")
    data = json.loads(as_json.out)
    assert list(data) == ["key", "path", "commit", "updated"] and data["updated"] is True
    fresh, _ = twins.both("loop", "add", "--title", "Heron nest", "--json")
    assert json.loads(fresh.out)["updated"] is False


def test_the_loop_answer_carries_updated_over_http(twins: Twins) -> None:
    """Case: the API's answer to ``POST /v1/loops`` says whether it updated a loop."""
    body = {"title": "Mill race", "summary": "check the sluice"}
    opened = twins.served.post("/v1/loops", body)
    again = twins.served.post("/v1/loops", {**body, "summary": "sluice fixed"})
    assert (opened.status, again.status) == (200, 200)
    assert opened.body["updated"] is False and again.body["updated"] is True
    assert again.body["key"] == opened.body["key"] and again.body["changed"] is True


def test_merge_of_one_key_shows_and_merges_through_the_server(twins: Twins) -> None:
    """Case: one-key ``merge`` goes through the server: it shows the proposal (its
    target, every entry, the version) and merges it, as the command alone does;
    a key that is no proposal's is refused alike."""
    for args in (
        ("propose", "--title", "Otter facts", "--entry", "Otters use tools", "--entry", "Rafts"),
        ("propose", "--title", "Heron facts", "--entry", "Herons stand still"),
    ):
        twins.both(*args)
    keys = [run(twins.served.root, "proposals", "--json"), run(twins.alone, "proposals", "--json")]
    otter, heron = (  # each: [the served home's key, the lone home's]
        [p["key"] for ran in keys for p in json.loads(ran.out)["proposals"] if p["title"] == title]
        for title in ("Otter facts", "Heron facts")
    )
    merged = run(twins.served.root, "merge", otter[0]), run(twins.alone, "merge", otter[1])
    assert merged[0].alike() == merged[1].alike()
    assert "pygit2" not in merged[0].modules and "hearth.app" not in merged[0].modules
    assert merged[0].out.startswith(f"merging:\n{otter[0]}  Otter facts (2 entries -> MEMORY.md)")
    assert "    - Otters use tools\n    - Rafts\nmerged " in merged[0].out
    assert "Otters use tools" in (twins.served.root / "MEMORY.md").read_text()
    as_json = run(twins.served.root, "merge", heron[0], "--json")
    alone_json = run(twins.alone, "merge", heron[1], "--json")
    assert as_json.alike() == alone_json.alike() and as_json.code == 0
    assert list(json.loads(as_json.out)) == ["commit", "path", "changed", "key", "replaced"]
    missing = twins.both("merge", "no-such-key")[0]
    assert missing.code == 1 and missing.out == "" and "no-such-key" in missing.err


def test_a_merge_says_what_each_replacement_replaces(twins: Twins) -> None:
    """Case (3) of the data-trust leftovers: ``hearth merge KEY`` of a proposal
    that gives a held fact a new value says which line it replaced, with what,
    and where the old entry is kept; ``--json`` carries it as ``replaced``;
    served and alone alike."""
    twins.both("memory", "add", "MEMORY.md", "Location: Braga")
    twins.both("memory", "add", "MEMORY.md", "Sam likes tea")
    twins.both("propose", "--title", "Moved", "--entry", "Location: Porto")
    twins.both("propose", "--title", "Moved again", "--entry", "Location: Faro")
    keys = [run(twins.served.root, "proposals", "--json"), run(twins.alone, "proposals", "--json")]
    moved, again = (
        [p["key"] for ran in keys for p in json.loads(ran.out)["proposals"] if p["title"] == title]
        for title in ("Moved", "Moved again")
    )
    merged = run(twins.served.root, "merge", moved[0]), run(twins.alone, "merge", moved[1])
    assert merged[0].alike() == merged[1].alike() and merged[0].code == 0
    said = merged[0].out.splitlines()[-1]
    assert said.startswith(
        "  replaced line 13 'Location: Braga' with 'Location: Porto' (Braga -> Porto); "
        "the old entry is kept in continuity/superseded/"
    ), merged[0].out
    kept = said.rsplit(" ", 1)[1]
    assert "- Entry: Location: Braga" in (twins.served.root / kept).read_text()
    as_json = run(twins.served.root, "merge", again[0], "--json")
    alone_json = run(twins.alone, "merge", again[1], "--json")
    assert as_json.alike() == alone_json.alike() and as_json.code == 0
    [replaced] = json.loads(as_json.out)["replaced"]
    assert {k: replaced[k] for k in ("entry", "replaces", "line", "rule", "was", "now")} == {
        "entry": "Location: Faro",
        "replaces": "Location: Porto",
        "line": 13,
        "rule": "field",
        "was": "Porto",
        "now": "Faro",
    }
    assert replaced["kept_at"].startswith("continuity/superseded/")


def test_a_merge_carries_the_version_shown_and_an_agents_edit_since_is_refused(
    twins: Twins,
) -> None:
    """Case: the served merge carries the version the person was shown: after an
    agent's edit of the proposal, a merge of the version shown is refused (the
    server's 409), nothing is merged, and the refusal reads as the command's own."""
    answers = []
    for root in (twins.served.root, twins.alone):
        run(root, "propose", "--title", "Otter diet", "--entry", "Otters eat fish")
        listed = json.loads(run(root, "proposals", "--json").out)["proposals"][0]
        edited = run(
            root,
            "--actor",
            "agent",
            "propose",
            "--title",
            "Otter diet",
            "--entry",
            "Otters eat kelp",
        )
        assert edited.code == 0 and edited.out.strip() == listed["key"], edited.err
        refused = run(root, "merge", listed["key"], "--version", listed["oid"])
        assert refused.code == 1 and refused.out == ""
        assert "changed since you read it" in refused.err
        memory = (root / "MEMORY.md").read_text()
        assert "Otters eat" not in memory
        answers.append(refused)
    assert "pygit2" not in answers[0].modules and "pygit2" in answers[1].modules
    assert answers[0].alike() == answers[1].alike()


def test_put_is_the_servers_and_answers_as_alone(twins: Twins, tmp_path: Path) -> None:
    """Case: ``put`` (a persona edit, a note by hand) goes through the server: the
    same answer as alone, and the same refusal for a stale ``--expected-oid``."""
    source = tmp_path / "soul.md"
    body = "Kind, curious and brief; asks before guessing, and says so when unsure. " * 4
    source.write_text(f"# Soul\n\n{body}\n", encoding="utf-8")
    done, _ = twins.both("put", "SOUL.md", "--from-file", str(source))
    assert done.code == 0 and done.out.startswith("wrote SOUL.md (commit ")
    assert (twins.served.root / "SOUL.md").read_text() == source.read_text()
    as_json, _ = twins.both("put", "notes/otters.md", "--from-file", str(source), "--json")
    assert list(json.loads(as_json.out)) == ["commit", "path", "changed"]
    stale, _ = twins.both("put", "SOUL.md", "--from-file", str(source), "--expected-oid", "0" * 40)
    assert stale.code == 1 and stale.out == "" and "SOUL.md" in stale.err
