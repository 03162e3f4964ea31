"""The corridors of a tree: how its modules meet, counted (issue 51's closing table).

    .venv/bin/python bench/corridors.py [TREE] [--list]

TREE is a checkout of hearth (default: this one). Each row is measured on TREE's
files, never imported from it, so one script reads an older tree and a newer one
alike (the lead runs it on main before and after a round):

- private accesses: ruff's SLF001 (a member with a leading underscore reached on
  another object) on TREE/src, with TREE's own noqa comments ignored, so a
  silenced access still counts;
- modules over 450 lines in src/ and bench/ (and the count of functions over
  120 lines in src/, the largest one named);
- import loops: the strongly connected parts of the import graph of src/ (every
  `import`, in functions too, as grimp reads them) and of bench/ (a script
  importing another by its bare name, as `from recall import load`);
- `noqa` comments by rule, in src/, bench/ and tests/;
- figures in comments: a timing, size or share (`3 ms`, `0.6 s`, `120 MB`, `40%`)
  in a `#` comment or a docstring in src/ (--list prints each).

The "modules crossed by one served write" row is bench/write_trace.py's.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

MODULE_LIMIT = 450
FUNCTION_LIMIT = 120
FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|s|MB|GB|KB|kB|µs|us|%)(?![\w])")
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<rules>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*))?")


@dataclass(frozen=True)
class Function:
    path: str
    name: str
    lines: int


def python_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def relative(tree: Path, path: Path) -> str:
    return str(path.relative_to(tree))


def private_accesses(tree: Path) -> tuple[int, Counter[str]]:
    """SLF001 findings on src/ by file; TREE's config and noqa comments left out."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    options = ["--isolated", "--select", "SLF001", "--ignore-noqa", "--no-cache"]
    found = subprocess.run(
        [ruff, "check", *options, "--output-format", "json", "--exit-zero", str(tree / "src")],
        capture_output=True,
        text=True,
        check=True,
    )
    by_file: Counter[str] = Counter()
    for finding in json.loads(found.stdout):
        by_file[relative(tree, Path(finding["filename"]))] += 1
    return sum(by_file.values()), by_file


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def long_modules(tree: Path) -> list[tuple[str, int]]:
    found = [
        (relative(tree, path), line_count(path))
        for folder in ("src", "bench")
        for path in python_files(tree / folder)
    ]
    return sorted((item for item in found if item[1] > MODULE_LIMIT), key=lambda i: -i[1])


def functions(tree: Path, folder: str) -> Iterator[Function]:
    for path in python_files(tree / folder):
        parsed = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(parsed):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                end = node.end_lineno or node.lineno
                yield Function(relative(tree, path), node.name, end - node.lineno + 1)


def imported_names(parsed: ast.Module, package: list[str]) -> Iterator[tuple[str, ...]]:
    """What each name an `import` in PARSED brings may be, most specific first.

    `from a import b` names the module a.b if there is one, else a name of a's
    (relative imports resolved against PACKAGE), as grimp reads it.
    """
    for node in ast.walk(parsed):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield (alias.name,)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            for alias in node.names:
                yield (f"{stem}.{alias.name}", stem)


def resolved(candidates: tuple[str, ...], known: Iterable[str]) -> str | None:
    return next((name for name in candidates if name in known), None)


def src_graph(tree: Path) -> dict[str, set[str]]:
    root = tree / "src"
    modules: dict[str, Path] = {}
    for path in python_files(root):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        package = name.split(".") if is_package else name.split(".")[:-1]
        parsed = ast.parse(path.read_text(encoding="utf-8"))
        targets = (resolved(names, modules) for names in imported_names(parsed, package))
        graph[name] = {target for target in targets if target is not None and target != name}
    return graph


def bench_graph(tree: Path) -> dict[str, set[str]]:
    scripts = {
        path.stem: path for path in python_files(tree / "bench") if path.parent.name == "bench"
    }
    graph: dict[str, set[str]] = {}
    for name, path in scripts.items():
        parsed = ast.parse(path.read_text(encoding="utf-8"))
        tops = (names[-1].split(".")[0] for names in imported_names(parsed, []))
        graph[name] = {top for top in tops if top in scripts and top != name}
    return graph


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of GRAPH with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def comments(source: str) -> Iterator[tuple[int, str]]:
    """Each `#` comment and each docstring line of SOURCE, with its line number."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ) and (doc := ast.get_docstring(node, clean=False)):
            first = node.body[0].lineno
            for offset, line in enumerate(doc.splitlines()):
                yield first + offset, line


def noqa_counts(tree: Path) -> dict[str, Counter[str]]:
    counts: dict[str, Counter[str]] = {}
    for folder in ("src", "bench", "tests"):
        counter: Counter[str] = Counter()
        for path in python_files(tree / folder):
            for _, text in comments(path.read_text(encoding="utf-8")):
                for match in NOQA.finditer(text):
                    rules = match.group("rules")
                    for rule in re.split(r"\s*,\s*", rules) if rules else ["(all)"]:
                        counter[rule] += 1
        counts[folder] = counter
    return counts


def figures(tree: Path) -> list[tuple[str, int, str]]:
    found: list[tuple[str, int, str]] = []
    for path in python_files(tree / "src"):
        for line, text in comments(path.read_text(encoding="utf-8")):
            if FIGURE.search(text):
                found.append((relative(tree, path), line, text.strip()))
    return sorted(set(found))


def figure_kind(text: str) -> str:
    """A line's first figure's kind: a timing (ms, s, µs), a size (KB, MB, GB) or a share."""
    match = FIGURE.search(text)
    unit = match.group(0).split()[-1].lstrip("0123456789.,") if match else ""
    if unit in {"ms", "s", "µs", "us"}:
        return "timing"
    return "share" if unit == "%" else "size"


def counter_text(counter: Counter[str]) -> str:
    return ", ".join(f"{rule} {n}" for rule, n in sorted(counter.items())) or "none"


def loop_text(parts: Iterable[list[str]]) -> str:
    return "; ".join(" <-> ".join(part) for part in parts) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=Path(__file__).parents[1])
    parser.add_argument("--list", action="store_true", help="print every finding, not counts")
    args = parser.parse_args()
    tree: Path = args.tree.resolve()

    slf, slf_by_file = private_accesses(tree)
    long = long_modules(tree)
    src_functions = list(functions(tree, "src"))
    largest = max(src_functions, key=lambda f: f.lines)
    over = sorted((f for f in src_functions if f.lines > FUNCTION_LIMIT), key=lambda f: -f.lines)
    src_loops = loops(src_graph(tree))
    bench_loops = loops(bench_graph(tree))
    noqa = noqa_counts(tree)
    found_figures = figures(tree)
    git = ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"]
    head = subprocess.run(git, capture_output=True, text=True, check=False).stdout.strip()

    print(f"tree {tree} at {head or '?'}")
    print(f"private accesses (SLF001 on src/, noqa ignored): {slf} in {len(slf_by_file)} files")
    print(f"modules over {MODULE_LIMIT} lines (src/, bench/): {len(long)}")
    print(f"largest function in src/: {largest.name} ({largest.path}), {largest.lines} lines")
    print(f"functions over {FUNCTION_LIMIT} lines in src/: {len(over)}")
    print(f"import loops in src/: {len(src_loops)}; in bench/: {len(bench_loops)}")
    for folder, counter in noqa.items():
        print(f"noqa in {folder}/: {sum(counter.values())} ({counter_text(counter)})")
    kinds = Counter(figure_kind(text) for _, _, text in found_figures)
    print(
        f"figures in src/ comments and docstrings: {len(found_figures)} lines "
        f"({', '.join(f'{kind} {n}' for kind, n in sorted(kinds.items()))})"
    )
    if not args.list:
        return
    print("\n# private accesses by file")
    for path, n in slf_by_file.most_common():
        print(f"  {n:3} {path}")
    print(f"\n# modules over {MODULE_LIMIT} lines")
    for path, n in long:
        print(f"  {n:4} {path}")
    print(f"\n# functions over {FUNCTION_LIMIT} lines")
    for function in over:
        print(f"  {function.lines:4} {function.path}:{function.name}")
    print(f"\n# import loops in src/: {loop_text(src_loops)}")
    print(f"# import loops in bench/: {loop_text(bench_loops)}")
    print("\n# figures in comments")
    for path, line, text in found_figures:
        print(f"  {path}:{line}: {text}")


if __name__ == "__main__":
    main()
