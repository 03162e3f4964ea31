"""Across languages (issue 48): a passage's crowding in the store, the
question's translation candidate weighed by it, and the floor letting the
candidate through only above both of its bars."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from hearth.index import crossing
from hearth.index.floor import FLOOR, Judged, is_translation
from hearth.index.hits import Hit
from hearth.index.vectors import open_store

DIMS = 8


def _unit(*values: float) -> np.ndarray:  # type: ignore[type-arg]
    row = np.array(values + (0.0,) * (DIMS - len(values)), dtype=np.float32)
    return row / np.linalg.norm(row)


def _hit(path: str) -> Hit:
    return Hit(path, 1, 2, path, "", "daily", "", 0.0, "")


def test_crowding_is_the_mean_cosine_to_a_passage_s_nearest_others(tmp_path: Path) -> None:
    """A passage among many like it is crowded; one apart is not (itself left out)."""
    store = open_store(tmp_path / "v", "m", DIMS)
    rows = [_unit(1, 0.1 * i) for i in range(5)] + [_unit(0, 0, 1)]
    store.add([f"{i:032x}" for i in range(6)], np.stack(rows))
    crowded, apart = store.crowding([f"{0:032x}", f"{5:032x}"], 2)
    assert crowded > 0.95  # its two nearest are near copies, not itself (1.0)
    assert crowded < 0.999
    assert abs(apart) < 0.02  # orthogonal to everything else


def test_the_candidate_is_the_foreign_passage_least_crowded_for_its_cosine(
    tmp_path: Path,
) -> None:
    """Of two notes in other languages at the same cosine, the one crowded by
    many like it (a hub, near any question) is not the candidate; the English
    passages are its rivals, not candidates."""
    store = open_store(tmp_path / "v", "m", DIMS)
    hub = [_unit(1, 0.05 * i, 0, 1) for i in range(6)]
    apart = _unit(0, 0, 0, 0, 0, 1)
    english = _unit(0, 0, 1)
    digests = [f"{i:032x}" for i in range(8)]
    store.add(digests, np.stack([*hub, apart, english]))
    hits = [_hit("hub.md"), _hit("apart.md"), _hit("english.md")]
    keys = {("hub.md", 1): digests[0], ("apart.md", 1): digests[6], ("english.md", 1): digests[7]}
    bodies = {
        ("hub.md", 1): "Mañana llamo a mi hermana para la cena",
        ("apart.md", 1): "다음 주 화요일 오후 세 시에 치과 예약이 있어요.",
        ("english.md", 1): "We went to the dentist and it was fine.",
    }
    cosines = {digests[0]: 0.84, digests[6]: 0.84, digests[7]: 0.80}
    found = crossing.candidate(
        "when is my dentist appointment?", hits, keys, bodies, cosines, store
    )
    assert found is not None
    assert found.key == ("apart.md", 1)
    assert found.margin > 0  # above the English rival's crossing
    # A question with no letters to tell its language has no candidate.
    assert crossing.candidate("4242", hits, keys, bodies, cosines, store) is None


def test_the_floor_lets_the_candidate_through_above_both_bars() -> None:
    """The crossing part: a hit in another language, sharing no word, that is
    the question's candidate at the crossing and margin bars passes; below
    either, or without the part, it is judged as before (not the nearest: no)."""
    at = Judged(
        words=0.0,
        rarest=0.0,
        held=0.0,
        standing=-1.2,
        both=False,
        foreign=True,
        crossing=FLOOR.crossing or 0.0,
        crossing_margin=FLOOR.crossing_margin,
    )
    assert is_translation(at, FLOOR)
    assert not is_translation(dataclasses.replace(at, crossing_margin=0.0), FLOOR)
    assert not is_translation(dataclasses.replace(at, crossing=-0.2), FLOOR)
    assert not is_translation(dataclasses.replace(at, words=0.5), FLOOR)
    assert not is_translation(dataclasses.replace(at, foreign=False), FLOOR)
    assert not is_translation(at, dataclasses.replace(FLOOR, crossing=None))


def test_a_passage_s_crowding_is_kept_until_the_store_s_rows_change(tmp_path: Path) -> None:
    """Case "keep the crossing channel cheap": the same candidates come back
    search after search, and their crowding (a read of the whole store each)
    is read once; a row added (a write) makes it be read again."""
    store = open_store(tmp_path / "v", "m", DIMS)
    store.add([f"{i:032x}" for i in range(3)], np.stack([_unit(1, i) for i in range(3)]))
    asked: list[list[str]] = []
    real = store.crowding

    def counted(digests: list[str], count: int) -> list[float]:
        asked.append(list(digests))
        return real(digests, count)

    store.crowding = counted  # type: ignore[method-assign]
    crowds = crossing.Crowds()
    one, two = f"{0:032x}", f"{1:032x}"
    first = crowds.of(store, [one, two])
    assert crowds.of(store, [two, one]) == first
    assert asked == [[one, two]]
    store.add([f"{9:032x}"], np.stack([_unit(1, 0.5)]))
    crowds.of(store, [one])
    assert asked == [[one, two], [one]]


#: The floor with unheld crossing on, at the bar it was measured at.
UNHELD_ON = dataclasses.replace(FLOOR, crossing_unheld=0.005)


def test_a_question_the_home_holds_no_word_of_may_be_in_another_language(
    tmp_path: Path,
) -> None:
    """Case "a question in another language than the home's" (``Tomaten``
    against the English garden note): its unaccented words tell no language,
    so no passage is "in another language" for it. When the home holds none
    of its words (``unheld``), the candidate is the best of every passage by
    crossing but the template's, at ``Floor.crossing_unheld``."""
    store = open_store(tmp_path / "v", "m", DIMS)
    garden = _unit(1, 0, 0, 0, 0, 1)
    soul = _unit(0, 0, 0, 0, 0, 0, 1)
    others = [_unit(0, 1, 0.05 * i) for i in range(5)]
    digests = [f"{i:032x}" for i in range(7)]
    store.add(digests, np.stack([garden, soul, *others]))
    hits = [_hit("soul.md"), _hit("garden.md"), _hit("other.md")]
    keys = {("soul.md", 1): digests[1], ("garden.md", 1): digests[0], ("other.md", 1): digests[2]}
    bodies = {
        ("soul.md", 1): "You are a steady, candid assistant.",
        ("garden.md", 1): "Sam and I planned the vegetable garden: tomatoes by the wall.",
        ("other.md", 1): "Ran 8 km along the river.",
    }
    cosines = {digests[1]: 0.86, digests[0]: 0.85, digests[2]: 0.80}
    args = ("Tomaten", hits, keys, bodies, cosines, store, UNHELD_ON)
    assert crossing.candidate(*args) is None  # no passage in another language
    found = crossing.candidate(*args, unheld=True, template={digests[1]})
    assert found is not None and found.unheld
    assert found.key == ("garden.md", 1)
    assert crossing.admitted(found, UNHELD_ON) == (found.score >= 0.005)
    # Off (as shipped: gibberish is such a question too), no candidate is sought.
    assert crossing.candidate(*args[:-1], FLOOR, unheld=True, template={digests[1]}) is None
    # A question in English letters and words is in the home's language: no.
    english = ("what about the tomatoes?", *args[1:])
    assert crossing.candidate(*english, unheld=True) is None


def test_the_floor_lets_an_unheld_candidate_through_at_its_own_bar() -> None:
    """The crossing part, for a question the home holds no word of: the
    candidate passes at ``crossing_unheld``, with no margin and written in
    any language; below it, or without the part, it does not."""
    bar = UNHELD_ON.crossing_unheld
    assert bar is not None
    at = Judged(
        words=0.0,
        rarest=0.0,
        held=0.0,
        standing=0.5,
        both=False,
        crossing=bar,
        crossing_unheld=True,
    )
    assert is_translation(at, UNHELD_ON)
    assert not is_translation(dataclasses.replace(at, crossing=bar - 0.01), UNHELD_ON)
    assert not is_translation(dataclasses.replace(at, text=False), UNHELD_ON)
    assert not is_translation(at, dataclasses.replace(FLOOR, crossing_unheld=None))
