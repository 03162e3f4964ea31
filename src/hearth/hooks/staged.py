"""What the next commit will hold, and the validation rules over it.

The listing is git's own answer to "what is staged": ``git diff-index
--cached HEAD`` in its raw format, one line per changed path. The git CLI
honours ``GIT_INDEX_FILE``, which matters: ``git commit -a`` and ``git commit
PATH`` stage into a temporary index and hand its name to the hooks, so
reading ``.git/index`` would check the wrong content. The pre-commit shim
sends the same listing to a running server (``POST /v1/hooks/pre-commit``),
which reads the blobs from its own handle on the repository; without a
server, :class:`StagedFiles` reads them with ``git cat-file --batch``.

Lean on purpose: the hook imports this module with Python's start-up as its
whole budget, so it imports the domain's rules and the standard library only
(``.importlinter`` forbids the rest).
"""

from __future__ import annotations

import hashlib
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from hearth.domain import layout
from hearth.domain.stale_copy import LOG_ARGS, replaced_only_by_hearth
from hearth.domain.validation import Bounds, check_blob, uses_bounds
from hearth.errors import HearthError, InvalidInput, NotFound, RuleFailure, StoreError

#: What the shim and :class:`StagedFiles` ask git, followed by the commit to
#: compare with. ``core.quotePath=false`` quotes a path only when it holds a
#: quote, a backslash or a control character (never for UTF-8 names).
LISTING_ARGS = ("-c", "core.quotePath=false", "diff-index", "--cached", "--no-renames")
#: A submodule's entry: a commit of another repository, not content to check.
GITLINK = "160000"
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}

#: What ``parse_listing`` takes, for the schema of ``POST /v1/hooks/pre-commit``
#: (ECMA-262 syntax, read the same by Python's ``re``): lines of git's raw
#: format, ``:<mode> <mode> <oid> <oid> <status>\t<path>``, each ending with its
#: newline; a quoted path in git's C-style quoting.
LISTING_PATTERN = (
    r"^(?::[0-7]{6} [0-7]{6} [0-9a-f]{40} [0-9a-f]{40} [A-Z][0-9]*\t"
    r'(?:[^"\n][^\n]*|"(?:[^"\\\n]|\\[0-7]{3}|\\[abtnvfr"\\])*")\n)*$'
)


@dataclass(frozen=True)
class Staged:
    """One path the next commit adds, changes or deletes."""

    path: str
    mode: str
    oid: str
    deleted: bool
    #: The path's blob in the commit compared with (HEAD), zeros when it is new.
    head_oid: str = "0" * 40
    #: The path's mode in HEAD (``000000`` when it is new).
    head_mode: str = "000000"


def unquote(raw: bytes) -> bytes:
    """A path as git's C-style quoting wrote it (``"a\\tb"``), back to its bytes."""
    if len(raw) < 2 or not (raw.startswith(b'"') and raw.endswith(b'"')):
        return raw
    body, out, i = raw[1:-1], bytearray(), 0
    while i < len(body):
        if body[i] != 0x5C:  # backslash
            out.append(body[i])
            i += 1
            continue
        digits = body[i + 1 : i + 4]
        if len(digits) == 3 and all(0x30 <= d <= 0x37 for d in digits):
            out.append(int(digits, 8) & 0xFF)
            i += 4
            continue
        code = _ESCAPES.get(chr(body[i + 1])) if i + 1 < len(body) else None
        if code is None:
            raise InvalidInput(f"the staged listing has a badly quoted path: {raw!r}")
        out.append(code)
        i += 2
    return bytes(out)


def parse_listing(raw: bytes) -> list[Staged]:
    """``git diff-index --cached`` raw lines (``:old new oid oid status<TAB>path``).

    Every line ends with a newline, as git writes them: a listing that ends
    mid-line was cut short, and checking what is left could miss a file.
    """
    if raw and not raw.endswith(b"\n"):
        raise InvalidInput("the staged listing ends mid-line: it was cut short")
    found: list[Staged] = []
    for line in raw.split(b"\n"):
        if not line.strip():
            continue
        meta, tab, path = line.partition(b"\t")
        fields = meta.split(b" ")
        if not tab or len(fields) != 5 or not fields[0].startswith(b":") or not path:
            raise InvalidInput(f"not a line of 'git diff-index' raw output: {line[:200]!r}")
        mode, head_oid, oid, status = (
            f.decode("ascii", "replace") for f in (fields[1], *fields[2:])
        )
        found.append(
            Staged(
                path=unquote(path).decode("utf-8", "replace"),
                mode=mode,
                oid=oid,
                deleted=status.startswith("D"),
                head_oid=head_oid,
                head_mode=fields[0][1:].decode("ascii", "replace"),
            )
        )
    return found


def staged_failures(
    staged: Sequence[Staged],
    read_blob: Callable[[str], bytes | None],
    head_settings: Callable[[], bytes | None],
) -> list[RuleFailure]:
    """The validation rules over every file the commit adds or changes.

    Bounds come from the ``hearth.toml`` the commit will hold: the staged one
    when it changes, else HEAD's (the same file).
    """
    checked = [s for s in staged if not s.deleted and s.mode != GITLINK and set(s.oid) != {"0"}]
    if not checked:
        return []
    # hearth.toml is read (and its parser imported) only for the files it bounds.
    needs = any(uses_bounds(s.path) for s in checked)
    bounds = _bounds(staged, read_blob, head_settings) if needs else Bounds()
    failures: list[RuleFailure] = []
    for item in checked:
        data = read_blob(item.oid)
        if data is None:
            raise NotFound(f"the staged blob {item.oid} of {item.path} is not in the repository")
        failures += check_blob(item.path, data, bounds)
    return failures


def _bounds(
    staged: Sequence[Staged],
    read_blob: Callable[[str], bytes | None],
    head_settings: Callable[[], bytes | None],
) -> Bounds:
    from hearth.domain.settings import parse_settings  # noqa: PLC0415  (see above)

    mine = [s for s in staged if s.path == layout.SETTINGS_PATH]
    if mine and mine[0].deleted:
        return Bounds()
    data = read_blob(mine[0].oid) if mine else head_settings()
    if data is None:
        return Bounds()
    try:
        return parse_settings(data.decode("utf-8", "replace")).bounds
    except HearthError:
        return Bounds()


class StagedFiles:
    """The staged files of the home at ``root``, read through the git CLI."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _git(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        try:
            return subprocess.run(
                ["git", *args], cwd=self.root, input=stdin, capture_output=True, check=False
            )
        except OSError as exc:
            raise StoreError(f"could not run git: {exc}") from exc

    def listing(self) -> list[Staged]:
        listed = self._git(*LISTING_ARGS, "HEAD")
        if listed.returncode != 0:
            if self._git("rev-parse", "-q", "--verify", "HEAD").returncode == 0:
                raise StoreError(_said(listed))
            # No commit yet: everything staged is new (compared with the empty tree).
            empty = self._git("hash-object", "-t", "tree", "/dev/null")
            listed = self._git(*LISTING_ARGS, empty.stdout.decode().strip())
            if listed.returncode != 0:
                raise StoreError(_said(listed))
        return parse_listing(listed.stdout)

    def stale_copies(self, staged: Sequence[Staged]) -> list[Staged]:
        """The staged entries that are hearth's writes lost to a race with ``git
        commit`` (``domain/stale_copy.py``): staged differs from HEAD, the work
        tree holds HEAD's version, and only hearth's commits replaced the staged one.
        """
        found = []
        for item in staged:
            # A deletion is one too when hearth's first write created the file:
            # git's older copy of the index had no entry for it yet.
            mode = item.head_mode if item.deleted else item.mode
            if mode not in ("100644", "100755") or item.oid == item.head_oid:
                continue
            if set(item.head_oid) == {"0"} or _worktree_oid(self.root / item.path) != item.head_oid:
                continue  # new, or edited in the work tree: the person's to stage
            log = self._git(*LOG_ARGS, "HEAD", "--", item.path)
            if log.returncode == 0 and replaced_only_by_hearth(
                log.stdout.decode("utf-8", "replace"), item.oid
            ):
                found.append(item)
        return found

    def restore_head_copies(self, stale: Sequence[Staged], timeout: float = 5.0) -> None:
        """Put HEAD's version back in the index for ``stale`` (the index git staged
        into: ``GIT_INDEX_FILE`` in a hook), waiting while a hearth write holds its lock."""
        args = ["update-index", "--add"]  # a lost entry is added back
        for item in stale:
            args += ["--cacheinfo", f"{item.head_mode},{item.head_oid},{item.path}"]
        deadline = time.monotonic() + timeout
        while True:
            done = self._git(*args)
            if done.returncode == 0:
                return
            if b"index.lock" not in done.stderr or time.monotonic() > deadline:
                raise StoreError(_said(done))
            time.sleep(0.02)

    def failures(self) -> list[RuleFailure]:
        staged = self.listing()
        wanted = [s.oid for s in staged if not s.deleted and s.mode != GITLINK]
        head_name = f"HEAD:{layout.SETTINGS_PATH}"
        objects = self._cat([*wanted, head_name]) if wanted else {}
        return staged_failures(staged, objects.get, lambda: objects.get(head_name))

    def _cat(self, names: list[str]) -> dict[str, bytes]:
        """``git cat-file --batch`` over ``names``: the ones found, by name."""
        out = self._git("cat-file", "--batch", stdin="".join(n + "\n" for n in names).encode())
        if out.returncode != 0:
            raise StoreError(_said(out))
        found: dict[str, bytes] = {}
        data, at = out.stdout, 0
        for name in names:
            end = data.index(b"\n", at)
            header = data[at:end].split(b" ")
            at = end + 1
            if len(header) != 3 or header[1] != b"blob":
                if len(header) == 3:  # a tree or commit by that name: skip its body
                    at += int(header[2]) + 1
                continue
            size = int(header[2])
            found[name] = data[at : at + size]
            at += size + 1
        return found


def _worktree_oid(path: Path) -> str | None:
    """The blob id git would give the work-tree file (None when it cannot be read)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _said(proc: subprocess.CompletedProcess[bytes]) -> str:
    text = proc.stderr.decode("utf-8", "replace").strip() or f"exit status {proc.returncode}"
    return f"git could not list the staged files: {text}"
