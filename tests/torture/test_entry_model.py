"""The model of many machines' memory work (``entry_model.py``), for each sync
verb: nothing lost, nothing resurrected, nothing doubled, every machine the same.

The short form runs in ``make test``; ``make torture`` (``HEARTH_TORTURE=long``)
runs three machines for many more rounds. The figures are printed for the
closing notes (``pytest -s``), and ``bench/entry_model.py`` prints them too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.torture.entry_model import run

pytestmark = pytest.mark.torture

LONG = os.environ.get("HEARTH_TORTURE") == "long"
ROUNDS = int(os.environ.get("HEARTH_MODEL_ROUNDS", "12" if LONG else "2"))
MACHINES = 3 if LONG else 2
STEPS = 4 if LONG else 3


@pytest.mark.parametrize("verb", ["sync", "pull", "rebase"])
def test_memory_survives_every_edit_on_every_machine(tmp_path: Path, verb: str) -> None:
    """Issue 47's model: agents' operations and a person's editor edits on two or
    three clones, met by one sync verb; the oracle checks each round."""
    figures = run(tmp_path, verb, MACHINES, ROUNDS, STEPS, seed=47)
    print(f"entry model, {verb}: {figures.line()}")
    assert figures.steps > 0 and figures.entries_changed > 0
    assert (figures.lost, figures.resurrected, figures.doubled) == (0, 0, 0)
    assert figures.diverged == 0 and figures.mixed_endings == 0
    assert figures.both_kept == figures.two_way
