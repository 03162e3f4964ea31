"""Issue 52's table in one sitting: bench/workload.py and bench/one_server.py on
two trees in turns, then every goal row with its figure before and after.

    .venv/bin/python bench/sitting.py --after TREE [--before /work/wt/speed-before]
        [--files 10000] [--rounds 20] [--sessions 2] [--sizes 10000]
        [--hybrid-files 1000] [--turns 1] [--work DIR]

Each tree is a checkout with its own ``.venv`` (the before tree, 2d32b4d, is a
read-only worktree: when it has no ``.venv``, the tree is copied under
``--work`` and ``make dev`` runs in the copy, so nothing in it is written).
The bench scripts are this checkout's, run by each tree's Python, so each runs
its own ``hearth`` (both scripts start the ``hearth`` beside the interpreter
that runs them). In each turn, every bench runs on the before tree and then on
the after tree: ``one_server.py`` with semantic ranking on (the vectors fill
under the figures), then with ``--keyword``, then ``workload.py``. The raw
output of every run is kept in ``--work`` (``<tree>-<bench>-<turn>.txt``).

Rows without a figure of these benches say which bench gives them: private
memory at 100,000 files is ``bench/serve_rss.py --files 100000`` (RssAnon and
RssShmem), run on its own; start to settled is the workload's at the largest
``--sizes`` given (the goal is at 100,000 files). With ``--turns`` above one, a
cell holds every turn's figure. Prints figures; asserts nothing. Timings on a
loaded machine are noisy: the load average is printed at the start and end.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent


@dataclass
class Tree:
    name: str
    root: Path
    python: Path
    #: Figures by row, one list per row, a value per turn.
    figures: dict[str, list[str]] = field(default_factory=dict)


def python_of(name: str, root: Path, work: Path) -> Path:
    """The tree's own interpreter; a tree without a ``.venv`` is copied first and
    set up in the copy (``make dev``), so the tree itself is never written."""
    found = root / ".venv" / "bin" / "python"
    if found.exists():
        return found
    copy = work / f"{name}-tree"
    if not (copy / ".venv" / "bin" / "python").exists():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".venv"))
        subprocess.run(["make", "dev"], cwd=copy, check=True)
    return copy / ".venv" / "bin" / "python"


def bench(tree: Tree, script: str, args: list[str], out: Path) -> str:
    """One run of ``script`` by ``tree``'s Python; its output, also kept in ``out``."""
    started = time.perf_counter()
    print(f"{tree.name}: {script} {' '.join(args)} ...", flush=True)
    done = subprocess.run(
        [str(tree.python), str(BENCH / script), *args],
        cwd=BENCH,
        capture_output=True,
        text=True,
        check=False,
    )
    out.write_text(done.stdout + done.stderr, encoding="utf-8")
    if done.returncode != 0:
        raise SystemExit(f"{tree.name}: {script} failed (see {out}):\n{done.stderr[-2000:]}")
    print(f"  {time.perf_counter() - started:.0f} s, kept in {out}", flush=True)
    return done.stdout


def number(pattern: str, text: str) -> str:
    found = re.search(pattern, text)
    return found.group(1) if found else "-"


def one_server_figures(text: str, mode: str) -> dict[str, str]:
    """The rows one_server.py's output gives, for ``mode`` (keyword or hybrid)."""
    hook = re.search(
        r"agent-hook claude-code prompt, server running: p50 (\d+) ms(?:, p95 (\d+))?", text
    )
    reads = [number(rf"hearth {name} \(read\), server running: p50 (\d+) ms", text)
             for name in ("status", "get", "context", "search")]  # fmt: skip
    writes = [number(r"hearth note: p50 (\d+) ms", text)] + [
        number(rf"hearth {name} \(write\), server running: p50 (\d+) ms", text)
        for name in ("memory add", "loop add", "decide", "propose")
    ]
    return {
        f"hook {mode}": f"{hook.group(1)} / {hook.group(2) or '-'}" if hook else "-",
        f"reads {mode}": " / ".join(reads),
        f"writes {mode}": " / ".join(writes),
    }


def table_cell(text: str, label: str) -> str:
    """The first cell of the workload table's row starting with ``label``."""
    for line in text.splitlines():
        if line.startswith(f"| {label}"):
            return line.split("|")[2].strip()
    return "-"


def workload_figures(text: str) -> dict[str, str]:
    """The rows workload.py's table gives (its first size's column)."""
    commit = table_cell(text, "a person's `git commit` with hooks")
    save = table_cell(text, "editor save to searchable")
    return {
        "hybrid": table_cell(text, "hybrid search p50").split(" vs ")[0],
        "keyword": table_cell(text, "keyword search p50").split(" vs ")[0],
        "start": table_cell(text, "`hearth serve` start to settled").split(" vs ")[0],
        "commit": number(r"= ([\d.]+x)", commit),
        "save": save.split(" / ")[-1] if " / " in save else save,
        "rss": table_cell(text, "server RSS (keyword)"),
    }


#: (row key, what it is, the goal) in issue 52's order.
ROWS = [
    ("hook keyword", "hook p50 / p95 (process start included), keyword, ms", "60 / 100"),
    ("hook hybrid", "hook p50 / p95, hybrid (vectors filling), ms", "60 / 100"),
    ("reads keyword", "CLI reads p50: status / get / context / search, keyword, ms", "100"),
    ("reads hybrid", "CLI reads p50, hybrid (vectors filling), ms", "100"),
    ("writes keyword", "CLI writes p50: note / memory add / loop add / decide / propose", "150 ms"),
    ("writes hybrid", "CLI writes p50, hybrid (vectors filling), ms", "150"),
    ("hybrid", "hybrid search p50 / p99 (HTTP), ms", "10 (p50)"),
    ("keyword", "keyword search p50 / p99 (HTTP), ms", "2 (p50)"),
    ("private", "private memory (RssAnon + RssShmem) at 100,000 files, MB", "200"),
    ("rss", "server RSS (keyword) after the searches (peak), MB", "(reported)"),
    ("start", "`hearth serve` start to settled, s", "5 at 100,000 files"),
    ("commit", "hooked commit / plain git", "1.5x"),
    ("save", "editor save to searchable p95, ms", "no worse than before"),
]  # fmt: skip
#: Rows no run of these benches gives: what to run for them.
ELSEWHERE = {
    "private": "bench/serve_rss.py --files 100000",
}


def run(args: argparse.Namespace, work: Path) -> None:
    trees = [
        Tree("before", args.before, python_of("before", args.before, work)),
        Tree("after", args.after, python_of("after", args.after, work)),
    ]
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the start", flush=True)
    served = [
        "--files",
        str(args.files),
        "--rounds",
        str(args.rounds),
        "--sessions",
        str(args.sessions),
    ]
    workload = ["--sizes", args.sizes, "--hybrid-files", str(args.hybrid_files), *args.workload]
    for turn in range(1, args.turns + 1):
        runs = [
            ("one_server.py", served, "hybrid"),
            ("one_server.py", [*served, "--keyword"], "keyword"),
            ("workload.py", workload, "workload"),
        ]
        for script, given, mode in runs:
            for tree in trees:
                out = work / f"{tree.name}-{mode}-{turn}.txt"
                text = bench(tree, script, given, out)
                found = (
                    one_server_figures(text, mode) if mode != "workload" else workload_figures(text)
                )
                for key, value in found.items():
                    tree.figures.setdefault(key, []).append(value)
    load = os.getloadavg()
    size = args.sizes.split(",")[-1]
    print(f"\nload average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at the end")
    print(f"\none_server.py {' '.join(served)} [--keyword]; workload.py {' '.join(workload)}")
    hybrid = f"{args.hybrid_files:,}"
    print(f"(workload rows at {int(size):,} files; hybrid rows on a {hybrid}-file home)\n")
    print("| row | goal | before | after |\n|---|---|---|---|")
    before, after = trees
    for key, label, goal in ROWS:
        if key in ELSEWHERE:
            cells = [f"measured by `{ELSEWHERE[key]}`"] * 2
        else:
            cells = ["; ".join(t.figures.get(key, ["-"])) for t in trees]
        print(f"| {label} | {goal} | {cells[0]} | {cells[1]} |")
    print(f"\nbefore: {before.root} ({before.python}); after: {after.root} ({after.python})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, default=Path("/work/wt/speed-before"))
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--files", type=int, default=10_000, help="one_server.py's home")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=2)
    parser.add_argument("--sizes", default="10000", help="workload.py's homes")
    parser.add_argument("--hybrid-files", type=int, default=1000, help="workload.py's hybrid home")
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--work", type=Path, default=None, help="keep the runs' output here")
    parser.add_argument(
        "--workload",
        nargs=argparse.REMAINDER,
        default=[],
        help="what follows goes to workload.py as it is (--queries 20 --commits 3 ...)",
    )
    args = parser.parse_args()
    args.before, args.after = args.before.resolve(), args.after.resolve()
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        run(args, args.work.resolve())
        return
    with tempfile.TemporaryDirectory(prefix="hearth-sitting-") as tmp:
        run(args, Path(tmp))


if __name__ == "__main__":
    main()
