"""The one scope policy, as data (``operations.py``)."""

from __future__ import annotations

from hearth.operations import OPERATIONS, SCOPES, allows, may, put_operation, refusal


def test_scopes_are_ordered() -> None:
    assert [s for s in SCOPES if allows("write", s)] == ["read", "write"]
    assert all(allows("admin", s) for s in SCOPES)
    assert not allows("read", "write")


def test_only_admin_accepts_or_declines_a_change_to_memory() -> None:
    for operation in ("merge", "reject"):
        assert OPERATIONS[operation].scope == "admin"
        assert not may("write", operation)
        assert may("admin", operation)
        assert "person's call" in refusal("write", operation)


def test_an_agent_writes_and_proposes_but_only_markdown() -> None:
    for operation in ("note", "propose", "loop.add", "loop.resolve", "memory.add", "topic"):
        assert may("write", operation) and not may("read", operation)
    assert put_operation("SOUL.md") == "put" and may("write", "put")
    assert put_operation("hearth.toml") == "put.other" and not may("write", "put.other")
    assert put_operation(".gitignore", "restore") == "put.other"
    assert put_operation("memory/topics/x.md", "restore") == "restore"


def test_records_under_continuity_and_restoring_the_persons_files_are_admin() -> None:
    """Issue 54 case 1 and case 3: a write token cannot PUT a file under
    continuity/ (a forged merged archive, a forged conflict record), and
    restoring a persona or memory file is the person's act."""
    for path in (
        "continuity/proposals/memory/archive/merged/x--y.md",
        "continuity/conflicts/entries/USER.md--0f0f0f0f0f.md",
        "continuity/decisions/x.md",
        "continuity/ACTIVE.md",
    ):
        assert put_operation(path) == "put.records" and not may("write", "put.records")
    for path in ("MEMORY.md", "USER.md", "SOUL.md", "IDENTITY.md", "AGENTS.md", "users/sam.md"):
        assert put_operation(path, "restore") == "restore.persona"
    assert not may("write", "restore.persona") and may("admin", "restore.persona")
    assert not may("write", "records.person")


def test_every_read_is_open_to_every_token() -> None:
    reads = [op for op in OPERATIONS.values() if op.scope == "read"]
    assert {"search", "read", "context", "status"} <= {op.name for op in reads}
    assert all(may("read", op.name) for op in reads)


def test_a_path_is_judged_as_the_write_will_name_it() -> None:
    """A hostile tester's round: ``./MEMORY.md``, ``x/../`` and ``./continuity/``
    took the scope of the spelling (the write normalized them afterwards), and
    ``Continuity/`` (the same folder where case folds) was a plain put."""
    assert put_operation("./MEMORY.md", "restore") == "restore.persona"
    assert put_operation("notes/../USER.md", "restore") == "restore.persona"
    assert put_operation("./continuity/decisions/x.md") == "put.records"
    assert put_operation("Continuity/decisions/x.md") == "put.records"
    assert put_operation("CONTINUITY/proposals/memory/x.md") == "put.records"
    assert put_operation("notes/continuity.md") == "put"
