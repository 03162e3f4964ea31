"""docs/architecture.md's map of the tree against the tree: every package and
module of src/hearth is named in its folder, and nothing named is missing."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "hearth"
DOC = ROOT / "docs" / "architecture.md"

#: A line of the map that starts a folder: ``app/status/ report.py ...``.
FOLDER = re.compile(r"^([a-z_]+(?:/[a-z_]+)*)/(?=\s|$)")
MODULE = re.compile(r"\b([a-z_0-9]+\.py)\b")
#: Where the map's name column starts.
NAME_COLUMN = 11


def the_map() -> tuple[set[str], set[tuple[str, str]]]:
    """The folders the map names, and each module it names with its folder.

    A line of the map names a folder at its start (``app/status/``), then, in the
    name column (up to the first run of two spaces), modules of that folder; a
    line indented to the name column names more modules of the last folder; a
    module at the margin (``answers.py``) is one of src/hearth itself; a line
    indented further is description only."""
    text = DOC.read_text()
    section = text[text.index("## Layers") :]
    section = section[: section.index("\n## ", 1)]
    blocks = re.findall(r"```\n(.*?)```", section, re.S)
    folders: set[str] = set()
    modules: set[tuple[str, str]] = set()
    for block in blocks[1:]:  # the first is the tiers at a glance
        folder = ""
        for line in block.splitlines():
            indent = len(line) - len(line.lstrip(" "))
            if indent > NAME_COLUMN:
                continue
            rest = line.strip()
            found = FOLDER.match(rest) if indent == 0 else None
            if found:
                folder = found.group(1)
                folders.add(folder)
                rest = rest[found.end() :].lstrip()
            elif indent == 0:
                folder = ""
            names = rest.split("  ", 1)[0]
            modules.update((folder, name) for name in MODULE.findall(names))
    return folders, modules


def the_tree() -> tuple[set[str], set[tuple[str, str]]]:
    packages = {str(p.parent.relative_to(SRC)) for p in SRC.rglob("__init__.py") if p.parent != SRC}
    modules = set()
    for path in SRC.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        folder = str(path.parent.relative_to(SRC))
        modules.add(("" if folder == "." else folder, path.name))
    return packages, modules


def test_every_package_and_module_is_on_the_map() -> None:
    folders, named = the_map()
    packages, modules = the_tree()
    missing = sorted(packages - folders)
    assert not missing, f"packages missing from docs/architecture.md's map: {missing}"
    unnamed = sorted(m for m in modules - named if m[1] != "__init__.py")
    assert not unnamed, f"modules missing from docs/architecture.md's map: {unnamed}"


def test_the_map_names_nothing_that_is_not_there() -> None:
    folders, named = the_map()
    packages, modules = the_tree()
    real_folders = packages | {str(p.relative_to(SRC)) for p in SRC.rglob("*") if p.is_dir()}
    gone = sorted(folders - real_folders)
    assert not gone, f"folders on the map that do not exist: {gone}"
    unreal = sorted(named - modules)
    assert not unreal, f"modules on the map that do not exist: {unreal}"
