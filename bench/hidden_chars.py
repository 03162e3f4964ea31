"""How much legitimate text the "nothing hides" rule refuses.

    .venv/bin/python bench/hidden_chars.py [../shared/locomo-dev]

Counts the lines that ``first_hiding`` (a control character, an invisible format
character, or a joiner, selector or tag that hides by where it stands) finds
something in: every string of the LoCoMo conversations (turns, captions,
summaries, observations), the files of home_template/, and
bench/data/world_text.txt (lines of right-to-left, Indic, CJK and Thai writing,
emoji with joiners, skin tones, keycaps and subdivision flags). Each refused line
is printed: the figure the docs quote is 0 of each. Figures only, nothing asserted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hearth.domain.text import first_hiding  # noqa: E402


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _count(name: str, lines: list[str]) -> None:
    refused = [line for line in lines if first_hiding(line) is not None]
    print(f"{name}: {len(refused)} of {len(lines)} lines refused")
    for line in refused[:10]:
        print(f"  {first_hiding(line)}: {line[:80]!r}")


def main() -> None:
    locomo = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT.parent / "shared" / "locomo-dev")
    lines = [
        line
        for path in sorted(locomo.glob("*.json"))
        for text in _strings(json.loads(path.read_text(encoding="utf-8")))
        for line in text.splitlines()
    ]
    _count("LoCoMo dev", lines)
    template = [
        line
        for path in sorted((ROOT / "home_template").rglob("*.md"))
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    _count("home_template", template)
    world = (ROOT / "bench" / "data" / "world_text.txt").read_text(encoding="utf-8")
    _count("world_text", world.splitlines())


if __name__ == "__main__":
    main()
