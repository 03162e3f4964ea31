"""Rebuild a home's index with one Tantivy indexing thread: a build whose answers can be compared.

    .venv/bin/python bench/build_one_thread.py HOME
    PYTHONPATH=OTHER/src .venv/bin/python bench/build_one_thread.py HOME   (another version)

`hearth reindex --full` of a home of more than ``search_index.BIG_BATCH``
files indexes with two threads, and which thread takes which section is a
race: the sections' order in the index differs from build to build, and
sections of equal score come back in that order (docs/performance.md, "The
full build at 10,000 files, profiled"). With one thread the order is the
files' and their sections', so two versions' builds of the same files, each
made here and then dumped with bench/search_dump.py ``--home``, must give
byte-identical dumps when the build is unchanged. Semantic ranking is off
(HEARTH_SEMANTIC=off). Prints the pass's report.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hearth import wiring
from hearth.index import search_index


class _OneThread(search_index.IndexUpdate):
    def expect(self, files: int) -> None:
        super().expect(files)
        self._threads = 1


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    os.environ["HEARTH_SEMANTIC"] = "off"
    search_index.IndexUpdate = _OneThread  # type: ignore[misc]
    done = wiring.open_app(Path(sys.argv[1]).absolute()).reindex(full=True)
    print(done.as_dict())


if __name__ == "__main__":
    main()
