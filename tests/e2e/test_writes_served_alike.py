"""``loop add`` and a one-key ``merge`` go through the home's one server when one
runs (issue 52), and answer exactly as the command answers alone
(``HEARTH_SERVER=off``): the same lines on stdout and stderr, the same JSON,
the same exit status. Two twin homes: one beside a real ``hearth serve`` over
loopback, one with no server; keys, commits and versions are named alike."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.api.conftest import Server, isolated_env, make_home, start_server

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


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Twins]:
    """One pair of twins for the module (a server and two ``hearth init`` per case
    were much of its CPU): each case names its own loops, proposals, files and
    tokens, and runs its commands on both twins, so they stay alike whatever
    ran before it."""
    yield from module_twins(tmp_path_factory)


def module_twins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Twins]:
    """A pair of twins for a module's cases (its fixture yields from this)."""
    folder = tmp_path_factory.mktemp("twins")
    env = isolated_env(tmp_path_factory.mktemp("userhome"))
    server = start_server(make_home(folder / "served", env), env=env)
    try:
        yield Twins(server, make_home(folder / "alone", env))
    finally:
        assert server.stop() == 0
    assert "Traceback" not in server.stderr, server.stderr


@pytest.fixture
def own_twins(tmp_path: Path) -> Iterator[Twins]:
    """Twins of the case's own, for one that restarts the server with settings."""
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
    # The lone twin gets the same loop, so the twins stay alike for the cases after.
    for summary in ("check the sluice", "sluice fixed"):
        assert (
            run(twins.alone, "loop", "add", "--title", "Mill race", "--summary", summary).code == 0
        )


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
    # Where the held fact stands (the twins' MEMORY.md holds what earlier cases merged).
    line = (twins.served.root / "MEMORY.md").read_text().splitlines().index("- Location: Braga") + 1
    merged = run(twins.served.root, "merge", moved[0]), run(twins.alone, "merge", moved[1])
    assert merged[0].alike() == merged[1].alike() and merged[0].code == 0
    said = merged[0].out.splitlines()[-1]
    assert said.startswith(
        f"  replaced line {line} 'Location: Braga' with 'Location: Porto' (Braga -> Porto); "
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
        "line": line,
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
        listed = next(
            p
            for p in json.loads(run(root, "proposals", "--json").out)["proposals"]
            if p["title"] == "Otter diet"
        )
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


# -- the writes that were the command's own until now: each has its route ------------

#: What two runs a second apart differ in by nature besides ``_NAMED``: clock
#: stamps, a pass's or a run's seconds, a new token's secret.
_TIMED = (
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?"), "TIME"),
    (re.compile(r"in \d+\.\d+ s\b"), "in S s"),
    (re.compile(r'"seconds": [0-9.e-]+'), '"seconds": S'),
    (re.compile(r"hth_[A-Za-z0-9_-]+"), "TOKEN"),
)


def alike_in_time(ran: Ran) -> tuple[int, str, str]:
    code, out, err = ran.alike()
    for pattern, name in _TIMED:
        out, err = pattern.sub(name, out), pattern.sub(name, err)
    return code, out, err


def both_in_time(twins: Twins, *args: str) -> Ran:
    """As ``Twins.both``, for answers that carry a time or a secret: the served run
    opened no home, and both answer alike once those are named alike."""
    served, alone = run(twins.served.root, *args), run(twins.alone, *args)
    assert "pygit2" not in served.modules and "hearth.app" not in served.modules, args
    assert "pygit2" in alone.modules, args
    assert alike_in_time(served) == alike_in_time(alone), args
    return served


def test_topic_writes_and_appends_through_the_server(twins: Twins) -> None:
    """Case: ``topic`` (create, replace, append, --json) goes through the server
    (``POST /v1/topics``) and answers as alone; an empty title is refused alike."""
    made, _ = twins.both("topic", "Otter holts", "--content", "# Otter holts\n\nBy the weir.\n")
    assert made.code == 0 and made.out.startswith("wrote memory/topics/otter-holts.md (commit ")
    twins.both("topic", "Otter holts", "--append", "Kits in spring.")
    as_json, _ = twins.both("topic", "Otter holts", "--append", "Two dens.", "--json")
    assert list(json.loads(as_json.out)) == ["commit", "path", "changed"]
    note = (twins.served.root / "memory/topics/otter-holts.md").read_text()
    assert "By the weir." in note and "Kits in spring." in note and "Two dens." in note
    assert note == (twins.alone / "memory/topics/otter-holts.md").read_text()


def test_restore_brings_a_file_back_through_the_server(twins: Twins, tmp_path: Path) -> None:
    """Case: ``restore PATH REV`` goes through the server (``POST /v1/restore``): a
    note and a persona file come back as they were, with the same answer; a
    revision that names nothing is refused alike."""
    source = tmp_path / "weir.md"
    for text in ("# Otters\n\nFirst words.\n", "# Otters\n\nSecond words.\n"):
        source.write_text(text, encoding="utf-8")
        twins.both("put", "notes/weir.md", "--from-file", str(source))
    back, _ = twins.both("restore", "notes/weir.md", "HEAD~1")
    assert back.code == 0 and back.out.startswith("restored notes/weir.md from HEAD~1 (commit ")
    assert (twins.served.root / "notes/weir.md").read_text() == "# Otters\n\nFirst words.\n"
    soul = twins.both("restore", "SOUL.md", "--rev", "HEAD~2", "--json")[0]
    assert list(json.loads(soul.out)) == ["commit", "path", "changed"]
    missing = run(twins.served.root, "restore", "notes/weir.md", "no-such-rev")
    alone = run(twins.alone, "restore", "notes/weir.md", "no-such-rev")
    assert missing.alike() == alone.alike() and missing.code == 1 and "no-such-rev" in missing.err


def test_settle_rollup_and_consolidate_go_through_the_server(twins: Twins) -> None:
    """Cases: ``memory settle`` (``POST /v1/memory/conflicts/{id}/settle``; an id
    that is no conflict's is refused alike), ``rollup`` (``POST /v1/rollups``; a
    week's digest, and a week without notes refused alike) and ``consolidate``
    (``POST /v1/consolidate``) answer through the server as alone."""
    refused, _ = twins.both("memory", "settle", "no-such-conflict", "--keep", "file")
    assert refused.code == 1 and "no-such-conflict" in refused.err
    twins.both("note", "Otters were fishing by the weir")
    year, number, _day = dt.datetime.now(dt.UTC).isocalendar()
    rolled, _ = twins.both("rollup", "--week", f"{year}-W{number:02d}")
    assert rolled.code == 0 and rolled.out.startswith(
        f"wrote continuity/rollups/{year}-W{number:02d}.md (commit "
    ), rolled
    empty, _ = twins.both("rollup", "--week", "2001-W01")
    assert empty.code == 1 and "2001-W01" in empty.err
    proposed, _ = twins.both("consolidate", "--json")
    assert json.loads(proposed.out) == {"proposed": []}
    assert twins.both("consolidate", "MEMORY.md")[0].out == "proposed 0 consolidations\n"


def test_reindex_and_sync_go_through_the_server(twins: Twins, tmp_path: Path) -> None:
    """Cases: ``reindex`` (and ``--full``) is the server's pass (``POST
    /v1/reconcile``), and ``sync`` the server's (``POST /v1/sync``), with a real bare
    remote; both answer as alone, and a home without a remote is refused alike."""
    # Each twin's index caught up with what the cases before wrote (a served write
    # indexes ahead of the pass, which reads its file again): from here, alike.
    run(twins.alone, "reindex"), run(twins.served.root, "reindex")
    plain, full = both_in_time(twins, "reindex"), both_in_time(twins, "reindex", "--full")
    assert plain.out.startswith("full pass: ") and full.out.startswith("rebuilt the index: ")
    as_json = both_in_time(twins, "reindex", "--json")
    assert "embedded" in json.loads(as_json.out)
    nowhere, _ = twins.both("sync")
    assert nowhere.code == 1 and "no upstream" in nowhere.err
    for root, name in ((twins.served.root, "served"), (twins.alone, "alone")):
        remote = tmp_path / f"{name}.git"
        subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
        subprocess.run(["git", "-C", str(root), "remote", "add", "origin", str(remote)], check=True)
        subprocess.run(
            ["git", "-C", str(root), "push", "-q", "-u", "origin", "main"],
            check=True,
            capture_output=True,
        )
    twins.both("note", "Otters crossed the lane")
    pushed = both_in_time(twins, "sync")
    assert pushed.code == 0, pushed
    assert pushed.out.startswith("pushed with origin/main (was 1 ahead")
    assert both_in_time(twins, "sync", "--json").code == 0


def test_tokens_are_made_listed_and_revoked_through_the_server(twins: Twins) -> None:
    """Case: ``token create|list|revoke`` go through the server (``/v1/tokens``),
    the tokens file then has one writer; answers as alone, a taken name and an
    unknown one refused alike; a token made so is let in by the server at once."""
    made = both_in_time(twins, "token", "create", "--name", "otter-agent", "--scope", "write")
    assert made.code == 0 and made.out.startswith("hth_")
    reply = twins.served.get("/v1/proposals", token=made.out.strip())
    assert reply.status == 200
    # A refusal as input (422) is said by the command itself, as before.
    args = ("token", "create", "--name", "otter-agent", "--scope", "read")
    taken = run(twins.served.root, *args)
    assert alike_in_time(taken) == alike_in_time(run(twins.alone, *args))
    assert taken.code == 1 and "otter-agent" in taken.err
    # The served twin also holds the tokens its fixture made (t-read-..., t-admin-...).
    served, alone = run(twins.served.root, "token", "list"), run(twins.alone, "token", "list")
    assert "pygit2" not in served.modules and served.code == alone.code == 0
    own = [line[:-25] for line in served.out.splitlines() if not line.startswith("t-")]
    assert own == [line[:-25] for line in alone.out.splitlines()] == ["otter-agent  write  "]
    listed = run(twins.served.root, "token", "list", "--json").out
    tokens = [t for t in json.loads(listed)["tokens"] if not t["name"].startswith("t-")]
    alone_tokens = json.loads(run(twins.alone, "token", "list", "--json").out)["tokens"]
    assert [list(t.items())[:2] for t in tokens] == [list(t.items())[:2] for t in alone_tokens]
    assert [list(t) for t in tokens] == [["name", "scope", "created"]]
    gone, _ = twins.both("token", "revoke", "otter-agent")
    assert gone.out == "revoked otter-agent\n"
    assert twins.served.get("/v1/proposals", token=made.out.strip()).status == 401
    unknown, _ = twins.both("token", "revoke", "otter-agent")
    assert unknown.code == 1 and "otter-agent" in unknown.err


REFLECTOR = """\
import json, sys
bundle = json.load(sys.stdin)
facts = [e["text"].split("remember:", 1)[1].strip()
         for e in bundle["entries"] if "remember:" in e["text"]]
json.dump({"proposals": [{"title": "Things to keep", "entries": facts}] if facts else []},
          sys.stdout)
"""


def test_reflect_approves_and_runs_through_the_server(own_twins: Twins, tmp_path: Path) -> None:
    """Case: ``reflect --approve`` and ``reflect`` go through the server
    (``POST /v1/reflect/approve``, ``POST /v1/reflect``): the same approval, the
    same run and proposals, as alone."""
    script = tmp_path / "distill"
    script.write_text(f"#!{sys.executable}\n{REFLECTOR}")
    script.chmod(0o755)
    for root in (own_twins.served.root, own_twins.alone):
        settings = root / "hearth.toml"
        settings.write_text(settings.read_text() + f'\n[reflection]\ncommand = "{script}"\n')
        subprocess.run(["git", "-C", str(root), "commit", "-qam", "reflection"], check=True)
    # A server reads hearth.toml's [reflection] as it starts.
    assert own_twins.served.stop() == 0
    restarted = start_server(own_twins.served.root)
    try:
        again = Twins(restarted, own_twins.alone)
        approved, _ = again.both("reflect", "--approve")
        assert approved.out.startswith("approved on this machine: ")
        again.both("note", "remember: otters hold hands asleep")
        ran = both_in_time(again, "reflect")
        assert ran.code == 0 and "1 proposal" in ran.out, ran
        # A second run reads the daily entries from the minute of the first on
        # (a minute's entries are read again rather than missed): whether the
        # note's minute is read again depends on the minute each twin's first
        # run fell in, so the two answers agree on all but what it read again,
        # which each drops as already proposed.
        served, alone = (
            run(restarted.root, "reflect", "--json"),
            run(own_twins.alone, "reflect", "--json"),
        )
        assert "pygit2" not in served.modules and "pygit2" in alone.modules
        answers = [json.loads(ran.out) for ran in (served, alone)]
        for answer in answers:
            assert answer["error"] is None and answer["proposed"] == [], answer
            assert answer["dropped"] == len(answer["known"]) <= answer["entries"] <= 1, answer
        same = ("entries", "dropped", "known", "time", "seconds", "since")
        assert [{k: v for k, v in a.items() if k not in same} for a in answers] == [
            {k: v for k, v in answers[1].items() if k not in same}
        ] * 2
    finally:
        assert restarted.stop() == 0
