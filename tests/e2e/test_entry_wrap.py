"""A person re-wraps an entry at the margin; another machine changes entries.

Real clones of a real bare remote: on machine A a person hard-wraps one entry
of MEMORY.md with a real tool (vim's ``gq``, ``fmt``, ``sed -i``), commits and
pushes with plain git; on machine B the agent replaces an entry through hearth,
then B meets A with ``git pull --rebase`` or a plain ``git pull`` (the entry
merge driver). Markdown reads the wrapped lines as the entry's text (lazy
continuation lines), and so must every reader of entries: nothing is lost,
no wrapped line is left behind as stray text, and A's wrapping is kept.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hearth.domain import entries
from tests.conftest import git
from tests.e2e.test_entry_cases import ab, seed  # noqa: F401  (the fixture)
from tests.e2e.test_entry_sync import Machine, run_git

BRAVO = "Bravo plays chess on Sundays at the club near the old harbour"


def _vim(path: Path) -> None:
    """vim with no vimrc: ``gq`` of the line at 30 columns."""
    script = ["-c", "set tw=30", "-c", "/^- Bravo/", "-c", "normal gqq", "-c", "wq"]
    subprocess.run(["vim", "-u", "NONE", "-N", "-es", *script, str(path)], check=True)


def _fmt(path: Path) -> None:
    """The entry's line through ``fmt -w 24`` (a person's ``!!fmt`` in an editor)."""
    lines = path.read_text().split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("- Bravo"))
    done = subprocess.run(
        ["fmt", "-w", "24"], input=lines[at] + "\n", capture_output=True, text=True, check=True
    )
    lines[at : at + 1] = done.stdout.rstrip("\n").split("\n")
    path.write_text("\n".join(lines))


def _sed(path: Path) -> None:
    """``sed -i`` breaking the line twice, at the margin."""
    script = r"s/^\(- Bravo plays chess on\) \(Sundays at the club\) /\1\n\2\n/"
    subprocess.run(["sed", "-i", script, str(path)], check=True)


TOOLS = {"vim": _vim, "fmt": _fmt, "sed": _sed}


def strays(text: str) -> list[str]:
    """Lines of the entries section that belong to no entry: what a wrapped
    entry read only in part would leave behind."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = lines.index(entries.ENTRIES_HEADING) + 1
    held = {i for b in entries.entry_blocks(lines) for i in range(b.start, b.end)}
    return [line for i, line in enumerate(lines[start:], start) if line.strip() and i not in held]


def rewrap(a: Machine, tool: str) -> str:
    """A person re-wraps Bravo on A with ``tool``, commits and pushes with git;
    the wrapped lines as written."""
    path = a.root / "MEMORY.md"
    TOOLS[tool](path)
    text = path.read_text()
    start = text.index("- Bravo")
    wrapped = text[start : text.index("- Carol", start)]
    margin = [line for line in wrapped.split("\n")[1:] if line and not line[0].isspace()]
    assert margin, wrapped  # the tool did wrap at the margin
    git(a.root, "commit", "-qam", "wrap an entry by hand")
    assert run_git(a.root, "push", "-q").returncode == 0
    return wrapped


def meet(b: Machine, how: str) -> None:
    args = ["--rebase"] if how == "rebase" else ["--no-rebase", "--no-edit"]
    pulled = run_git(b.root, "pull", "-q", *args)
    assert pulled.returncode == 0, pulled.stderr
    assert run_git(b.root, "push", "-q").returncode == 0


@pytest.mark.parametrize("how", ["rebase", "merge"])
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_a_rewrap_beside_another_replacement_loses_nothing(
    ab: list[Machine],  # noqa: F811
    tool: str,
    how: str,
) -> None:
    """Real-git case: A re-wraps an entry at the margin (vim, fmt or sed -i) and
    pushes; B replaces another entry and pulls (``--rebase`` or a merge through
    the entry driver): every entry whole, A's wrapping kept byte for byte, no
    stray line, on B and on A after it pulls."""
    a, b = ab
    seed(a, b, "Alpha likes tea", BRAVO, "Carol sings")
    wrapped = rewrap(a, tool)
    b.app.entry_replace("MEMORY.md", "Carol sings", "Carol sings jazz", "agent")
    meet(b, how)
    assert run_git(a.root, "pull", "-q", "--no-rebase", "--no-edit").returncode == 0
    for m in (a, b):
        text = (m.root / "MEMORY.md").read_text()
        assert m.entries() == ["Alpha likes tea", BRAVO, "Carol sings jazz"]
        assert wrapped in text and strays(text) == []
        assert m.app.entry_conflicts() == []


@pytest.mark.parametrize("how", ["rebase", "merge"])
def test_a_rewrapped_entry_replaced_on_the_other_machine_leaves_no_fragment(
    ab: list[Machine],  # noqa: F811
    how: str,
) -> None:
    """The issue's sync: A wraps an entry at the margin with sed, B replaces
    that same entry (as one line): the replacement applies, the wrapped lines
    go with the entry they belonged to, and no conflict is reported."""
    a, b = ab
    seed(a, b, "Alpha likes tea", BRAVO, "Carol sings")
    rewrap(a, "sed")
    b.app.entry_replace("MEMORY.md", BRAVO, "Bravo plays go", "agent")
    meet(b, how)
    text = (b.root / "MEMORY.md").read_text()
    assert b.entries() == ["Alpha likes tea", "Bravo plays go", "Carol sings"]
    assert "harbour" not in text and strays(text) == []
    assert b.app.entry_conflicts() == []


def test_hearth_memory_remove_takes_a_margin_wrap_with_it(ab: list[Machine]) -> None:  # noqa: F811
    """The issue's reproduction through the CLI: an entry wrapped at the margin
    is listed whole and removed whole by ``hearth memory remove``."""
    a, _b = ab
    seed(a, _b, "Alpha likes tea", BRAVO, "Carol sings")
    rewrap(a, "fmt")
    from tests.e2e.run import hearth

    listed = hearth("--home", str(a.root), "memory", "list", "MEMORY.md")
    assert listed.returncode == 0 and BRAVO in listed.stdout
    removed = hearth("--home", str(a.root), "memory", "remove", "MEMORY.md", "#2")
    assert removed.returncode == 0, removed.stderr
    text = (a.root / "MEMORY.md").read_text()
    assert a.entries() == ["Alpha likes tea", "Carol sings"]
    assert "harbour" not in text and "Sundays" not in text
