"""A person's own words found through the whole search path (the relevance
floor, the snippets), written the way notes hold them and typed the way
people type them (hostile pass: each said "no matches" before)."""

from __future__ import annotations

import unicodedata

import pytest

from tests.conftest import Workspace

ACTOR = "cli"


def test_the_assistants_emoji_from_the_template_is_found(workspace: Workspace) -> None:
    """The template's IDENTITY.md says ``**Emoji:** 🔥``; searching it found nothing."""
    hits = workspace.app.search("🔥").hits
    assert [h.path for h in hits] == ["IDENTITY.md"]
    assert "**🔥**" in hits[0].snippet


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        ("Party was 🎉 great, bring 🍕 next time.", "🍕"),
        (unicodedata.normalize("NFD", "Café au lait with Zoë in Besançon."), "café"),
        ("Ήπιαμε καφέ στην Αθήνα με τον Νίκο.", "αθηνα"),
        ("Купили ёлку и мандарины на Новый год.", "елку"),
        ("ذهبنا إلى السُّوق يوم الجمعة", "السوق"),
        ("ｶﾚｰﾗｲｽを作った。", "カレーライス"),
        ("İstanbul'da Işıl ile buluştuk.", "istanbul"),
    ],
)
def test_a_note_is_found_by_the_word_as_people_type_it(
    workspace: Workspace, written: str, typed: str
) -> None:
    note = workspace.app.note(written, "Trip", ACTOR)
    hits = workspace.app.search(typed).hits
    assert hits and hits[0].path == note.path, f"{typed!r} did not find {written!r}"
    # Shown as written, bold where it matched (one bold run for a word cut in pieces).
    assert written[:6] in hits[0].snippet.replace("**", "")
    assert "****" not in hits[0].snippet
