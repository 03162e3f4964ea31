"""A person's plain git beside concurrent API writes: nothing reverted, nothing carried.

Each round serves a fresh home, has several threads POST daily entries while a
person writes a topic note, ``git add``s it and ``git commit``s it by hand
(plain git, hooks included, as a person would), and then checks what the
history itself holds:

- every entry the API acknowledged is in HEAD's daily note (``git show
  HEAD:path``, not ``git log -p``, which still shows a write a later commit
  reverted);
- every commit of the person's touches only the person's own file: it neither
  carries a hearth path nor reverts one;
- every commit of hearth's touches only the daily note (nothing the person
  staged rode along);
- every acknowledged entry is found by a search made right after its answer
  (a served write indexes its files beside its git commit: ``reconcile/ahead.py``);
- no answer was a 5xx.

The short form runs in ``make test``; ``make torture`` (``HEARTH_TORTURE=long``)
runs many more rounds. The figures of both are printed for the closing notes.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.api.conftest import make_home, start_server
from tests.conftest import git

pytestmark = pytest.mark.torture

LONG = os.environ.get("HEARTH_TORTURE") == "long"
ROUNDS = int(os.environ.get("HEARTH_PERSON_ROUNDS", "40" if LONG else "4"))
WRITERS = 8
POSTS = int(os.environ.get("HEARTH_PERSON_POSTS", "80" if LONG else "40"))
PERSON_COMMITS = int(os.environ.get("HEARTH_PERSON_COMMITS", "15" if LONG else "8"))


@dataclass
class Round:
    acknowledged: list[str] = field(default_factory=list)
    person_commits: dict[str, str] = field(default_factory=dict)  # subject -> path
    five_xx: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    unsearchable: list[str] = field(default_factory=list)
    person_failures: int = 0


def _run_round(root: Path) -> tuple[Round, str]:
    # git's own maintenance runs beside the person's commits as it would after a
    # few weeks of use: gc --auto (packing refs, repacking) after most commits.
    git(root, "config", "gc.auto", "20")
    git(root, "config", "gc.autoPackLimit", "2")
    server = start_server(root)
    seen = Round()
    lock = threading.Lock()
    counter = iter(range(10**9))

    def writer() -> None:
        while True:
            with lock:
                i = next(counter)
            if i >= POSTS:
                return
            text = f"loadword{i} entry"
            reply = server.post("/v1/daily", {"text": text}, token="write")
            found = None
            if reply.status == 200:
                found = server.get(f"/v1/search?q=loadword{i}&limit=5", token="write")
            with lock:
                if reply.status == 200:
                    seen.acknowledged.append(text)
                    assert found is not None
                    hits = found.body.get("hits", []) if found.status == 200 else []
                    if not any(f"loadword{i}" in h.get("snippet", "") for h in hits):
                        seen.unsearchable.append(f"{text!r}: {found.status} {found.raw[:200]!r}")
                elif reply.status >= 500:
                    seen.five_xx.append(f"{reply.status} {reply.raw[:300]!r}")
                else:
                    seen.refused.append(f"{reply.status} {reply.raw[:200]!r}")

    def person() -> None:
        (root / "memory/topics").mkdir(parents=True, exist_ok=True)
        for i in range(PERSON_COMMITS):
            path = f"memory/topics/hand-{i}.md"
            (root / path).write_text(f"# Hand {i}\n\nwritten by hand {i}\n")
            for _ in range(100):  # git's lock may be held by hearth (or gc) a moment
                add = subprocess.run(
                    ["git", "add", path], cwd=root, capture_output=True, check=False
                )
                if add.returncode == 0:
                    commit = subprocess.run(
                        ["git", "commit", "-qm", f"hand {i}"],
                        cwd=root,
                        capture_output=True,
                        check=False,
                    )
                    if commit.returncode == 0:
                        with lock:
                            seen.person_commits[f"hand {i}"] = path
                        break
                with lock:
                    seen.person_failures += 1
                time.sleep(0.02)

    threads = [threading.Thread(target=writer) for _ in range(WRITERS)]
    threads.append(threading.Thread(target=person))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    server.stop()
    return seen, server.stderr


def _commit_paths(root: Path) -> list[tuple[str, str, list[str]]]:
    """(subject, Hearth-Op trailer or '', paths) of every commit after the first."""
    log = git(root, "log", "--format=%x00%s%x01%(trailers:key=Hearth-Op,valueonly)", "--name-only")
    out = []
    for chunk in log.split("\x00")[1:]:
        head, _, names = chunk.partition("\x01")
        op, _, rest = names.partition("\n")
        out.append((head, op.strip(), [n for n in rest.split("\n") if n.strip()]))
    return out[:-1]  # the init commit


def test_a_persons_git_beside_api_writers_never_reverts_or_carries(tmp_path: Path) -> None:
    totals = {"rounds": 0, "acknowledged": 0, "reverted": 0, "carried": 0, "swept": 0, "5xx": 0}
    totals["unsearchable"] = 0
    problems: list[str] = []
    for n in range(ROUNDS):
        root = make_home(tmp_path / f"home{n}")
        seen, stderr = _run_round(root)
        totals["rounds"] += 1
        totals["acknowledged"] += len(seen.acknowledged)
        totals["5xx"] += len(seen.five_xx)
        problems += [f"round {n}: {x}" for x in seen.five_xx]
        totals["unsearchable"] += len(seen.unsearchable)
        problems += [f"round {n}: not found right after its write: {x}" for x in seen.unsearchable]
        if seen.five_xx and "Traceback" not in stderr:
            problems.append(f"round {n}: a 5xx was answered without its traceback in the log")
        dailies = [
            p
            for p in git(root, "ls-tree", "-r", "--name-only", "HEAD").split()
            if p.startswith("memory/2")
        ]
        head_text = "".join(git(root, "show", f"HEAD:{p}") for p in dailies)
        for text in seen.acknowledged:
            if text + "\n" not in head_text:
                totals["reverted"] += 1
                problems.append(f"round {n}: acknowledged {text!r} is not in HEAD")
        for subject, op, paths in _commit_paths(root):
            if subject in seen.person_commits:
                if paths != [seen.person_commits[subject]]:
                    totals["carried"] += 1
                    problems.append(f"round {n}: person's {subject!r} touched {paths}")
            elif op == "daily.append" and any(not p.startswith("memory/2") for p in paths):
                totals["swept"] += 1
                problems.append(f"round {n}: hearth's {subject!r} touched {paths}")
        missing = set(seen.person_commits) - {s for s, _, _ in _commit_paths(root)}
        if missing:
            problems.append(f"round {n}: the person's commits {missing} are not in history")
        dirty = git(root, "status", "--porcelain", "--untracked-files=no")
        if dirty:
            problems.append(f"round {n}: after the round, git status shows {dirty!r}")
    print(f"\nperson-beside-hearth: {totals}")
    assert not problems, problems[:10]
    assert totals["acknowledged"] >= ROUNDS * POSTS // 2, totals
