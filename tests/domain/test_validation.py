from __future__ import annotations

import base64
import unicodedata

import pytest

from hearth.domain import lookalike, records
from hearth.domain.validation import Bounds, check_blob, check_new_path, check_text

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


OPENCLAW_UNFILLED = (
    "# IDENTITY.md - Who Am I?\n\n"
    "_Fill this in during your first conversation. Make it yours._\n\n"
    "- **Name:**\n  _(pick something you like)_\n"
    "- **Creature:**\n  _(AI? robot? familiar? ghost in the machine? something weirder?)_\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "**Name:** Ember\n",
        "**Name**: Ember\n",
        "- **Name:** Clawd\n- **Creature:** lobster\n",
        "- **Name**: Clawd\n",
        "* **Name:**\tClawd",
        "\ufeff# IDENTITY.md\n\n**Name:** Ember\n",
        "\ufeff**Name:** Ember\n",
        "# Identity\r\n\r\n**Name:** Ember\r\n",
    ],
)
def test_identity_names_on_the_same_line_pass(text: str) -> None:
    assert rules("IDENTITY.md", text) == set()


@pytest.mark.parametrize(
    "text",
    [
        OPENCLAW_UNFILLED,
        "- **Name:**\n- **Creature:** lobster\n",
        "**Name:**\n\nEmber\n",
        "**Name**:\nEmber\n",
        "**Name:** \r\nEmber\r\n",
        "**Name:**   ",
        "Name: Ember\n",
        "**Names:** Ember\n",
    ],
)
def test_identity_without_a_name_on_the_line_fails(text: str) -> None:
    assert rules("IDENTITY.md", text) == {"identity-name"}


def test_a_bom_never_fails_a_rule() -> None:
    bom = "\ufeff"
    assert rules("SOUL.md", bom + SOUL) == set()
    assert rules("SOUL.md", bom + "x" * 99) == {"soul-length"}
    assert rules("MEMORY.md", bom + "## Entries\n- a\n") == set()
    proposal = records.Proposal(title="Likes tea", entries=("green",), created="c", updated="u")
    path = f"continuity/proposals/memory/{proposal.key}.md"
    assert rules(path, bom + records.render(proposal)) == set()
    assert check_blob("IDENTITY.md", (bom + "**Name:** Ember\n").encode(), BOUNDS) == []


def test_old_keys_pass_and_wrong_ones_do_not() -> None:
    proposal = records.Proposal(title="CAFÉ au lait", entries=("x",), created="c", updated="u")
    text = records.render(proposal)
    legacy = records.legacy_record_key("CAFÉ au lait")
    assert legacy != proposal.key
    assert rules(f"continuity/proposals/memory/{legacy}.md", text) == set()
    assert rules(f"continuity/proposals/memory/archive/merged/{legacy}--1.md", text) == set()
    unrelated = records.record_key("something else")
    assert rules(f"continuity/proposals/memory/{unrelated}.md", text) == {"record-key"}


GH = "ghp_" + "x1Y2z3W4v5U6t7S8r9Q0p1O2n3M4l5K6j7I8"


@pytest.mark.parametrize(
    "text",
    [
        "token: hth_" + "q3Jx_k9Lm2Np4Rs6Tv8Wx0Yz1Ab3Cd5Ef7Gh9Ij1Kl",
        '{"hook_key": "hthk_' + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zy" + '"}',
        "Bearer hearth-local.admin.bWU.hthk_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe9Dc8Ba7Zy",
        "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "auth: " + base64.b64encode(f"bot:{GH}".encode()).decode(),
        "auth: " + base64.urlsafe_b64encode(GH.encode()).decode(),
        f"my token is {GH[:20]}\n{GH[20:]}\n",
        f"key = {GH[:25]}\\\n    {GH[25:]}\n",
        "-----BEGIN  RSA PRIVATE KEY-----\nMIIEow\n",
        "-----BEGIN RSA  PRIVATE KEY-----\nMIIEow\n",
        "-----begin openssh private key-----\nb3Bl\n",
    ],
)
def test_the_secret_guard_refuses_what_issue_49_let_through(text: str) -> None:
    """Issue 49 case 8: hearth's own tokens and hook key, an AWS secret key, a
    base64-wrapped GitHub token, a key cut over two lines, a private-key header
    with two spaces."""
    assert "secret-text" in rules("memory/topics/keys.md", text)


def test_a_served_home_s_hook_key_is_refused_as_a_secret() -> None:
    """Issue 49 case 8: the hook key a server makes is in a format the guard knows."""
    from hearth.store.server_file import new_hook_key

    assert "secret-text" in rules("notes.md", f"the key was {new_hook_key()} yesterday")


@pytest.mark.parametrize(
    "text",
    [
        "line one\r\nline two\r\n",  # not TOML at all
        "[bounds\nuser_md = 1\n",  # a table left open
        '[daily]\nlayout = "weekly"\n',  # TOML, but a value hearth refuses
    ],
)
def test_a_hearth_toml_hearth_cannot_read_is_refused(text: str) -> None:
    """hostile: `hearth put hearth.toml` (and a person's commit) took a file that
    hearth then refused to read, so every later command of the home failed with
    "hearth.toml is not valid TOML" while a running server went on with the old
    settings: the settings rule refuses it before it reaches history."""
    assert "settings" in rules("hearth.toml", text)


def test_a_readable_hearth_toml_passes() -> None:
    """hostile: the settings rule leaves init's own hearth.toml, an empty one and
    another folder's file of that name alone."""
    from hearth.domain.settings import default_settings_toml

    assert rules("hearth.toml", default_settings_toml()) == set()
    assert rules("hearth.toml", "") == set()
    assert rules("memory/hearth.toml", "not toml [") == set()


def test_a_new_path_that_reads_as_an_existing_one_is_named() -> None:
    """``lookalike-name``: a name new to its folder that reads as one there (look-alike
    letters, case, an invisible character), in any folder of the path; the rest of
    the path is new, so nothing below a new folder is compared."""
    tree = {"": ["users", "Memory.md", "SOUL.md"], "users": ["sam.md", "ann1.md"]}

    def names_in(folder: str) -> list[str]:
        return tree.get(folder, [])

    for path, twin in (
        ("users/s\u0430m.md", "users/sam.md"),
        ("users/Sam.md", "users/sam.md"),
        ("users/annl.md", "users/ann1.md"),
        ("Users/sam.md", "users/sam.md"),
        ("us\u0435rs/new.md", "users/new.md"),
    ):
        (failure,) = check_new_path(path, names_in)
        assert failure.rule == "lookalike-name" and repr(twin) in failure.message, path
    for path in ("users/sam.md", "users/samir.md", "notes/sam.md", "MEMORY.md", "Soul.md"):
        assert check_new_path(path, names_in) == [], path


def test_a_name_that_reads_as_hearths_own_is_refused_before_hearth_made_it() -> None:
    """Hostile pass. Reproduction: in a new home (no memory/ yet), a write token
    puts ``memоry/x.md`` (a Cyrillic о); every ``hearth note`` after it was
    refused, its note "reads as 'memоry/...', which exists", and the fix offered
    was to write into the look-alike. Likewise ``cоntinuity/`` stopped every loop,
    proposal and decision, and ``memory/2026-12-O9.md`` (a letter O) the note of
    the 9th. Now hearth's names stand, and the look-alikes are refused."""
    tree: dict[str, list[str]] = {"": ["SOUL.md", "MEMORY.md"]}

    def names_in(folder: str) -> list[str]:
        return tree.get(folder, [])

    for path, twin in (
        ("mem\u043ery/x.md", "memory/x.md"),
        ("Memory/x.md", "memory/x.md"),
        ("c\u043entinuity/open-loops/x.md", "continuity/open-loops/x.md"),
        ("continuity /x.md", "continuity/x.md"),
        ("continuity./x.md", "continuity/x.md"),
        ("users\u00a0/sam.md", "users/sam.md"),
        ("memory/t\u043epics/van.md", "memory/topics/van.md"),
        ("memory/2026-12-O9.md", "memory/2026-12-09.md"),
        ("memory/\uff12\uff10\uff12\uff16-12-09.md", "memory/2026-12-09.md"),
    ):
        (failure,) = check_new_path(path, names_in)
        assert failure.rule == "lookalike-name" and repr(twin) in failure.message, path
    # What got in before (pulled, or written by an older hearth) blocks no note of hearth's.
    tree.update({"": ["SOUL.md", "mem\u043ery", "Continuity"], "mem\u043ery": ["x.md"]})
    tree["memory"] = ["2026-12-O9.md", "t\u043epics"]
    for path in (
        "memory/2026-12-09.md",
        "memory/topics/van.md",
        "continuity/open-loops/van--1.md",
        "users/sam.md",
        "memory/2026-12-09 notes.md",
    ):
        assert check_new_path(path, names_in) == [], path


def test_the_skeleton_of_an_ascii_name_is_the_one_the_full_fold_gives() -> None:
    """The fast path for ASCII names reads them as the full fold does."""
    every = "".join(chr(c) for c in range(32, 127))
    for name in (every, every.upper(), "SOUL.md", "l0g|1.MD"):
        slow = unicodedata.normalize("NFKC", name).translate(lookalike._CAPITALS)
        slow = lookalike._ends(slow.casefold().translate(lookalike._TABLE))
        assert lookalike.skeleton(name) == slow
