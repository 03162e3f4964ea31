"""Served writes attacked (issue 52's twins): what a person mistypes answers the
same beside the home's server as alone (``HEARTH_SERVER=off``), in the
command's own words, with the same exit status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_writes_served_alike import Twins, module_twins, run

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Twins]:
    """One pair of twins for the module: every case here is a refusal that
    writes nothing (the last ones check it), so each meets the twins as the one
    before left them, alike."""
    yield from module_twins(tmp_path_factory)


def test_an_empty_note_is_refused_in_the_commands_words(twins: Twins) -> None:
    """hostile: ``hearth note ""`` beside a server printed the API schema's
    "body.text: String should have at least 1 character" where alone it says
    the note is empty."""
    served, alone = run(twins.served.root, "note", ""), run(twins.alone, "note", "")
    assert served.alike() == alone.alike()
    assert served.code == 1 and "note text is empty" in served.err


@pytest.mark.parametrize(
    "args",
    [
        ("loop", "resolve", "../../MEMORY"),
        ("decision", "withdraw", "van--x/../y", "--reason", "gone"),
        ("merge", "continuity/proposals/memory/x"),
        ("reject", "a/b", "--reason", "no"),
        ("loop", "resolve", ".."),
    ],
)
def test_a_key_that_is_no_key_is_named_alike(twins: Twins, args: tuple[str, ...]) -> None:
    """hostile: a key holding ``/`` (or ``..``) beside a server reached no
    route, and the command said only "Not Found"; alone it says the key is no
    record key and how to list them."""
    served, alone = run(twins.served.root, *args), run(twins.alone, *args)
    assert served.code == 1 and "is not a record key" in served.err, served.err
    assert served.alike() == alone.alike()


@pytest.mark.parametrize("oid", ["", "abc", "0" * 39 + "g"])
def test_an_expected_oid_that_is_no_version_is_named(
    twins: Twins, oid: str, tmp_path: Path
) -> None:
    """hostile follow-up 4: ``put --expected-oid ""`` said "changed since you
    read it (HEAD has ..., you expected )"; what is no blob id is refused in
    the command's words, alike beside a server and alone, nothing written."""
    source = tmp_path / "new-soul.md"
    source.write_text("# Soul\n\nCalm.\n")
    args = ("put", "SOUL.md", "--from-file", str(source), "--expected-oid", oid)
    served, alone = run(twins.served.root, *args), run(twins.alone, *args)
    assert served.alike() == alone.alike()
    assert served.code == 1 and f"--expected-oid {oid!r} is not a file's version" in served.err
    assert "Calm." not in (twins.served.root / "SOUL.md").read_text()
    assert "Calm." not in (twins.alone / "SOUL.md").read_text()
