"""Issue 52, "CLI reads in <= 100 ms p50 beside a server": ``status``, ``get``,
``search`` and ``context`` beside a running server are the server's answer
printed without click or the CLI (``client/read.py``), the same bytes and exit
status as the command through click prints."""

from __future__ import annotations

import pytest

from hearth.client.printed import ENTRY_CONFLICTS_DIR, counted
from hearth.client.read import plain
from hearth.domain import layout, text
from tests.api.conftest import Server, shared_server, wait_for
from tests.cli.test_writes_served import answer, loaded, run, run_cli

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses
__all__ = ["shared_server"]  # the module's server, a fixture

#: Each read in the shapes the lean path takes.
LEAN = [
    ("status",),
    ("status", "--json"),
    ("get", "SOUL.md"),
    ("get", "memory/topics/otters.md", "--json"),
    ("search", "otters"),
    ("search", "kingfishers", "--json"),
    ("context",),
    ("context", "--json"),
    ("context", "--session", "subagent", "--query", "otters by the weir"),
    ("context", "-q", "otters", "--session", "main", "--json"),
]
#: Shapes it leaves to the CLI, and answers the CLI gives in its own words.
CLIS = [
    ("status", "--verbose"),
    ("search", "otters", "--limit", "3"),
    ("get", "memory/topics/missing.md"),
    ("get", "memory/topics/escape.md"),  # click drops escape sequences to a pipe
    ("context", "--session", "nobody"),
    ("search",),
]


@pytest.fixture(scope="module")
def served(shared_server: Server) -> Server:
    """A home with notes that a search and a recall find, one of them holding a
    character ``shown`` replaces and one an escape sequence, settled."""
    reply = shared_server.put(
        "/v1/files/memory/topics/otters.md",
        {"content": "# Otters\n\nOtters by the weir hold hands \u2014 a caf\u00e9.\n"},
        token="write",
    )
    assert reply.status == 200, reply.body
    # Hand edits: the API refuses such text, a file in the work tree holds it.
    topics = shared_server.root / "memory/topics"
    (topics / "hidden.md").write_text("# Hidden\n\nOtters\u200b hide a zero-width space.\n")
    (topics / "escape.md").write_text("# Escape\n\nOtters \x1b[31mred\x1b[0m.\n")
    reply = shared_server.post("/v1/daily", {"text": "Kingfishers at dawn"}, token="write")
    assert reply.status == 200, reply.body

    def settled() -> bool:
        # The watcher has told the server of the hand edits (a loaded machine can
        # report them after a snapshot said current), and no pass is left.
        hits = shared_server.get("/v1/search?q=otters", token="read").body.get("hits", [])
        paths = {hit.get("path") for hit in hits}
        if not {"memory/topics/hidden.md", "memory/topics/escape.md"} <= paths:
            return False
        status = shared_server.get("/v1/status", token="read").body
        return bool(status.get("snapshot", {}).get("current"))

    assert wait_for(settled, 30)
    return shared_server


@pytest.mark.parametrize("args", LEAN, ids=[" ".join(a) for a in LEAN])
def test_a_read_beside_a_server_is_one_request_printed_as_the_command_prints(
    served: Server, args: tuple[str, ...]
) -> None:
    """Case: status, get, search and context beside a running server load
    neither click nor the CLI, and print what the command through click prints."""
    lean = run(served.root, *args)
    through_click = run_cli(served.root, *args)
    assert "click" not in loaded(lean.stderr) and "hearth.cli" not in loaded(lean.stderr)
    assert "click" in loaded(through_click.stderr)
    assert lean.returncode == through_click.returncode == 0, answer(lean.stderr)
    assert lean.stdout == through_click.stdout
    assert answer(lean.stderr) == answer(through_click.stderr)
    assert lean.stdout


def test_a_shown_character_is_printed_as_the_command_shows_it(served: Server) -> None:
    """Case: text holding a character ``shown`` replaces (a zero-width space) is
    printed with its stand-in, as through click."""
    args = ("context", "--session", "subagent", "--query", "zero-width space")
    lean = run(served.root, *args)
    assert "click" not in loaded(lean.stderr)
    assert lean.stdout == run_cli(served.root, *args).stdout
    assert "{U+200B}" in lean.stdout


@pytest.mark.parametrize("args", CLIS, ids=[" ".join(a) for a in CLIS])
def test_what_the_lean_reads_do_not_take_is_the_clis(served: Server, args: tuple[str, ...]) -> None:
    """Case: another shape, a refusal or an answer the lean path does not print
    itself is the CLI's, which answers as before."""
    lean = run(served.root, *args)
    through_click = run_cli(served.root, *args)
    assert "click" in loaded(lean.stderr)
    assert (lean.returncode, lean.stdout) == (through_click.returncode, through_click.stdout)
    assert answer(lean.stderr) == answer(through_click.stderr)


def test_plain_text_is_what_shown_prints_as_it_is() -> None:
    """Case: the lean path prints text as it is only where ``domain.text.shown``
    would, for every character (alone, doubled, between letters)."""
    kept = [chr(c) for c in range(0x110000) if plain(chr(c))]
    assert len(kept) > 100_000
    whole = "".join(kept)
    assert text.shown(whole) == whole
    for c in kept:
        if not c.isascii():
            assert text.shown(f"a{c}b{c}{c}") == f"a{c}b{c}{c}", hex(ord(c))
    replaced = [chr(c) for c in range(0x110000) if text.shown(f"a{chr(c)}") != f"a{chr(c)}"]
    assert not any(plain(c) for c in replaced)


def test_the_printed_words_are_the_domain_s() -> None:
    """Case: ``client/printed.py`` spells ``counted`` and the conflicts' folder
    without loading the domain: the two say the same."""
    assert ENTRY_CONFLICTS_DIR == layout.ENTRY_CONFLICTS_DIR
    for n in (0, 1, 2, 11):
        assert counted(n, "entry", "entries") == text.counted(n, "entry", "entries")
        assert counted(n, "file") == text.counted(n, "file")
