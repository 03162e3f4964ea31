"""Every error hearth raises on purpose is declared in errors.py (issue 51,
"sizes and comments": ``Interrupted`` sat in app/served/service.py)."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

from hearth import errors

SRC = Path(__file__).resolve().parents[1] / "src" / "hearth"


def _classes_on(bases: set[str]) -> list[tuple[Path, int, str]]:
    """Classes outside errors.py with one of ``bases`` among theirs (by name)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if path == SRC / "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and bases & {
                b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
            }:
                found.append((path.relative_to(SRC), node.lineno, node.name))
    return found


def test_every_hearth_error_is_declared_in_errors_py() -> None:
    tree_names = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.HearthError)
    }
    outside = [f"{path}:{line} {name}" for path, line, name in _classes_on(tree_names)]
    assert not outside, f"errors of hearth's tree declared outside errors.py: {outside}"


def test_the_tree_drawn_in_the_docstring_names_every_class() -> None:
    doc = errors.__doc__ or ""
    missing = [
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.HearthError) and name not in doc
    ]
    assert not missing, f"errors missing from errors.py's drawn tree: {missing}"


def test_every_exception_class_is_declared_in_errors_py() -> None:
    """Issue 51: every exception is in errors.py. ``ApiError``, ``LoginFirst``,
    ``BadPack`` and ``_NotPlain`` sat in api/problems.py, ui/kit.py,
    index/vector_packs.py and reconcile/ahead.py. Data-trust leftover (4):
    api/limits.py's ``_TooLarge`` (a Starlette HTTP exception) and
    mcp/calls.py's ``Refused`` had stayed outside; they are ``BodyTooLarge``
    and ``OutOfScope`` of the one tree now."""
    exceptions = {
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    } | {"StarletteHTTPException", "HTTPException"}
    outside = [f"{path} {name}" for path, _line, name in _classes_on(exceptions)]
    assert outside == [], outside
