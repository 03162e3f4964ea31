"""Docs stand alone and each endpoint is listed under its real scope (issue 50,
case 7): nothing in docs/ (nor the README, nor a docstring) cites a document
that is not in the repository, and docs/api.md's scope headings agree with the
catalogue."""

from __future__ import annotations

import re
from pathlib import Path

from hearth.operations import OPERATIONS

ROOT = Path(__file__).resolve().parents[1]
#: Documents of the project's making that are not in the repository.
ABSENT = re.compile(r"DESIGN\.md|TECH-NOTES|STYLE\.md|\bdesign section\b|\bDESIGN section\b", re.I)
HEADING_SCOPES = {
    "Reading": "read",
    "Writing (scope `write`)": "write",
    "Admin (scope `admin`)": "admin",
}


def _texts() -> list[Path]:
    return [
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "README.md",
        *sorted((ROOT / "src").rglob("*.py")),
    ]


def test_nothing_cites_a_document_not_in_the_repository() -> None:
    """Case 7: "DESIGN.md section 8", "design section 11" were cited."""
    cited = []
    for path in _texts():
        text = path.read_text()
        cited += [f"{path.relative_to(ROOT)}: {m[0]}" for m in ABSENT.finditer(text)]
        if path.suffix == ".md":
            for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text):
                if not target.startswith("http") and not (path.parent / target).exists():
                    cited.append(f"{path.relative_to(ROOT)}: a link to {target}")
    assert not cited, cited


def test_each_endpoint_of_api_md_is_under_its_real_scope() -> None:
    """Case 7: the memory-entry endpoints were listed under "Admin", and merge
    and reject under "Writing"."""
    scopes: dict[str, set[str]] = {}
    for op in OPERATIONS.values():
        for route in op.http:
            scopes.setdefault(route, set()).add(op.scope)
    under: str | None = None
    listed, wrong = set(), []
    for line in (ROOT / "docs" / "api.md").read_text().splitlines():
        if line.startswith("## "):
            under = HEADING_SCOPES.get(line[3:].strip())
        found = re.match(r"### `(GET|POST|PUT|DELETE) (\S+)`", line)
        if found is None:
            continue
        route = f"{found[1]} {found[2]}"
        listed.add(route)
        if under is not None and under not in scopes.get(route, {under}):
            wrong.append(f"{route} is {sorted(scopes[route])}, listed under {under}")
    assert not wrong, wrong
    assert set(scopes) <= listed, sorted(set(scopes) - listed)
