"""The entry model's figures for each sync verb (issue 47's closing note).

    .venv/bin/python bench/entry_model.py [ROUNDS] [MACHINES] [STEPS] [SEED]

Runs ``tests/torture/entry_model.py`` once per verb (``hearth sync``, ``git
pull``, ``git pull --rebase``) in a temporary folder and prints, per verb:
rounds, steps, entries changed, lost, resurrected, doubled, true two-way
changes, how many of them kept both versions, and the conflicts reported.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.torture.entry_model import run


def main(argv: list[str]) -> None:
    defaults = [10, 3, 4, 47]
    given = [int(a) for a in argv[:4]]
    rounds, machines, steps, seed = given + defaults[len(given) :]
    for verb in ("sync", "pull", "rebase"):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.perf_counter()
            figures = run(Path(tmp), verb, machines, rounds, steps, seed)
            took = time.perf_counter() - started
        print(f"{verb}: {figures.line()} ({took:.0f} s)")


if __name__ == "__main__":
    main(sys.argv[1:])
