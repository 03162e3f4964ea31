"""Vectors travel with the home: machines that sync through a real bare remote
(the real git CLI) embed each passage once between them (docs/sync.md).

The machines here embed with a stand-in model (vectors from a hash of the
text: the exchange never looks at what a vector means), so each test costs
git, not embedding; ``test_a_second_machine_embeds_nothing_after_hearth_sync``
runs the real model through the installed CLI.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from hearth import wiring
from hearth.app.usecases import Hearth
from hearth.index.schema import digest, file_digests
from hearth.index.vector_packs import make_pack
from hearth.store.vector_ref import LOCAL_REF
from tests.conftest import FakeClock, git
from tests.e2e.run import hearth

VECTORS_REF = LOCAL_REF


class HashEmbedder:
    """Unit vectors from a hash of each text; counts what it embeds."""

    name = "test-hash-embedder"
    dims = 8

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return np.stack([self._vector(t) for t in texts])

    def query(self, text: str) -> np.ndarray:
        return self._vector(text)

    def _vector(self, text: str) -> np.ndarray:
        raw = np.frombuffer(hashlib.sha256(text.encode()).digest(), dtype=np.uint8)[: self.dims]
        row = raw.astype(np.float32) - 127.5
        return (row / np.linalg.norm(row)).astype(np.float32)


class Machine:
    def __init__(self, root: Path, clock: FakeClock) -> None:
        self.root = root
        self.embedder = HashEmbedder()
        self.app: Hearth = wiring.open_app(root, clock, embedder=self.embedder)

    def sync(self) -> dict[str, object]:
        result = self.app.sync()
        assert result.vectors is not None
        return result.vectors

    def reindex(self) -> int:
        return self.app.reindex().embedded

    def note(self, text: str) -> None:
        self.app.note(text, None, "test")

    def coverage(self) -> dict[str, object]:
        found = self.app.reconciler.index.vector_coverage()
        assert found is not None
        return found.as_dict()

    def stored(self) -> set[str]:
        semantic = self.app.reconciler.index.semantic
        assert semantic is not None
        semantic.store.refresh()
        return set(semantic.store.digests())


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    return bare


def _first(tmp_path: Path, remote: Path, clock: FakeClock) -> Machine:
    root = tmp_path / "m0"
    wiring.initialize(root, clock)
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    return Machine(root, clock)


def _clone(tmp_path: Path, remote: Path, clock: FakeClock, name: str) -> Machine:
    root = tmp_path / name
    # --no-local: objects come through git's transport, as from a server (a local
    # clone would copy the remote's object files, broken ones included).
    git(tmp_path, "clone", "-q", "--no-local", str(remote), str(root))
    wiring.install_hooks(root)
    return Machine(root, clock)


def _packs(root: Path, ref: str = VECTORS_REF) -> list[str]:
    listed = git(root, "ls-tree", "-r", "--name-only", ref)
    return [line for line in listed.splitlines() if line]


def test_a_second_machine_embeds_only_what_no_machine_embedded(
    tmp_path: Path, remote: Path, clock: FakeClock
) -> None:
    a = _first(tmp_path, remote, clock)
    a.note("Sam planted tomatoes along the fence.")
    assert a.reindex() > 0
    sent = a.sync()
    assert sent["pushed"] and sent["exported"] == len(a.stored()) and not sent["refused"]

    b = _clone(tmp_path, remote, clock, "m1")
    got = b.sync()
    assert got["imported"] == len(a.stored()) and got["exported"] == 0
    assert b.coverage()["complete"] is True  # before any fill: nothing waits
    assert b.reindex() == 0 and b.embedder.embedded == []
    assert b.coverage()["complete"] is True
    assert b.stored() == a.stored()

    # A note written on the second machine, embedded there, synced back...
    b.note("Ordered the seeds for spring.")
    assert b.reindex() >= 1
    assert b.sync()["exported"] >= 1
    # ...is not embedded again on the first.
    before = len(a.embedder.embedded)
    assert a.sync()["imported"] >= 1
    assert a.reindex() == 0 and len(a.embedder.embedded) == before
    assert a.coverage()["complete"] is True
    assert a.stored() == b.stored()


def test_diverged_vector_stores_merge_as_a_union(
    tmp_path: Path, remote: Path, clock: FakeClock
) -> None:
    a = _first(tmp_path, remote, clock)
    a.reindex()
    a.sync()
    b = _clone(tmp_path, remote, clock, "m1")
    c = _clone(tmp_path, remote, clock, "m2")
    b.sync()
    c.sync()
    b.note("Only the second machine knows this.")
    c.note("Only the third machine knows that.")
    b.reindex()
    c.reindex()
    # The third machine records its vectors while the remote is out of reach...
    remote.rename(tmp_path / "away.git")
    exchange = c.app.syncer.vectors
    assert exchange is not None
    head = git(c.root, "rev-parse", "HEAD").strip()
    offline = exchange.exchange("origin", lambda _step: None, head)
    assert offline.error and offline.exported >= 1 and not offline.pushed
    (tmp_path / "away.git").rename(remote)
    b.sync()  # ...while the second pushes its own
    merged = c.sync()  # diverged: a union of both, then pushed
    assert merged["pushed"] and merged["imported"] >= 1
    tip = git(c.root, "rev-parse", VECTORS_REF).strip()
    parents = git(c.root, "log", "-1", "--format=%P", VECTORS_REF).split()
    assert len(parents) == 2
    assert git(c.root, "ls-remote", str(remote), VECTORS_REF).split()[0] == tip
    b.sync()
    a.sync()
    for machine in (a, b):
        machine.app.sync()  # the branch: both notes everywhere
    everything = a.stored() | b.stored() | c.stored()
    for machine in (a, b, c):
        machine.app.sync()
        assert machine.reindex() == 0
        assert machine.stored() == everything
        assert machine.coverage()["complete"] is True


def _push_pack(tmp_path: Path, remote: Path, data: bytes, name: str) -> None:
    """Another machine (a scratch clone) puts ``data`` on the remote's vectors
    ref as the pack ``name``, in the model's folder, with plain git."""
    work = tmp_path / "hostile"
    git(tmp_path, "clone", "-q", str(remote), str(work))
    git(work, "fetch", "-q", "origin", f"{VECTORS_REF}:{VECTORS_REF}")
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=work, input=data, capture_output=True, check=True,
    ).stdout.decode().strip()  # fmt: skip
    index = work / ".git" / "vectors-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}

    def plumbing(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=work, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()

    plumbing("read-tree", VECTORS_REF)
    folder = _packs(work)[0].split("/")[0]
    plumbing("update-index", "--add", "--cacheinfo", f"100644,{blob},{folder}/{name[:2]}/{name}")
    tree = plumbing("write-tree")
    commit = plumbing("commit-tree", tree, "-p", VECTORS_REF, "-m", "vectors")
    git(work, "push", "-q", "origin", f"{commit}:{VECTORS_REF}")


@pytest.mark.parametrize("corruption", ["not-finite", "wrong-name", "wrong-length"])
def test_a_bad_pack_on_the_remote_is_refused_and_embedded_locally(
    tmp_path: Path, remote: Path, clock: FakeClock, corruption: str
) -> None:
    a = _first(tmp_path, remote, clock)
    a.note("A passage whose vector the remote will hold badly.")
    a.reindex()
    a.sync()
    victim = digest("Mallory: a passage nobody wrote")
    rows = np.full((1, HashEmbedder.dims), np.nan, dtype=np.float32)
    if corruption == "wrong-length":
        rows = np.full((1, HashEmbedder.dims), 3.0, dtype=np.float32)
    name, data = make_pack(HashEmbedder.name, HashEmbedder.dims, [victim], rows)
    if corruption == "wrong-name":
        good = np.eye(1, HashEmbedder.dims, dtype=np.float32)
        _, data = make_pack(HashEmbedder.name, HashEmbedder.dims, [victim], good)
    _push_pack(tmp_path, remote, data, name)

    b = _clone(tmp_path, remote, clock, "m1")
    got = b.sync()
    assert len(got["refused"]) == 1  # type: ignore[arg-type]
    assert victim not in b.stored()
    assert got["pushed"]  # the union it pushed leaves the bad pack out
    assert name not in " ".join(_packs(b.root))
    assert not [p for p in _packs(b.root) if p.endswith(name)]
    assert b.reindex() == 0  # the good packs were used
    assert b.coverage()["complete"] is True


def test_a_corrupt_object_on_the_remote_fails_only_the_vectors(
    tmp_path: Path, remote: Path, clock: FakeClock
) -> None:
    a = _first(tmp_path, remote, clock)
    a.reindex()
    a.sync()
    # Break the pack blob's object file in the remote: git itself refuses it.
    pack = git(a.root, "ls-tree", "-r", VECTORS_REF).split()[2]
    loose = remote / "objects" / pack[:2] / pack[2:]
    assert loose.exists()
    loose.chmod(0o644)
    loose.write_bytes(b"not a zlib stream")

    b = _clone(tmp_path, remote, clock, "m1")
    got = b.sync()
    assert got["error"] and got["imported"] == 0
    assert b.app.sync().action == "up-to-date"  # the branch syncs as ever
    assert b.reindex() > 0  # what it could not fetch, it embeds
    assert b.coverage()["complete"] is True


def test_the_branch_never_holds_vector_data(tmp_path: Path, remote: Path, clock: FakeClock) -> None:
    a = _first(tmp_path, remote, clock)
    a.reindex()
    a.sync()
    b = _clone(tmp_path, remote, clock, "m1")
    b.sync()
    b.note("Something new.")
    b.reindex()
    b.sync()
    for root in (a.root, b.root, remote):
        files = git(root, "ls-tree", "-r", "--name-only", "main").splitlines()
        assert not [f for f in files if "test-hash-embedder" in f]
        vectors = git(root, "rev-list", VECTORS_REF).split()
        branch = set(git(root, "rev-list", "main").split())
        assert vectors and not branch & set(vectors)
    assert git(b.root, "status", "--porcelain") == ""
    assert git(b.root, "rev-parse", "HEAD") == git(remote, "rev-parse", "main")


def test_semantic_off_and_a_remote_without_vectors_work_as_before(
    tmp_path: Path, remote: Path, clock: FakeClock
) -> None:
    root = tmp_path / "m0"
    wiring.initialize(root, clock)
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    plain = wiring.open_app(root, clock)  # HEARTH_SEMANTIC=off in the tests
    plain.note("keyword only", None, "test")
    result = plain.sync()
    assert result.action == "pushed" and result.vectors is None
    assert git(remote, "for-each-ref", "refs/hearth") == ""
    b = _clone(tmp_path, remote, clock, "m1")  # semantic on, the remote has no vectors
    got = b.sync()
    assert got["error"] is None and got["imported"] == 0
    assert b.reindex() > 0
    assert b.sync()["pushed"]  # and now it has


def test_a_second_machine_embeds_nothing_after_hearth_sync(
    tmp_path: Path, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real model, through the installed CLI, as a person runs it."""
    monkeypatch.delenv("HEARTH_SEMANTIC")
    first = tmp_path / "m0"
    assert hearth("init", str(first)).returncode == 0
    git(first, "remote", "add", "origin", str(remote))
    git(first, "push", "-q", "-u", "origin", "main")
    built = json.loads(hearth("--home", str(first), "reindex", "--json").stdout)
    assert built["embedded"] > 0
    assert hearth("--home", str(first), "sync").returncode == 0

    second = tmp_path / "m1"
    git(tmp_path, "clone", "-q", str(remote), str(second))
    assert hearth("--home", str(second), "hooks", "install").returncode == 0
    synced = hearth("--home", str(second), "sync", "--json")
    assert synced.returncode == 0, synced.stderr
    assert json.loads(synced.stdout)["vectors"]["imported"] == built["embedded"]
    again = json.loads(hearth("--home", str(second), "reindex", "--json").stdout)
    assert again["embedded"] == 0
    status = json.loads(hearth("--home", str(second), "status", "--json").stdout)
    assert status["index"]["vectors"]["complete"] is True


def test_a_sync_pushes_no_vector_of_text_in_no_file_of_the_pushed_commit(
    tmp_path: Path, remote: Path, clock: FakeClock
) -> None:
    """Issue 50, case 2: a note committed then removed, and a draft never
    committed, were embedded here; the sync pushes neither's vectors (on
    2d32b4d it pushed every vector the store held)."""
    a = _first(tmp_path, remote, clock)
    a.note("Sam planted tomatoes along the fence.")
    topics = a.root / "memory/topics"
    removed, plan = (
        "memory/topics/old-plan.md",
        b"# Old plan\n\nThe secret trip to Lisbon in May.\n",
    )
    topics.mkdir(parents=True, exist_ok=True)
    (a.root / removed).write_bytes(plan)
    git(a.root, "add", removed)
    git(a.root, "commit", "-q", "-m", "memory: old plan")
    a.reindex()
    git(a.root, "rm", "-q", removed)
    git(a.root, "commit", "-q", "-m", "memory: the plan is off")
    draft = "memory/topics/draft.md"
    topics.mkdir(parents=True, exist_ok=True)
    (a.root / draft).write_text("# Draft\n\nA surprise party for Maria, not written down yet.\n")
    a.reindex()
    never_pushed = file_digests(removed, plan) | file_digests(draft, (a.root / draft).read_bytes())
    assert never_pushed <= a.stored()  # embedded here, before the sync
    sent = a.sync()
    assert sent["pushed"] and not sent["error"]
    b = _clone(tmp_path, remote, clock, "m1")
    b.sync()
    arrived = b.stored()
    note = (a.root / git(a.root, "ls-files", "memory/*.md").split()[0]).read_bytes()
    assert file_digests("memory/x.md", note) & arrived  # the committed note's vectors came
    assert not never_pushed & arrived
