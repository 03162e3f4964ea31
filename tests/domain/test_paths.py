from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hearth.domain.paths import is_temporary, normalize
from hearth.errors import PathRefused


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("MEMORY.md", "MEMORY.md"),
        ("./memory//2026-11-22.md", "memory/2026-11-22.md"),
        ("memory/topics/../x.md", "memory/x.md"),
        ("users/é.md", "users/é.md"),
    ],
)
def test_normalizes(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "/etc/passwd",
        "../outside.md",
        "memory/../../outside.md",
        ".git/config",
        "sub/.GIT/hooks/pre-commit",
        "a\x00b.md",
        "line\nbreak.md",
        "C:evil.md",
        "back\\slash.md",
        ".",
        "a/..",
        "x" * 5000,
        ("y" * 256) + ".md",
    ],
)
def test_refuses(raw: str) -> None:
    with pytest.raises(PathRefused):
        normalize(raw)


@given(st.text(max_size=80))
def test_normalize_is_safe_and_idempotent(raw: str) -> None:
    try:
        path = normalize(raw)
    except PathRefused:
        return
    parts = path.split("/")
    assert not path.startswith("/")
    assert all(p not in ("", ".", "..") for p in parts)
    assert all(p.casefold() != ".git" for p in parts)
    assert "\x00" not in path
    assert normalize(path) == path


@given(st.lists(st.sampled_from(["a", "b", ".", "..", "", "c.md"]), max_size=8))
def test_dotdot_never_escapes(parts: list[str]) -> None:
    raw = "/".join(parts)
    depth = 0
    escapes = False
    for part in parts:
        if part == "..":
            depth -= 1
            escapes = escapes or depth < 0
        elif part not in ("", "."):
            depth += 1
    try:
        normalize(raw)
    except PathRefused:
        return
    assert not escapes


def test_temporary_names() -> None:
    assert is_temporary(".hearth-tmp-abc123")
    assert is_temporary("memory/.SOUL.md.swp")
    assert is_temporary("4913")
    assert is_temporary("notes.md~")
    assert not is_temporary("memory/2026-11-22.md")
