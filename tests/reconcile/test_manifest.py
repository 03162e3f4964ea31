"""The manifest's compact file map, and a manifest of the format before it."""

from __future__ import annotations

import marshal
import sys
from pathlib import Path

from hearth.errors import RuleFailure
from hearth.reconcile import manifest
from hearth.reconcile.filemap import FileEntry, FileMap
from hearth.reconcile.manifest import Manifest, ParkedFile
from tests.conftest import Workspace
from tests.reconcile.test_reconciler import age_tree, paths_found

DIGEST = bytes(range(16))


def entry(**changed: object) -> FileEntry:
    fields: dict[str, object] = {
        "size": 2048,
        "mtime_ns": 1_795_000_000_123_456_789,
        "digest": DIGEST,
        "documents": 4,
    }
    return FileEntry(**{**fields, **changed})  # type: ignore[arg-type]


def test_a_row_gives_back_the_entry_put_in() -> None:
    files = FileMap()
    failing = (RuleFailure("a.md", "secret", "looks like a key", "remove it"),)
    put = [entry(), entry(size=0, documents=0, racy=True), entry(failures=failing)]
    for n, e in enumerate(put):
        files.put(f"{n}.md", e)
    assert [files[f"{n}.md"] for n in range(3)] == put
    assert files.get("missing.md") is None and "missing.md" not in files
    assert sorted(files) == ["0.md", "1.md", "2.md"] and len(files) == 3
    assert all(isinstance(row, bytes) for row in files.rows.values())
    assert files.failing("2.md") and not files.failing("0.md")


def test_matches_and_signature_read_the_packed_row() -> None:
    files = FileMap()
    files.put("a.md", entry())
    files.put("racy.md", entry(racy=True))
    assert files.matches("a.md", 2048, 1_795_000_000_123_456_789)
    assert not files.matches("a.md", 2049, 1_795_000_000_123_456_789)
    assert not files.matches("a.md", 2048, 1_795_000_000_123_456_788)
    assert not files.matches("racy.md", 2048, 1_795_000_000_123_456_789)  # hashed again
    assert not files.matches("missing.md", 2048, 1_795_000_000_123_456_789)
    assert files.signature("racy.md") == (2048, 1_795_000_000_123_456_789)
    assert files.signature("missing.md") is None


def test_the_document_count_follows_puts_and_pops() -> None:
    files = FileMap()
    files.put("a.md", entry(documents=3))
    assert files.documents() == 3
    files.put("b.md", entry(documents=5))
    files.put("a.md", entry(documents=1, failures=(RuleFailure("a.md", "r", "m", "f"),)))
    assert files.documents() == 6
    popped = files.pop("a.md")
    assert popped is not None and popped.documents == 1 and not files.failing("a.md")
    assert files.pop("a.md") is None
    assert files.documents() == 5 == sum(e.documents for e in files.values())


def test_a_saved_manifest_loads_as_it_was(tmp_path: Path) -> None:
    state = Manifest(ignore_signature="rules")
    state.put("memory/topics/a.md", entry())
    failing = (RuleFailure("SOUL.md", "length", "too short", "write more"),)
    state.put("SOUL.md", entry(documents=1, failures=failing))
    state.parked["memory/pipe.md"] = ParkedFile(0, 5, "not a regular file")
    state.retries["memory/locked.md"] = 2
    manifest.save(tmp_path, state)
    state.put("memory/topics/b.md", entry(racy=True))
    manifest.save(tmp_path, state, ["memory/topics/b.md"])  # a journal record
    loaded = manifest.load(tmp_path)
    assert loaded is not None
    assert dict(loaded.files) == dict(state.files)
    assert loaded.parked == state.parked and loaded.retries == state.retries
    assert loaded.documents() == state.documents() == 9
    assert loaded.notable == {"SOUL.md"}
    assert loaded.journal_records == 1 and loaded.ignore_signature == "rules"


def test_a_journal_record_alone_leaves_the_pass_record_and_goes_past_the_limit(
    tmp_path: Path,
) -> None:
    """``journal`` (a write's entries marked before its index commit) appends one
    record even to a full journal, and leaves the pass record as it was."""
    state = Manifest(indexed_head="a" * 40)
    state.put("memory/topics/a.md", entry())
    manifest.save(tmp_path, state)
    state.journal_records = manifest.JOURNAL_LIMIT
    state.indexed_head = "b" * 40
    state.put("memory/topics/a.md", entry(mtime_ns=-1, racy=True))
    manifest.journal(tmp_path, state, ["memory/topics/a.md"])
    loaded = manifest.load(tmp_path)
    assert loaded is not None
    assert loaded.files["memory/topics/a.md"] == entry(mtime_ns=-1, racy=True)
    assert loaded.indexed_head == "a" * 40 and loaded.journal_records == 1
    manifest.save(tmp_path, state, ["memory/topics/a.md"])  # the next save folds it
    assert not (tmp_path / manifest.JOURNAL_NAME).exists()
    assert manifest.load(tmp_path).indexed_head == "b" * 40  # type: ignore[union-attr]


def format_2(folder: Path) -> None:
    """Rewrite the manifest in ``folder`` (a base, no journal) as hearth wrote it
    before packed rows: one tuple of fields a file, hex digests."""
    state = manifest.load(folder)
    assert state is not None
    rows = {}
    for path in {*state.files, *state.parked}:
        e, parked = state.files.get(path), state.parked.get(path)
        rows[path] = (
            None
            if e is None
            else (
                e.size,
                e.mtime_ns,
                e.digest.hex(),
                e.documents,
                e.racy,
                tuple((f.rule, f.message, f.fix) for f in e.failures),
            ),
            None if parked is None else (parked.size, parked.mtime_ns, parked.reason),
            state.retries.get(path),
        )
    header = ("hearth-manifest", 2, sys.version_info[:2])
    data = marshal.dumps((header, state.ignore_signature, rows))
    (folder / manifest.MANIFEST_NAME).write_bytes(data)
    (folder / manifest.JOURNAL_NAME).unlink(missing_ok=True)


def test_a_manifest_of_format_2_is_read_without_a_rebuild_and_replaced(
    workspace: Workspace,
) -> None:
    ws = workspace
    ws.write("memory/topics/heron.md", "# Heron\n\nThe heron waits by the weir.\n")
    rec = ws.app.reconciler
    rec.reconcile()
    before = dict(rec.session.manifest.files)
    rec.close()
    folder = rec.folder
    format_2(folder)

    age_tree(ws.root)
    old = ws.reopen().reconciler
    report = old.reconcile()
    assert not report.rebuilt and report.indexed == 0
    assert {p: (e.digest, e.documents) for p, e in old.session.manifest.files.items()} == {
        p: (e.digest, e.documents) for p, e in before.items()
    }
    assert paths_found(old, "heron") == {"memory/topics/heron.md"}
    # That pass's save wrote a base of the current format; later ones journal on it.
    header = marshal.loads((folder / manifest.MANIFEST_NAME).read_bytes())[0]
    assert header[1] == manifest.FORMAT
    ws.write("memory/topics/ibis.md", "# Ibis\n\nAn ibis on the mud.\n")
    old.reconcile(["memory/topics/ibis.md"])
    old.close()
    again = ws.reopen().reconciler
    assert not again.reconcile().rebuilt
    assert paths_found(again, "ibis heron") == {"memory/topics/heron.md", "memory/topics/ibis.md"}
