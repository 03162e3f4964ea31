"""``refs/hearth/vectors``: the semantic vectors' own history, beside the branch.

::

    refs/hearth/vectors                  this machine's (pushed to the remote's)
    refs/hearth/remotes/<remote>/vectors the remote's, as of the last fetch

A commit on the ref holds a tree of packs (``index/vector_packs.py``),
sharded by model and by the first two hex digits of the pack's name::

    <model>-<dims>/<aa>/<64 hex: SHA-256 of the pack>

Packs are only ever added, so a commit's tree differs from its parent's by
the packs of one export, and a push or fetch moves those blobs and the two or
three small trees on their path, never the rest of the store.

The ref is never checked out and shares no history with the branch: its
commits have only vector commits as parents, and it is moved only with an
explicit refspec (``git push <remote> refs/hearth/vectors:refs/hearth/vectors``,
never forced), so a sync of vectors cannot touch the branch or its history.
Network steps are the git CLI (``remote.py``); trees, blobs and commits are
written with libgit2, and the local ref is moved with a compare-and-swap.
"""

from __future__ import annotations

import re
from pathlib import Path

import pygit2

from hearth.errors import StoreError
from hearth.store.remote import Remote

LOCAL_REF = "refs/hearth/vectors"
#: A pack bigger than this is not read (a hostile ref cannot make a sync
#: allocate without bound); hearth's own packs are far smaller (``PACK_ROWS``).
MAX_PACK_BYTES = 64 << 20
FALLBACK_SIGNATURE = ("hearth", "hearth@localhost")
_PACK_PATH = re.compile(r"^[A-Za-z0-9._-]{1,120}/[0-9a-f]{2}/[0-9a-f]{64}$")


def remote_ref(remote: str) -> str:
    return f"refs/hearth/remotes/{remote}/vectors"


def pack_path(model_dir: str, name: str) -> str:
    return f"{model_dir}/{name[:2]}/{name}"


class VectorRef:
    def __init__(self, root: Path, remote: Remote) -> None:
        self.root = root
        self.remote = remote

    def _repo(self) -> pygit2.Repository:
        return pygit2.Repository(str(self.root))

    # -- reading -------------------------------------------------------------

    def tip(self, ref: str) -> str | None:
        try:
            return str(self._repo().references[ref].target)
        except (KeyError, pygit2.GitError):
            return None

    def packs(self, commit: str | None) -> dict[str, str]:
        """``{path: blob id}`` of every pack-shaped entry of ``commit``'s tree
        (anything else in a tree is not hearth's and is not carried on)."""
        if commit is None:
            return {}
        repo = self._repo()
        try:
            tree = repo[commit].peel(pygit2.Tree)
        except (KeyError, ValueError, pygit2.GitError):
            return {}
        found: dict[str, str] = {}
        self._walk(repo, tree, "", 0, found)
        return found

    def _walk(
        self,
        repo: pygit2.Repository,
        tree: pygit2.Tree,
        prefix: str,
        depth: int,
        found: dict[str, str],
    ) -> None:
        for entry in tree:
            path = f"{prefix}{entry.name}"
            if entry.type_str == "tree" and depth < 2:
                self._walk(repo, repo[entry.id].peel(pygit2.Tree), f"{path}/", depth + 1, found)
            elif entry.type_str == "blob" and depth == 2 and _PACK_PATH.match(path):
                found[path] = str(entry.id)

    def blob(self, oid: str) -> bytes | None:
        """A pack's bytes; None when missing, not a blob or too big to be a pack."""
        try:
            obj = self._repo()[oid]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if not isinstance(obj, pygit2.Blob) or obj.size > MAX_PACK_BYTES:
            return None
        return bytes(obj.data)

    def markdown_blobs(self, commit: str) -> dict[str, str]:
        """``{path: blob id}`` of every markdown file of ``commit``'s tree: the
        files whose passages a push of ``commit`` may carry vectors for."""
        repo = self._repo()
        try:
            tree = repo[commit].peel(pygit2.Tree)
        except (KeyError, ValueError, pygit2.GitError):
            return {}
        found: dict[str, str] = {}
        stack: list[tuple[pygit2.Tree, str]] = [(tree, "")]
        while stack:
            folder, prefix = stack.pop()
            for entry in folder:
                path = f"{prefix}{entry.name}"
                if entry.type_str == "tree":
                    stack.append((repo[entry.id].peel(pygit2.Tree), f"{path}/"))
                elif entry.type_str == "blob" and path.endswith(".md"):
                    found[path] = str(entry.id)
        return found

    def file_bytes(self, oid: str, limit: int) -> bytes | None:
        """A file's blob, or None when it is missing or over ``limit`` bytes."""
        try:
            obj = self._repo()[oid]
        except (KeyError, ValueError, pygit2.GitError):
            return None
        if not isinstance(obj, pygit2.Blob) or obj.size > limit:
            return None
        return bytes(obj.data)

    def is_ancestor(self, older: str, newer: str) -> bool:
        repo = self._repo()
        try:
            return older == newer or bool(repo.descendant_of(newer, older))
        except (KeyError, ValueError, pygit2.GitError):
            return False

    # -- writing -------------------------------------------------------------

    def write_blob(self, data: bytes) -> str:
        return str(self._repo().create_blob(data))

    def commit(
        self, packs: dict[str, str], parents: list[str], message: str, when: tuple[int, int]
    ) -> str:
        """A commit whose tree holds exactly ``packs`` (``{path: blob id}``)."""
        repo = self._repo()
        shards: dict[str, dict[str, dict[str, str]]] = {}
        for path, oid in packs.items():
            model, shard, name = path.split("/")
            shards.setdefault(model, {}).setdefault(shard, {})[name] = oid
        root = repo.TreeBuilder()
        for model, by_shard in sorted(shards.items()):
            model_tree = repo.TreeBuilder()
            for shard, names in sorted(by_shard.items()):
                shard_tree = repo.TreeBuilder()
                for name, oid in sorted(names.items()):
                    shard_tree.insert(name, pygit2.Oid(hex=oid), pygit2.enums.FileMode.BLOB)
                model_tree.insert(shard, shard_tree.write(), pygit2.enums.FileMode.TREE)
            root.insert(model, model_tree.write(), pygit2.enums.FileMode.TREE)
        try:
            configured = repo.default_signature
            name, email = configured.name, configured.email
        except (KeyError, pygit2.GitError):
            name, email = FALLBACK_SIGNATURE
        signature = pygit2.Signature(name, email, when[0], when[1])
        return str(
            repo.create_commit(
                None,
                signature,
                signature,
                message,
                root.write(),
                [pygit2.Oid(hex=p) for p in parents],
            )
        )

    def move(self, ref: str, new: str, old: str | None) -> None:
        """Point ``ref`` at ``new`` if it still points at ``old`` (None: absent);
        ``GitError`` or ``OSError`` when another process moved it meanwhile."""
        repo = self._repo()
        if old is None:
            repo.references.create(ref, pygit2.Oid(hex=new))  # fails if it exists now
            return
        current = repo.references[ref]
        if str(current.target) != old:
            raise pygit2.GitError(f"{ref} moved")
        # libgit2 checks the old value it loaded: a move in between fails here too.
        current.set_target(pygit2.Oid(hex=new), "hearth: vectors")

    # -- the network (git CLI) -------------------------------------------------

    def fetch(self, remote: str) -> None:
        """The remote's vectors into ``remote_ref(remote)``; a remote without
        them is no error (the refspec's pattern simply matches nothing)."""
        self.remote.git(
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
            f"+{LOCAL_REF}*:{remote_ref(remote)}*",
        )  # fmt: skip

    def push(self, remote: str) -> bool:
        """Push ``LOCAL_REF`` (never forced); False when the remote moved meanwhile."""
        proc = self.remote.git("push", "--quiet", remote, f"{LOCAL_REF}:{LOCAL_REF}", check=False)
        if proc.returncode == 0:
            return True
        stderr = proc.stderr.decode(errors="replace")
        if any(word in stderr for word in ("rejected", "fetch first", "non-fast-forward")):
            return False
        raise StoreError(f"git push of {LOCAL_REF} failed: {stderr.strip()}")
