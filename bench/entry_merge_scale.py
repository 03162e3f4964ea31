"""What the entry merge (``domain/entry_merge.py``, run by ``hearth sync`` and by
git's merge driver on a plain ``git pull``) costs as an entry file grows: CPU
seconds of one three-way merge, pure (no git).

    .venv/bin/python bench/entry_merge_scale.py

Two shapes, each at several sizes: ``added``, one side appended N entries while
the other added one (a hostile commit, or months of an agent's entries on one
machine); ``rewritten``, one side replaced all N entries of the base with other
texts while the other added one (every entry a candidate edit of every other).
"""

from __future__ import annotations

import time

from hearth.domain.entry_merge import merge_entry_files

HEAD = "# Memory\n\n## Entries\n\n"


def _added(n: int) -> tuple[str, str, str]:
    base = HEAD + "- Sam likes tea\n"
    theirs = base + "".join(f"- generated entry number {i} about things\n" for i in range(n))
    return base, base + "- one entry of ours\n", theirs


def _rewritten(n: int) -> tuple[str, str, str]:
    base = HEAD + "".join(f"- old entry number {i} about stuff\n" for i in range(n))
    theirs = HEAD + "".join(f"- new entry number {i} about stuff\n" for i in range(n))
    return base, base + "- one entry of ours\n", theirs


def main() -> None:
    for name, shape in (("added", _added), ("rewritten", _rewritten)):
        for n in (1_000, 4_000, 10_000, 50_000):
            base, ours, theirs = shape(n)
            start = time.process_time()
            merge_entry_files(base, ours, theirs)
            print(
                f"{name:10} {n:>7,} entries  {time.process_time() - start:7.3f} s CPU", flush=True
            )


if __name__ == "__main__":
    main()
