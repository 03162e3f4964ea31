"""Reflection with real commands: it only ever proposes, and a bad run leaves nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hearth.domain.reflection import parse_output, parse_reflection_settings
from hearth.errors import InvalidInput
from tests.api.conftest import start_server, wait_for
from tests.conftest import git
from tests.e2e.run import on_terminal
from tests.e2e.test_cli_e2e import home, ok, refused  # noqa: F401  (fixture)

REFLECTOR = """\
import json, sys
bundle = json.load(sys.stdin)
facts = [e["text"].split("remember:", 1)[1].strip()
         for e in bundle["entries"] if "remember:" in e["text"]]
json.dump({"proposals": [{"title": "Things to keep", "entries": facts,
                          "rationale": "said in the daily notes"}] if facts else []},
          sys.stdout)
"""


def _script(tmp: Path, name: str, body: str) -> Path:
    path = tmp / name
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(0o755)
    return path


def _configure(root: Path, command: str, every: str = "4h", timeout: str = "20s") -> None:
    settings = root / "hearth.toml"
    settings.write_text(
        settings.read_text()
        + f'\n[reflection]\ncommand = "{command}"\nevery = "{every}"\ntimeout = "{timeout}"\n'
    )
    git(root, "commit", "-qam", "settings: reflection")
    ok("--home", str(root), "reflect", "--approve")  # this machine's person trusts it


def _proposals(root: Path) -> list[dict[str, object]]:
    return json.loads(ok("--home", str(root), "proposals", "--json"))["proposals"]


def test_reflection_proposes_and_drops_what_is_known(home: Path, tmp_path: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    _configure(home, str(_script(tmp_path, "distill", REFLECTOR)))
    ok(*h, "memory", "add", "MEMORY.md", "Sam is allergic to cats")
    ok(*h, "note", "Long day. remember: Sam prefers green tea")
    ok(*h, "note", "remember: Sam is allergic to cats")
    memory_before = (home / "MEMORY.md").read_text()
    run = json.loads(ok(*h, "reflect", "--json"))
    assert run["error"] is None and run["dropped"] == 1 and len(run["proposed"]) == 1
    found = _proposals(home)
    assert len(found) == 1
    assert found[0]["source"] == "reflection"
    assert found[0]["entries"] == ["Sam prefers green tea"]
    assert "Hearth-Actor: distill" in git(home, "log", "-1", "--format=%B")
    assert (home / "MEMORY.md").read_text() == memory_before  # never edits memory itself
    # Again: the same entry is pending now, so nothing new.
    ok(*h, "note", "remember: Sam prefers green tea")
    again = json.loads(ok(*h, "reflect", "--json"))
    # (entries are timed to the minute, so the last run's minute is read again)
    assert again["proposed"] == [] and again["dropped"] >= 1
    status = json.loads(ok(*h, "status", "--json"))
    assert status["reflection"]["enabled"] is True
    assert status["reflection"]["last"]["error"] is None


@pytest.mark.parametrize(
    ("name", "body", "why"),
    [
        ("slow", "import time; time.sleep(30)", "ran over 1 s"),
        ("garbage", "print('I think you should remember tea')", "not JSON"),
        (
            "remover",
            "import json, sys; json.dump({'proposals': [], 'remove': ['Sam']}, sys.stdout)",
            "only 'proposals'",
        ),
        ("crasher", "import sys; sys.exit(3)", "status 3"),
    ],
)
def test_a_bad_run_leaves_nothing_and_shows(
    home: Path,  # noqa: F811
    tmp_path: Path,
    name: str,
    body: str,
    why: str,
) -> None:
    h = ["--home", str(home)]
    _configure(home, str(_script(tmp_path, name, body)), timeout="1s")
    ok(*h, "note", "remember: something")
    head = git(home, "rev-parse", "HEAD")
    assert why in refused(*h, "reflect")
    assert git(home, "rev-parse", "HEAD") == head
    status = json.loads(ok(*h, "status", "--json"))
    assert status["pending_proposals"] == 0  # nothing proposed (no proposals process)
    assert why in status["reflection"]["last"]["error"]
    ok(*h, "active")
    assert "reflection failed" in (home / "continuity/ACTIVE.md").read_text()


def test_nothing_runs_without_a_command(home: Path) -> None:  # noqa: F811
    assert "no reflection command" in refused("--home", str(home), "reflect")


def test_the_scheduled_job_runs_it(home: Path, tmp_path: Path) -> None:  # noqa: F811
    _configure(home, str(_script(tmp_path, "distill", REFLECTOR)), every="1s")
    ok("--home", str(home), "note", "remember: the spare key is under the mat")
    server = start_server(home)
    try:
        assert wait_for(lambda: server.get("/v1/proposals").body["proposals"], 15)
        found = server.get("/v1/proposals").body["proposals"]
        assert found[0]["entries"] == ["the spare key is under the mat"]
        jobs = {j["name"]: j for j in server.get("/v1/status").body["scheduler"]["jobs"]}
        assert jobs["reflection"]["runs"] >= 1 and jobs["reflection"]["last_error"] is None
    finally:
        assert server.stop() == 0


def test_output_and_settings_are_checked_whole() -> None:
    good = parse_output(b'{"proposals": [{"title": "T", "entries": ["a", "a", "b"]}]}')
    assert good[0].entries == ("a", "b")
    for bad in (
        b"[]",
        b'{"proposals": [{"title": "T", "entries": []}]}',
        b'{"proposals": [{"title": "T", "entries": ["x"], "op": "remove"}]}',
        b'{"proposals": [{"title": "", "entries": ["x"]}]}',
        b'{"proposals": [{"title": "T", "entries": [3]}]}',
        b"\xff",
    ):
        with pytest.raises(InvalidInput):
            parse_output(bad)
    settings = parse_reflection_settings({"command": "llm 'a b'", "every": "90m", "timeout": 30})
    assert settings.command == ("llm", "a b") and settings.every_seconds == 5400
    with pytest.raises(InvalidInput):
        parse_reflection_settings({"command": "x", "every": "soon"})


PARAPHRASER = """\
import json, sys
json.dump({"proposals": [
    {"title": "Cat allergy", "entries": ["Sam has an allergy to cats"]},
    {"title": "Tea", "entries": ["Sam prefers green tea", "Sam would rather drink green tea"]},
]}, sys.stdout)
"""


def test_a_known_fact_in_other_words_is_not_proposed_again(home: Path, tmp_path: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    _configure(home, str(_script(tmp_path, "paraphrase", PARAPHRASER)))
    ok(*h, "memory", "add", "MEMORY.md", "Sam is allergic to cats")
    line = (home / "MEMORY.md").read_text().split("\n").index("- Sam is allergic to cats") + 1
    run = json.loads(ok(*h, "reflect", "--json"))
    assert run["error"] is None
    # The cat allergy is known (in other words); the second tea entry repeats the first.
    assert run["dropped"] == 2
    found = _proposals(home)
    assert [p["entries"] for p in found] == [["Sam prefers green tea"]]
    known = {k["entry"]: k for k in run["known"]}
    assert known["Sam has an allergy to cats"]["path"] == "MEMORY.md"
    assert known["Sam has an allergy to cats"]["line"] == line
    assert known["Sam has an allergy to cats"]["where"] == "known"
    assert known["Sam would rather drink green tea"]["where"] == "proposed"
    record = json.loads((home / ".git" / "hearth" / "reflection.json").read_text())
    assert record["dropped"] == 2 and len(record["known"]) == 2
    # Run again: everything is known or pending now, so nothing is proposed.
    again = json.loads(ok(*h, "reflect", "--json"))
    assert again["proposed"] == [] and again["dropped"] == 3
    assert len(_proposals(home)) == 1


def test_the_threshold_is_a_setting(home: Path, tmp_path: Path) -> None:  # noqa: F811
    h = ["--home", str(home)]
    _configure(home, str(_script(tmp_path, "paraphrase", PARAPHRASER)))
    settings = home / "hearth.toml"
    settings.write_text(settings.read_text().replace("threshold = 0.56", "threshold = 1.0"))
    git(home, "commit", "-qam", "settings: only the same text counts")
    ok(*h, "memory", "add", "MEMORY.md", "Sam is allergic to cats")
    run = json.loads(ok(*h, "reflect", "--json"))
    assert run["dropped"] == 0 and len(run["proposed"]) == 2
    settings.write_text(settings.read_text().replace("threshold = 1.0", "threshold = 3"))
    # The commit's own rules refuse a setting hearth cannot use, naming it...
    stopped = subprocess.run(
        ["git", "-C", str(home), "commit", "-qam", "settings: a bad threshold"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert stopped.returncode != 0 and "[review] threshold" in stopped.stderr, stopped.stderr
    # ...and one committed past them (--no-verify) is named by the commands.
    git(home, "commit", "--no-verify", "-qam", "settings: a bad threshold")
    message = refused(*h, "proposals")
    assert "[review] threshold" in message


def test_a_command_set_in_an_editor_is_approved_at_the_terminal(
    home: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    """Issue 49 case 1: a command the person set with an editor still needs this
    machine's approval; 'hearth reflect' on a terminal shows it and asks (no by
    default), and only a yes runs it."""
    marker = tmp_path / "ran"
    body = (
        f"import json\nopen({str(marker)!r}, 'w').write('x')\n"
        "print(json.dumps({'proposals': []}))\n"
    )
    script = _script(tmp_path, "mine", body)
    settings = home / "hearth.toml"
    settings.write_text(settings.read_text() + f'\n[reflection]\ncommand = "{script}"\n')
    git(home, "commit", "-qam", "settings: my reflector")
    code, shown = on_terminal("--home", str(home), "reflect", typed="n\n")
    assert code == 1 and str(script) in shown and "not been approved" in shown
    assert not marker.exists()
    code, shown = on_terminal("--home", str(home), "reflect", typed="y\n")
    assert code == 0, shown
    assert marker.exists()
    status = json.loads(ok("--home", str(home), "status", "--json"))
    assert status["reflection"]["approved"] is True
