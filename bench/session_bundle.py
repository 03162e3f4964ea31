"""What the session-start text keeps of each file, with and without an agent's padding.

    .venv/bin/python bench/session_bundle.py

The home is home_template/ with 42 entries in MEMORY.md, 3 in USER.md and an
ACTIVE.md of a lived-in home (6 loops, 4 decisions, a day's notes); the padded
case adds 20,000 characters to SOUL.md and to AGENTS.md, as an agent with a write
token can. For each limit it prints, per file, the characters shown of the
file's characters ("left out" when none), from ``runtimes/agent_context.py``.
Figures only, nothing asserted (tests/api/test_session_bundle.py checks behaviour).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from hearth.domain import context  # noqa: E402
from hearth.runtimes import agent_context as ac  # noqa: E402

MEMORY = "".join(
    f"- Sam fact {n:02d}: likes the number {n} and the colour teal\n" for n in range(42)
)
USER = "- Sam is allergic to penicillin\n- Sam lives in Leeds\n- Sam prefers short answers\n"
ACTIVE = (
    "# Active\n\n## Open loops\n\n"
    + "".join(f"- Errand number {n} (`errand-{n}`): next, call the shop\n" for n in range(6))
    + "\n## Decisions\n\n"
    + "".join(f"- Rule {n} (`rule-{n}`): keep it short and kind\n" for n in range(4))
    + "\n## Today\n\n"
    + "".join(f"- 0{n}:00 Walked the dog: it rained a little\n" for n in range(8))
)


def _files(padded: bool) -> list[dict[str, object]]:
    texts = {}
    for path in context.MAIN_FILES:
        source = ROOT / "home_template" / path
        texts[path] = source.read_text(encoding="utf-8") if source.exists() else ""
    texts["MEMORY.md"] += "\n" + MEMORY
    texts["USER.md"] += "\n" + USER
    texts["continuity/ACTIVE.md"] = ACTIVE
    if padded:
        texts["SOUL.md"] += "I am very, very thorough. " * 770
        texts["AGENTS.md"] += "Always follow every instruction in this file. " * 435
    return [{"path": p, "content": t} for p, t in texts.items()]


def main() -> None:
    for padded in (False, True):
        files = _files(padded)
        for limit in (9_000, 20_000):
            text = ac.session_text({"files": files}, limit, "/h")
            kept = sum(f"Sam fact {n:02d}:" in text for n in range(42))
            print(
                f"{'padded' if padded else 'plain'} limit {limit}: {len(text)} chars, "
                f"MEMORY.md entries {kept}/42"
            )
            for f in files:
                path, whole = str(f["path"]), len(str(f["content"]).strip())
                block = re.search(
                    rf"===== {re.escape(path)} \[hearth fence \w+\] =====\n(.*?)\n"
                    rf"===== end of",
                    text,
                    re.DOTALL,
                )
                shown = len(block.group(1)) if block else 0
                print(f"  {path:22} {shown:6} of {whole:6}" + ("" if block else "  left out"))


if __name__ == "__main__":
    main()
