"""`hearth reindex --full`'s own work beside Tantivy's, part by part, in CPU seconds.

    .venv/bin/python bench/reindex_parts.py HOME [--compare SRC ...] [--rounds 3]

On HOME's markdown files (a home bench/reindex_full.py made, say), each part
the best of ``--rounds`` processes of each tree, taken in turns:

- **reader**: a real reader worker (``prepare.Readers``, one process) reading,
  hashing, checking and sectioning every file and sending the outcomes: the
  worker's CPU (it is a child: its rusage once it has ended);
- **receive**: the pass's side of that, taking the outcomes from the pipe;
- **check**: the validation rules alone (``check_text``), every file's text;
- **documents**: the Tantivy documents the pass makes of every section
  (``index/documents.py``; ``search_index.document`` in a tree before it),
  without handing them to a writer.

Each ``--compare`` is another checkout's ``src`` (its ``home_template`` beside
it), run through ``PYTHONPATH``: a change in the machine's load falls on
every tree alike. Tantivy's own indexing is not here:
bench/search_index.py times it. Asserts nothing; prints figures and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from homegen import use_git_identity

PARTS = ("reader", "receive", "check", "documents")


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(home: Path, rounds: int) -> dict[str, float]:
    """Each part's best CPU seconds over ``rounds``, for the hearth on sys.path."""
    from hearth.domain.validation import Bounds, check_text
    from hearth.reconcile import prepare

    paths = sorted(str(p.relative_to(home)) for p in home.rglob("*.md") if ".git" not in p.parts)
    items = [(path, None) for path in paths]
    texts = [(path, (home / path).read_text()) for path in paths]
    best = dict.fromkeys(PARTS, float("inf"))
    outcomes: list[Any] = []
    for _ in range(rounds):
        before, start = _children_cpu(), time.process_time()
        readers = prepare.Readers(home, Bounds(), 1)
        readers.submit(items)
        outcomes = list(readers.outcomes())
        readers.close()
        best["receive"] = min(best["receive"], time.process_time() - start)
        best["reader"] = min(best["reader"], _children_cpu() - before)
        start = time.process_time()
        for path, text in texts:
            check_text(path, text, Bounds())
        best["check"] = min(best["check"], time.process_time() - start)
        start = time.process_time()
        _documents(outcomes)
        best["documents"] = min(best["documents"], time.process_time() - start)
    return best


def _documents(outcomes: list[Any]) -> int:
    try:
        from hearth.index.documents import documents
    except ImportError:  # a tree before index/documents.py
        from hearth.index.search_index import document  # type: ignore[attr-defined]

        return sum(
            1 for o in outcomes for n, s in enumerate(o.sections) if document(s, n, o.digest)
        )
    return sum(1 for o in outcomes for _doc in documents(o.sections, o.digest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path)
    parser.add_argument("--compare", action="append", default=[], metavar="SRC")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.home.absolute(), args.rounds)))
        return
    env = use_git_identity()
    trees = {"this tree": None, **{src: src for src in args.compare}}
    best = {name: dict.fromkeys(PARTS, float("inf")) for name in trees}
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} before")
    for _ in range(args.rounds):  # a round of each tree in turn
        for name, src in trees.items():
            run_env = dict(env)
            if src is not None:
                run_env["PYTHONPATH"] = str(Path(src).absolute())
            command = [sys.executable, __file__, str(args.home), "--rounds", "1", "--one"]
            done = subprocess.run(command, env=run_env, check=True, capture_output=True)
            for part, seconds in json.loads(done.stdout).items():
                best[name][part] = min(best[name][part], seconds)
    for name, figures in best.items():
        print(f"  {name}: " + ", ".join(f"{part} {figures[part]:.3f} s" for part in PARTS))
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} after")


if __name__ == "__main__":
    main()
