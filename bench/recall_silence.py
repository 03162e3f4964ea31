"""Does recall stay silent when the home holds nothing for the prompt? (issue 38)

    .venv/bin/python bench/recall_silence.py LOCOMO_DIR [--work DIR]
        [--questions N] [--seed S] [--runtime claude-code] [--dump FILE]

Each LoCoMo conversation of LOCOMO_DIR becomes a home as ``bench/recall.py``
builds it (the same helpers: ``hearth init``, every turn a daily entry, then
the index and every passage's vector), and is served by ``hearth serve`` with
semantic ranking on (the default). Prompts then go through the real
``hearth agent-hook RUNTIME prompt`` command, one process each, with the hook
JSON Claude Code sends on stdin (``session_id``, ``transcript_path``, ``cwd``,
``hook_event_name: UserPromptSubmit``, ``prompt``); the hook asks the running
server, as it does beside a served home. Three kinds of prompt:

- **own**: the conversation's questions of categories 1 to 4 (all, or a
  seeded sample of ``--questions N``);
- **foreign**: as many questions drawn (seeded) from the *other*
  conversations of LOCOMO_DIR: other people, other lives;
- **no memory**: ``NO_MEMORY`` below, prompts a person gives a coding or chat
  assistant that no memory answers (written before any run, kept fixed).

Printed: own questions' share injected and share whose injected text holds
an evidence turn (a recalled passage whose line range covers the turn and
whose text holds the turn's words); foreign questions' share silent and mean
characters injected; no-memory prompts' share silent; the hook's p50 and p90
wall-clock time (a fresh process each, as a runtime runs it).

``--work DIR`` keeps the built homes (and their vectors) for the next run,
and can be the ``--work`` of ``bench/recall.py``: the same homes. Asserts
nothing; prints figures.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from hearth import wiring
from homegen import start_server, use_git_identity, wait_idle
from locomo import NO_MEMORY, Located, Question, Turn, build_home, chosen, load, locate, ready

HEARTH = str(Path(sys.executable).parent / "hearth")


@dataclass
class Kind:
    name: str
    asked: int = 0
    injected: int = 0
    with_evidence: int = 0
    chars: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def add(self, text: str, seconds: float, evidence: bool = False) -> None:
        self.asked += 1
        self.injected += bool(text)
        self.with_evidence += evidence
        self.chars.append(len(text))
        self.seconds.append(seconds)


def hook(root: Path, runtime: str, prompt: str, cwd: Path) -> tuple[str, float]:
    """What ``agent-hook RUNTIME prompt`` injects for ``prompt`` ("" when nothing)."""
    sent = {
        "session_id": "bench-silence",
        "transcript_path": str(cwd / "transcript.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    started = time.perf_counter()
    done = subprocess.run(
        [HEARTH, "--home", str(root), "agent-hook", runtime, "prompt"],
        input=json.dumps(sent),
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    took = time.perf_counter() - started
    if done.returncode != 0 or done.stderr.strip():
        raise SystemExit(f"agent-hook failed for {prompt!r}: {done.stderr}")
    if not done.stdout.strip():
        return "", took
    return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]), took


#: A recalled passage's opening line: ``===== path:1-2 [hearth fence F] =====``
#: (before the salted fences of issue 54: ``## path:1-2``).
_WHERE = re.compile(r"^(?:## |===== )(\S+):(\d+)-(\d+)(?: \[hearth fence \w+\] =====)?$", re.M)


def holds_evidence(
    text: str, evidence: list[str], where: dict[str, Located], turns: dict[str, Turn]
) -> bool:
    """Whether a recalled passage of ``text`` covers an evidence turn and holds its words."""
    spans = [(m[1], int(m[2]), int(m[3])) for m in _WHERE.finditer(text)]
    flat = " ".join(text.split())
    for e in evidence:
        at = where.get(e)
        if at is None:
            continue
        words = " ".join(turns[e].text.split())[:60]
        covered = any(p == at.path and s <= at.end and at.start <= t for p, s, t in spans)
        if covered and words in flat:
            return True
    return False


def run(locomo: Path, work: Path, args: argparse.Namespace, env: dict[str, str]) -> None:
    rng = random.Random(args.seed)
    conversations = {p.stem: load(p) for p in sorted(locomo.glob("*.json"))}
    kinds = {name: Kind(name) for name in ("own", "foreign", "no-memory")}
    dumped = args.dump.open("w") if args.dump is not None else None
    cwd = work / "cwd"
    cwd.mkdir(parents=True, exist_ok=True)
    started_all = time.perf_counter()
    for stem, (turns, _questions) in conversations.items():
        root = work / stem
        started = time.perf_counter()
        home = build_home(root, turns)
        where = locate(root, turns)
        app = wiring.open_app(root, home.clock)
        app.reconciler.catch_up()
        embedded = app.reconciler.index.fill_vectors()
        app.reconciler.close()
        own, foreign = chosen(conversations, stem, where, rng, args.questions)
        server, _port, _token = start_server(root, env, name=f"bench-{time.time_ns()}")
        try:
            wait_idle(server.pid)
            ready(root)
            print(
                f"{stem}: {len(turns)} turns ({embedded} passages embedded), "
                f"{len(own)} own + {len(foreign)} foreign + {len(NO_MEMORY)} no-memory prompts; "
                f"home ready in {time.perf_counter() - started:.1f} s",
                file=sys.stderr,
            )
            by_id = {t.dia_id: t for t in turns}
            asked: list[tuple[str, str, Question | None]] = [
                *(("own", q.text, q) for q in own),
                *(("foreign", q.text, None) for q in foreign),
                *(("no-memory", p, None) for p in NO_MEMORY),
            ]
            for kind, prompt, q in asked:
                text, took = hook(root, args.runtime, prompt, cwd)
                found = q is not None and holds_evidence(text, q.evidence, where, by_id)
                kinds[kind].add(text, took, found)
                if dumped is not None:
                    record = {"home": stem, "kind": kind, "prompt": prompt, "chars": len(text)}
                    record.update({"evidence_injected": found, "text": text})
                    dumped.write(json.dumps(record, ensure_ascii=False) + "\n")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=60)
    own_k, foreign_k, none_k = kinds["own"], kinds["foreign"], kinds["no-memory"]
    seconds = [s for k in kinds.values() for s in k.seconds]
    ms = sorted(s * 1000 for s in seconds)
    sample = f"a seeded sample of {args.questions} a conversation" if args.questions else "all"
    print(f"homes: {', '.join(conversations)}; own questions: {sample} (seed {args.seed})")
    print(f"{'prompt kind':<12} {'asked':>5}  figure")
    print(
        f"{'own':<12} {own_k.asked:>5}  injected {own_k.injected / own_k.asked:.3f}; "
        f"evidence in what is injected {own_k.with_evidence / own_k.asked:.3f} "
        f"({own_k.with_evidence} of {own_k.asked}); mean {statistics.mean(own_k.chars):.0f} chars"
    )
    print(
        f"{'foreign':<12} {foreign_k.asked:>5}  silent "
        f"{1 - foreign_k.injected / foreign_k.asked:.3f}; "
        f"mean {statistics.mean(foreign_k.chars):.0f} chars injected"
    )
    print(
        f"{'no-memory':<12} {none_k.asked:>5}  silent {1 - none_k.injected / none_k.asked:.3f}; "
        f"mean {statistics.mean(none_k.chars):.0f} chars injected"
    )
    print(
        f"hook: p50 {statistics.median(ms):.0f} ms, p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms "
        f"over {len(ms)} calls; run {time.perf_counter() - started_all:.0f} s"
    )
    if dumped is not None:
        dumped.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("locomo", type=Path, help="folder of LoCoMo-format N.json files")
    parser.add_argument("--work", type=Path, help="keep (and reuse) the built homes here")
    parser.add_argument(
        "--questions", type=int, default=0, help="own questions a conversation (0: all)"
    )
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--runtime", default="claude-code")
    parser.add_argument("--dump", type=Path, help="write each prompt and its injected text here")
    args = parser.parse_args()
    env = use_git_identity(semantic=True)
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        run(args.locomo, args.work, args, env)
        return
    with tempfile.TemporaryDirectory(prefix="hearth-silence-") as tmp:
        run(args.locomo, Path(tmp), args, env)


if __name__ == "__main__":
    main()
