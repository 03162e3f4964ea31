"""The patterns the schemas declare (OpenAPI, MCP input schemas) against the
checks that enforce them: what a pattern admits, the check accepts, so a
client that keeps to the schema is never refused for the form of its input."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearth.domain import entries, keys, layout, records
from hearth.domain.paths import MAX_PATH_CHARS, PATH_PATTERN, normalize
from hearth.domain.text import NOT_BLANK, ONE_LINE, PLAIN, first_not_text, not_blank
from hearth.hooks.staged import LISTING_PATTERN, parse_listing
from tests.conftest import examples

# The anchored patterns are read as ECMA-262 reads them, where ``$`` is the end of
# the text (Python's ``$`` also matches before a final newline): ``re.fullmatch``.
FAST = settings(
    max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
#: The long patterns (a path is up to 1,024 characters of names up to 255 bytes, a
#: listing lines of them): drawing an example costs about 0.1 s of CPU, so the suite
#: tries 100 of them and ``make torture`` the 300 the others try.
LONG = settings(FAST, max_examples=examples(300, suite=100))


def _admitted(pattern: str) -> st.SearchStrategy[str]:
    return st.from_regex(re.compile(pattern), fullmatch=True)


@pytest.mark.torture  # its long form under ``make torture``
@LONG
@given(_admitted(PATH_PATTERN).filter(lambda p: len(p) <= MAX_PATH_CHARS))
def test_what_the_path_pattern_admits_normalize_accepts(path: str) -> None:
    assert normalize(path)


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "C:/x.md",
        "../x.md",
        "a/../x.md",
        "./x.md",
        "a//b.md",
        ".git/config",
        "notes/.GIT/x",
        "a\\b.md",
        "a\x05.md",
        "   ",
        "x" * 256,
        "é" * 128,
        "中" * 86,
        "😀" * 64,
    ],
)
def test_the_path_pattern_refuses_what_is_not_canonical_or_is_refused(path: str) -> None:
    assert re.fullmatch(PATH_PATTERN, path) is None


@pytest.mark.parametrize("path", ["MEMORY.md", "memory/topics/x y.md", "a/", "x" * 255, "😀" * 63])
def test_the_path_pattern_admits_plain_paths(path: str) -> None:
    assert re.fullmatch(PATH_PATTERN, path) is not None
    assert normalize(path)


@pytest.mark.torture  # its long form under ``make torture``
@LONG
@given(_admitted(layout.ENTRIES_FILE_PATTERN).filter(lambda p: len(p) <= MAX_PATH_CHARS))
def test_what_the_entries_file_pattern_admits_takes_entries(path: str) -> None:
    assert layout.takes_entries(normalize(path))


@pytest.mark.parametrize(
    "path",
    [
        "SOUL.md", "IDENTITY.md", "memory/2026-01-02.md", "continuity/ACTIVE.md", "notes.txt",
        # Another case is the same file where case folds (macOS, Windows): hostile pass.
        "Continuity/ACTIVE.md", "CONTINUITY/open-loops/x.md", "soul.md", "Identity.md",
        "Memory/2026-01-02.md",
    ],
)  # fmt: skip
def test_the_entries_file_pattern_refuses_what_takes_no_entries(path: str) -> None:
    assert re.fullmatch(layout.ENTRIES_FILE_PATTERN, path) is None
    assert not layout.takes_entries(normalize(path))


@FAST
@given(_admitted(layout.USER_ID_PATTERN))
def test_what_the_user_id_pattern_admits_is_a_person_id(user: str) -> None:
    assert layout.user_path(user) == f"users/{user}.md"


@pytest.mark.parametrize("user", ["", "a..b", ".hidden", "sam\n", "a/b", "x" * 101])
def test_the_user_id_pattern_refuses_what_user_path_refuses(user: str) -> None:
    assert re.fullmatch(layout.USER_ID_PATTERN, user) is None
    assert layout.user_path(user) is None


@FAST
@given(_admitted(keys.KEY_PATTERN))
def test_what_the_key_pattern_admits_is_a_key(key: str) -> None:
    assert keys.is_key(key)


@FAST
@given(_admitted(ONE_LINE).filter(lambda t: len(t) <= entries.MAX_ENTRY_CHARS))
def test_what_the_one_line_pattern_admits_is_an_entry(text: str) -> None:
    assert entries.clean_entry(text)


@pytest.mark.parametrize("text", ["", " \t ", "\u0085", "a\nb", "\u3000\n"])
def test_the_one_line_pattern_refuses_what_is_no_entry(text: str) -> None:
    assert re.fullmatch(ONE_LINE, text) is None


@FAST
@given(st.text())
def test_not_blank_is_what_strip_keeps_of_text(text: str) -> None:
    plain = first_not_text(text) is None
    assert (re.fullmatch(NOT_BLANK, text) is not None) == (bool(text.strip()) and plain)


@FAST
@given(st.text())
def test_the_plain_pattern_is_what_the_text_check_takes(text: str) -> None:
    assert (re.fullmatch(PLAIN, text) is not None) == (first_not_text(text) is None)


#: Text made of what the scan must tell apart: plain letters, line endings
#: (CRLF, a lone CR, LF), control characters and a lone surrogate; the ASCII
#: text and controls at the edges of the look at ASCII text's bytes.
_MIXED = st.lists(
    st.sampled_from(
        [
            *("a", "é", "\n", "\r", "\r\n", "\x01", "\x7f", "\u2028", "\ud800"),
            *("\t", " ", "~", "\x00", "\x08", "\x0b", "\x0c", "\x0e", "\x1f"),
        ]
    )
).map("".join)


@FAST
@given(_MIXED)
def test_the_first_character_not_text_is_the_one_scan_s(text: str) -> None:
    # The scan skips the carriage return's branch for text without one (a
    # rebuild's cost, issue 40): the answer is the single pattern's, line,
    # column and character.
    match = re.search(
        r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]|\r(?!\n)", text
    )
    found = first_not_text(text)
    if match is None:
        assert found is None
        return
    start = match.start()
    assert found is not None
    assert found.line == text.count("\n", 0, start) + 1
    assert found.column == start - (text.rfind("\n", 0, start) + 1) + 1
    assert found.character == f"U+{ord(text[start]):04X}"


@pytest.mark.parametrize(
    "text", ["a\x00", "\x01", "a\rb", "a\r", "\x7f", "\x85", "a\u2028b", "\u2029", "\x1b[31m"]
)
def test_control_characters_are_not_text(text: str) -> None:
    assert first_not_text(text) is not None
    assert re.fullmatch(PLAIN, text) is None
    assert re.fullmatch(NOT_BLANK, text) is None
    assert re.fullmatch(ONE_LINE, text) is None


@pytest.mark.parametrize("text", ["a\tb", "a\nb", "a\r\nb\r\n", "\ufeffa", "é中😀"])
def test_tab_newline_and_crlf_are_text(text: str) -> None:
    assert first_not_text(text) is None
    assert re.fullmatch(PLAIN, text) is not None


@FAST
@given(st.text())
def test_a_title_with_a_word_is_what_the_key_algorithm_finds_a_word_in(text: str) -> None:
    assert (re.fullmatch(not_blank(keys.WHITE_SPACE_CLASS), text) is not None) == (
        bool(keys.words(text)) and first_not_text(text) is None
    )


def test_every_title_within_its_bound_can_be_archived() -> None:
    key = keys.record_key("x" * records.MAX_TITLE_CHARS)
    archive = layout.archive_path(
        "proposal", key, "0" * 8 + "-0000-4000-8000-" + "0" * 12, "merged"
    )
    assert normalize(archive) == archive


@pytest.mark.torture  # its long form under ``make torture``
@LONG
@given(_admitted(LISTING_PATTERN))
def test_what_the_listing_pattern_admits_parses(listing: str) -> None:
    parse_listing(listing.encode())
