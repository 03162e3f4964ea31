"""A person's git (commit, amend, pull --rebase, cherry-pick) beside concurrent
"already known" folds (``domain/known_folds.py``): HEAD and every entry checked
after each round (a data-trust leftover, (5)).

One home, served by the use cases in this process, with a bare remote and a
second clone (another machine) that pushes each round a note and an entry of
the same person note to ``main``, and another of each to a side branch. Each
round hearth adds a held entry to the person note and an agent proposes an
entry that adds words to it; then, at the same time:

- review merges the proposal with the board's default fold (retried while the
  store is busy; a refusal is no acknowledgement);
- the person writes a note of their own, commits it, amends that commit with
  one more line, ``git pull --rebase``s the other machine's commit,
  ``git cherry-pick``s the side branch's and pushes (a pull or pick stopped on
  a conflict is a problem, aborted).

After each round, what HEAD holds (``git show HEAD:path``, the history's word,
not the working tree's):

- every entry hearth added and every fold acknowledged, with every token of
  both the held entry and the proposed one (``loses_words``), exactly once;
- every note of the person's, as amended, and each one pulled and picked,
  and the other machine's entries;
- a clean working tree with no rebase or cherry-pick left half done.

The short form runs in ``make test``; ``make torture`` (``HEARTH_TORTURE=long``)
runs many more rounds.
"""

from __future__ import annotations

import os
import random
import string
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.domain import entries
from hearth.domain.consolidation import loses_words
from hearth.errors import Busy, Conflict
from tests.conftest import git

pytestmark = pytest.mark.torture

LONG = os.environ.get("HEARTH_TORTURE") == "long"
ROUNDS = int(os.environ.get("HEARTH_FOLD_ROUNDS", "30" if LONG else "2"))
NOTE = "users/caroline.md"
ACTOR = "test"


@dataclass
class Machines:
    root: Path
    other: Path
    app: Hearth


@dataclass
class Round:
    held: str
    proposed: str
    folded: bool = False
    refused: list[str] = field(default_factory=list)
    person: dict[str, str] = field(default_factory=dict)  # path -> text
    others: list[str] = field(default_factory=list)  # the other machine's entries
    failed: list[str] = field(default_factory=list)


@pytest.fixture
def machines(tmp_path: Path) -> Iterator[Machines]:
    root = tmp_path / "home"
    wiring.initialize(root)
    app = wiring.open_app(root)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    app.entry_add(NOTE, "Caroline likes green tea", ACTOR)  # the note both machines hold
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "HEAD:main")
    git(root, "branch", "-q", "--set-upstream-to=origin/main")
    git(root, "config", "pull.rebase", "true")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))
    try:
        yield Machines(root, other, app)
    finally:
        app.writes.files.close()


def _words(n: int) -> list[str]:
    """Six made-up words of round ``n``'s entries: no two rounds' entries alike
    (a fold goes into its own round's held entry), no digits (a number the held
    entry lacks makes a proposal new, not known)."""
    draw = random.Random(n)
    return ["".join(draw.choices(string.ascii_lowercase, k=7)) for _ in range(6)]


def _retry(action: Callable[[], subprocess.CompletedProcess[str]], what: str, seen: Round) -> bool:
    """``action`` until it succeeds: git's lock may be held by hearth a moment."""
    for _ in range(200):
        done = action()
        if done.returncode == 0:
            return True
        time.sleep(0.02)
    seen.failed.append(f"{what}: {done.stderr.strip()[:300]}")
    return False


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def _add_entry(path: Path, entry: str) -> None:
    """The other machine's own entry, added by hand at the end of the note."""
    path.write_text(path.read_text().rstrip("\n") + f"\n- {entry}\n")


def _other_entries(n: int) -> tuple[str, str]:
    return f"Caroline pulled {_words(n + 1000)[0]}", f"Caroline picked {_words(n + 2000)[0]}"


def _other_machine(m: Machines, n: int) -> tuple[str, str]:
    """The other machine pushes a note to main and one to the side branch."""
    pulled, picked = f"memory/topics/pulled-{n}.md", f"memory/topics/picked-{n}.md"
    git(m.other, "pull", "-q", "--rebase", "origin", "main")
    (m.other / pulled).parent.mkdir(parents=True, exist_ok=True)
    (m.other / pulled).write_text(f"# Pulled {n}\n\nfrom the other machine {n}\n")
    _add_entry(m.other / NOTE, _other_entries(n)[0])
    git(m.other, "add", pulled, NOTE)
    git(m.other, "commit", "-qm", f"pulled {n}")
    git(m.other, "push", "-q", "origin", "HEAD:main")
    git(m.other, "checkout", "-q", "-B", "side")
    (m.other / picked).write_text(f"# Picked {n}\n\non the side branch {n}\n")
    _add_entry(m.other / NOTE, _other_entries(n)[1])
    git(m.other, "add", picked, NOTE)
    git(m.other, "commit", "-qm", f"picked {n}")
    git(m.other, "push", "-q", "-f", "origin", "side")
    git(m.other, "checkout", "-q", "main")
    git(m.other, "reset", "-q", "--hard", "origin/main")
    return pulled, picked


def _person(m: Machines, n: int, seen: Round, pulled: str, picked: str) -> None:
    root = m.root
    mine = f"memory/topics/mine-{n}.md"
    (root / mine).parent.mkdir(parents=True, exist_ok=True)
    text = f"# Mine {n}\n\nwritten by hand {n}\n"
    (root / mine).write_text(text)
    if not _retry(lambda: _run(root, "add", mine), "add", seen):
        return
    if not _retry(lambda: _run(root, "commit", "-qm", f"mine {n}"), "commit", seen):
        return
    text += f"and amended {n}\n"
    (root / mine).write_text(text)
    if not _retry(lambda: _run(root, "add", mine), "add again", seen):
        return
    if not _retry(lambda: _run(root, "commit", "-q", "--amend", "--no-edit"), "amend", seen):
        return
    seen.person[mine] = text
    pulled_entry, picked_entry = _other_entries(n)
    if _settled(root, "pull", "--rebase", what="pull --rebase", abort="rebase", seen=seen):
        seen.person[pulled] = (m.other / pulled).read_text()
        seen.others.append(pulled_entry)
    if not _retry(lambda: _run(root, "fetch", "-q", "origin", "side"), "fetch side", seen):
        return
    if _settled(
        root, "cherry-pick", "FETCH_HEAD", what="cherry-pick", abort="cherry-pick", seen=seen
    ):
        seen.person[picked] = f"# Picked {n}\n\non the side branch {n}\n"
        seen.others.append(picked_entry)
    _retry(lambda: _run(root, "push", "-q", "origin", "HEAD:main"), "push", seen)


def _settled(root: Path, *args: str, what: str, abort: str, seen: Round) -> bool:
    """``git ARGS`` retried while git's lock is held; one that stops on a
    conflict (the entry merge driver could not merge) is recorded and aborted."""
    for _ in range(200):
        done = _run(root, *args)
        if done.returncode == 0:
            return True
        stopped = any(
            (root / ".git" / half).exists()
            for half in ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD")
        )
        if stopped:
            seen.failed.append(f"{what} stopped: {(done.stdout + done.stderr).strip()[:400]}")
            _run(root, abort, "--abort")
            return False
        time.sleep(0.02)
    seen.failed.append(f"{what}: {done.stderr.strip()[:300]}")
    return False


def _review(m: Machines, key: str, seen: Round) -> None:
    for _ in range(200):
        try:
            review = m.app.review_board().proposals[key]
            fold = {f.entry: f.into for f in review.folds}
            m.app.merge(key, ACTOR, leave_out=review.known, fold=fold)
        except (Busy, Conflict) as exc:
            seen.refused.append(exc.message)
            time.sleep(0.02)
            continue
        seen.folded = bool(fold)
        return


def _check(m: Machines, n: int, rounds: list[Round]) -> list[str]:
    """What HEAD and the working tree must hold after round ``n``."""
    problems = []
    held = [e.text for e in entries.list_entries(git(m.root, "show", f"HEAD:{NOTE}"))]
    for i, seen in enumerate(rounds):
        problems += [f"round {n}: round {i}'s person: {x}" for x in seen.failed] if i == n else []
        ours = [e for e in held if not loses_words(e, [seen.held])]
        if len(ours) != 1:
            problems.append(
                f"round {n}: {seen.held!r} is held {len(ours)} times: {ours}"
                f" (folded: {seen.folded}; refused: {seen.refused[-2:]})"
            )
        elif seen.folded and loses_words(ours[0], [seen.proposed]):
            problems.append(f"round {n}: the fold of {seen.proposed!r} lost words: {ours[0]!r}")
        for entry in seen.others:
            if entry not in held:
                problems.append(f"round {n}: the other machine's {entry!r} is not in HEAD")
        for path, text in seen.person.items():
            shown = _run(m.root, "show", f"HEAD:{path}")
            if shown.stdout != text:
                problems.append(f"round {n}: HEAD's {path} is {shown.stdout!r}, not {text!r}")
    dirty = git(m.root, "status", "--porcelain", "--untracked-files=no")
    if dirty:
        problems.append(f"round {n}: git status shows {dirty!r}")
    gitdir = m.root / ".git"
    for half in ("rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "MERGE_HEAD"):
        if (gitdir / half).exists():
            problems.append(f"round {n}: .git/{half} is left")
    if git(m.root, "symbolic-ref", "-q", "HEAD", check=False).strip() != "refs/heads/main":
        problems.append(f"round {n}: HEAD is not on main")
    return problems


def test_a_persons_git_beside_known_folds_keeps_every_entry_and_note(
    machines: Machines,
) -> None:
    """Case (5): commit, amend, pull --rebase and cherry-pick beside a fold
    merging into the same home; every entry and every note of both kept."""
    m = machines
    rounds: list[Round] = []
    problems: list[str] = []
    for n in range(ROUNDS):
        a, b, c, d, e, f = _words(n)
        held = f"Caroline {a} {b} {c} {d}"
        proposed = f"Caroline {a} {b} {c} {d} {e} {f}"
        m.app.entry_add(NOTE, held, ACTOR)
        key = m.app.propose(f"Group {n}", [proposed], ACTOR, target=NOTE, agent=True).key
        assert key is not None
        seen = Round(held, proposed)
        rounds.append(seen)
        pulled, picked = _other_machine(m, n)
        threads = [
            threading.Thread(target=_review, args=(m, key, seen)),
            threading.Thread(target=_person, args=(m, n, seen, pulled, picked)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        problems += _check(m, n, rounds)
    folded = sum(r.folded for r in rounds)
    print(f"\nperson-git-beside-folds: {ROUNDS} rounds, {folded} folded, problems {len(problems)}")
    assert not problems, problems[:10]
    assert folded >= 1, [r.refused[-3:] for r in rounds]
