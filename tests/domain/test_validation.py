from __future__ import annotations

import pytest

from hearth.domain import records
from hearth.domain.validation import Bounds, check_blob, check_text

BOUNDS = Bounds(user_md=50, memory_md=80)
SOUL = "A careful, candid assistant. " * 5


def rules(path: str, text: str) -> set[str]:
    return {f.rule for f in check_text(path, text, BOUNDS)}


def test_good_files_pass() -> None:
    assert rules("SOUL.md", SOUL) == set()
    assert rules("IDENTITY.md", "# Identity\n\n**Name:** Ember\n") == set()
    assert rules("MEMORY.md", "## Entries\n- a\n") == set()


def test_each_failure_names_file_rule_and_fix() -> None:
    (failure,) = check_text("SOUL.md", "too short", BOUNDS)
    assert failure.path == "SOUL.md"
    assert failure.rule == "soul-length"
    assert failure.fix
    assert "SOUL.md" in failure.describe()


@pytest.mark.parametrize(
    ("path", "text", "rule"),
    [
        ("SOUL.md", "short", "soul-length"),
        ("IDENTITY.md", "Name: Ember", "identity-name"),
        ("IDENTITY.md", "**Name:**   \n", "identity-name"),
        ("USER.md", "x" * 51, "size-bound"),
        ("MEMORY.md", "x" * 81, "size-bound"),
        ("continuity/ACTIVE.md", "generated", "active-generated"),
        (".env", "A=1", "secret-file"),
        ("keys/server.pem", "x", "secret-file"),
        ("notes/id.key", "x", "secret-file"),
        ("cert.P12", "x", "secret-file"),
        ("notes.md", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n", "secret-text"),
        ("notes.md", "-----BEGIN RSA PRIVATE KEY-----", "secret-text"),
        ("notes.md", "aws AKIAIOSFODNN7EXAMPLE here", "secret-text"),
        ("notes.md", "token ghp_" + "a" * 36, "secret-text"),
        ("notes.md", "glpat-" + "x" * 20, "secret-text"),
        ("notes.md", "sk-ant-" + "a" * 40, "secret-text"),
        ("notes.md", "xoxb-1234567890-abcdef", "secret-text"),
        ("notes.md", "AIza" + "b" * 35, "secret-text"),
    ],
)
def test_rule_failures(path: str, text: str, rule: str) -> None:
    assert rule in rules(path, text)


@pytest.mark.parametrize(
    "text",
    [
        "We discussed the AWS bill and GitHub tokens in general.",
        "The key insight: ask first.",
        "sk-short is not a key",
        "BEGIN PRIVATE KEY without dashes",
    ],
)
def test_prose_is_not_a_secret(text: str) -> None:
    assert rules("notes.md", text) == set()


def test_record_key_must_match_title() -> None:
    proposal = records.Proposal(title="Likes tea", entries=("green",), created="c", updated="u")
    text = records.render(proposal)
    good = f"continuity/proposals/memory/{proposal.key}.md"
    assert rules(good, text) == set()
    assert rules(
        "continuity/proposals/memory/other--" + proposal.key.split("--")[1] + ".md", text
    ) == {"record-key"}
    archived = f"continuity/proposals/memory/archive/merged/{proposal.key}--1234.md"
    assert rules(archived, text) == set()
    assert rules("continuity/open-loops/x.md", "no front matter") == {"record-parse"}


def test_binary_markdown_is_reported() -> None:
    assert {f.rule for f in check_blob("notes.md", b"\xff\xfe", BOUNDS)} == {"utf-8"}
    assert check_blob("image.png", b"\x89PNG\xff", BOUNDS) == []


def test_person_notes_are_bounded_like_user_md_unless_set() -> None:
    from hearth.domain.settings import parse_settings

    text = "# Sam\n\n" + "x" * 8_100
    assert [f.rule for f in check_text("users/sam.md", text, Bounds())] == ["size-bound"]
    assert check_text("users/sam.md", "# Sam\n\nshort\n", Bounds()) == []
    assert check_text("memory/topics/sam.md", text, Bounds()) == []
    roomy = parse_settings("[bounds]\nuser_note = 9000\n").bounds
    assert check_text("users/sam.md", text, roomy) == []
    assert parse_settings("[bounds]\nuser_md = 100\n").bounds.user_note == 100
