"""Record keys are LionClaw's, for every title.

hearth's ``record_key`` is compared with an independent port of LionClaw's three
functions (tests/domain/lionclaw_port.py) over arbitrary Unicode, and pinned on a
table of titles where Python's and Rust's ideas of whitespace and case differ.
tests/e2e/test_keys_against_rust.py checks the port itself against Rust's std.
"""

from __future__ import annotations

import uuid

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from hearth.domain import keys, records
from tests.domain import lionclaw_port as port

# Characters where Python and Rust disagree, or that a slug treats specially.
TRICKY = (
    " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u200a\u200b\u2028\u2029"
    "\u202f\u205f\u3000\u180e\ufeff-_.AZaz09ÉéİıſKßﬁ日本"
)
any_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=80)
tricky_text = st.text(st.sampled_from(TRICKY), max_size=30)


@given(st.one_of(any_text, tricky_text))
@example("CAFÉ au lait")
@example("")
@example("\x1c")
@example("a\u200bb")
def test_keys_are_lionclaws_for_every_title(title: str) -> None:
    assert f"{keys.record_key(title)}.md" == port.title_file_name(title)
    assert keys.normalized_title_key(title) == port.normalized_title_key(title)
    assert keys.is_key(keys.record_key(title))


@given(st.one_of(any_text, tricky_text))
def test_the_stored_title_keeps_the_key(title: str) -> None:
    """What hearth stores as the title (one line) has the key of the title given."""
    if len(title) > records.MAX_TITLE_CHARS:
        return
    assert records.record_key(records.clean_title(title)) == records.record_key(title)


# (title, key); computed with the port and checked by hand against the Rust:
# 'É' is not ASCII, so to_ascii_lowercase keeps it and sanitize_slug makes it '-';
# U+001C is not White_Space, so it stays inside the word (and becomes '-' in the
# slug) and the UUID is of 'a\x1cb', not of 'a b'; U+0085 and U+3000 are
# White_Space and split; U+200B is not and does not; no slug is cut at 60.
PINNED = [
    ("CAFÉ au lait", "caf-au-lait--ec0df480-b20f-57f9-80a8-05c1140808a3"),
    ("", "item--16b05e04-5de9-581a-adef-7442727ec805"),
    ("   ", "item--16b05e04-5de9-581a-adef-7442727ec805"),
    ("Likes   Green TEA", "likes-green-tea--56ef2f5c-040f-5c71-9ae8-7daa3265370c"),
    ("a\x1cb", "a-b--1fabacd6-da9b-51b2-828c-cc3af474ad9c"),
    ("a\x85b", "a-b--19e5b7a0-f98d-580e-a711-dab34cfce892"),
    ("naïve café", "na-ve-caf--70deb2b0-3bb5-5003-8859-c2c048e61771"),
    ("日本語のメモ", "item--81941421-3498-56f8-a9c0-7526de4d3bf1"),
    ("x" * 70, "x" * 70 + "--d565efe5-5cf7-5d49-b241-770feab5d9be"),
    (
        "Rust's split_whitespace\u2003vs\u200bPython",
        "rust-s-split-whitespace-vs-python--b8dfe9c5-e558-51de-9aae-b409835067af",
    ),
]


@pytest.mark.parametrize(("title", "key"), PINNED)
def test_pinned_keys(title: str, key: str) -> None:
    assert keys.record_key(title) == key
    assert f"{key}.md" == port.title_file_name(title)


def test_uuid_is_rfc4122_v5_of_the_normalized_title() -> None:
    # For text without surrogates Python's own uuid5 agrees (a third opinion).
    for title in ("CAFÉ au lait", "Likes   Green TEA", "a\x1cb", ""):
        normalized = keys.normalized_title_key(title)
        expected = uuid.uuid5(keys.KEY_NAMESPACE, normalized)
        assert keys.record_key(title).endswith(f"--{expected}")


def test_legacy_keys_are_what_older_releases_wrote() -> None:
    assert keys.legacy_record_key("CAFÉ au lait").startswith("cafe-au-lait--2eee7670")
    long = keys.legacy_record_key("word " * 30)
    assert len(long.split("--")[0]) <= keys.LEGACY_SLUG_CHARS
    # Plain ASCII titles had the same key then as now.
    assert keys.legacy_record_key("Likes green tea") == keys.record_key("Likes green tea")
