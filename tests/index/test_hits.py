"""A hit copied with one field changed (``Hit.scored``, ``Hit.with_snippet``)."""

from __future__ import annotations

import dataclasses

from hearth.index.hits import Hit


def test_a_copied_hit_is_what_replace_gives_and_the_hit_is_left_as_it_was() -> None:
    hit = Hit("memory/2026-11-20.md", 5, 7, "2026-11-20", "Bees", "daily", "2026-11-20", 1.5, "")
    scored = hit.scored(0.25)
    shown = hit.with_snippet("The **hives**")
    assert scored == dataclasses.replace(hit, score=0.25)
    assert shown == dataclasses.replace(hit, snippet="The **hives**")
    assert hash(shown) == hash(dataclasses.replace(hit, snippet="The **hives**"))
    assert (hit.score, hit.snippet) == (1.5, "")
    assert shown.as_dict() == {**hit.as_dict(), "snippet": "The **hives**"}
