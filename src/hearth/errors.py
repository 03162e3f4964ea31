"""The one exception tree of hearth.

Every failure hearth reports on purpose is a ``HearthError``. The edges
(the ``cli`` package's ``_run`` and ``api/problems.py``) turn these classes into exit
statuses and HTTP statuses in one table each; nothing else maps errors. The
error body every surface sends (HTTP, MCP, the hooks' server check) is
``error_body``, built here once.

::

    HearthError
    ├── PathRefused          a path is absolute, climbs out, enters .git, is a symlink
    ├── NotFound             no such file, record or revision
    ├── NotAHome             the folder is not an initialized home
    │   └── HomeGone         the home a process opened was deleted or replaced
    ├── Forbidden            the caller may not do this to this record (the person's own)
    │   └── OutOfScope       the caller's scope does not allow the operation (MCP's 403)
    ├── Conflict             the operation would overwrite or lose someone's work
    │   ├── DirtyFile        a target file holds uncommitted edits (or an editor's buffer)
    │   ├── StaleWrite       the caller's expected blob id is not HEAD's any more
    │   ├── Busy             a lock stayed held past the retry budget
    │   ├── EntryMissing     the memory entry to replace or remove is not there
    │   ├── NoUpstream       sync: the branch tracks no remote branch
    │   └── SyncBlocked      sync: incoming changes touch files with uncommitted edits
    ├── InvalidInput         malformed input (empty text, bad title, bad setting)
    │   └── InvalidRecord    a record file does not parse
    ├── TooLarge             content over its size bound
    │   └── BodyTooLarge     a request body past the server's bound, as it is received
    ├── ValidationFailed     one or more validation rules failed (carries them)
    ├── StoreError           git itself failed in a way retrying will not fix
    │   └── IndexUnusable    the search index is missing, corrupt or of another schema
    └── Interrupted          a served home's start-up pass cut short: the server is stopping

Beside the tree, the edges' own signals, each raised and answered by one
edge and never reported as hearth's failure: ``ApiError`` (an HTTP refusal of
the API's edge, with its status), ``LoginFirst`` (a review page asked for
without a token), ``BadPack`` (a synced vector pack refused), ``NotPlain`` (a
planned file the write-ahead path leaves to a pass).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class RuleFailure:
    path: str
    rule: str
    message: str
    fix: str

    def describe(self) -> str:
        # A name is one line: one a commit gave a newline never prints as lines of
        # their own (C0 controls as their pictures, as domain/text.shown spells them).
        path = "".join(chr(0x2400 + ord(c)) if ord(c) < 0x20 else c for c in self.path)
        return f"{path}: [{self.rule}] {self.message} ({self.fix})"

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "rule": self.rule, "message": self.message, "fix": self.fix}


class HearthError(Exception):
    """Root of every error hearth raises on purpose."""

    code = "error"

    def __init__(self, message: str, *, detail: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class PathRefused(HearthError):
    code = "path_refused"


class NotFound(HearthError):
    code = "not_found"


class NotAHome(HearthError):
    code = "not_a_home"


class Forbidden(HearthError):
    """An agent asked to change a record that is the person's (a loop or decision
    the person made): the API's 403, as a scope refusal is."""

    code = "forbidden"


class OutOfScope(Forbidden):
    """The caller's scope does not allow an operation (the API's 403, word for
    word), worded for a token's holder (``message``) and for a ``hearth mcp``
    session started with a ``--scope`` (``for_session``); the scope policy words
    both (``operations.refusal``)."""

    def __init__(self, message: str, *, for_session: str) -> None:
        super().__init__(message)
        self.for_session = for_session


class HomeGone(NotAHome):
    """The home a long-running process opened is deleted or replaced: it stops."""

    code = "home_gone"


class Conflict(HearthError):
    code = "conflict"


class DirtyFile(Conflict):
    code = "dirty_file"

    def __init__(self, paths: Sequence[str], editors: Mapping[str, str] | None = None) -> None:
        held = dict(editors or {})
        edited = [p for p in paths if p not in held]
        said = []
        if edited:
            said.append(f"uncommitted edits in {', '.join(edited)}")
        if held:
            named = ", ".join(f"{p} (its lock: {lock})" for p, lock in held.items())
            said.append(f"an editor holds unsaved changes to {named}")
        super().__init__(
            f"{'; '.join(said)}; hearth never rewrites a file you are editing: save "
            "and commit your edit, or discard it (git commit / git restore; in the "
            "editor, save or quit), and try again",
            detail={"paths": list(paths), "editor_locks": held},
        )
        self.paths = tuple(paths)
        #: The editor's lock of each file an editor holds (vim's swap, emacs's link).
        self.editors = held


class StaleWrite(Conflict):
    code = "stale_write"


class Busy(Conflict):
    code = "busy"


class EntryMissing(Conflict):
    """The entry to replace or remove is not in the file (any more)."""

    code = "entry_missing"


class NoUpstream(Conflict):
    """The branch tracks no remote branch, so there is nothing to sync with."""

    code = "no_upstream"


class SyncBlocked(Conflict):
    """Incoming changes would touch files with uncommitted local edits."""

    code = "sync_blocked"


class InvalidInput(HearthError):
    code = "invalid_input"


class InvalidRecord(InvalidInput):
    code = "invalid_record"


class TooLarge(HearthError):
    code = "too_large"


class BodyTooLarge(TooLarge):
    """A request body grew past the server's bound while it was received (a
    chunked body declares no length): ``api/limits.py`` answers 413 whatever
    the handler reading it made of it."""


class ValidationFailed(HearthError):
    code = "validation_failed"

    def __init__(self, failures: Sequence[RuleFailure]) -> None:
        lines = "; ".join(f.describe() for f in failures)
        super().__init__(
            f"validation failed: {lines}",
            detail={"failures": [f.as_dict() for f in failures]},
        )
        self.failures = tuple(failures)


class StoreError(HearthError):
    code = "store_error"


class IndexUnusable(StoreError):
    """The index cannot be opened as it is; the reconciler rebuilds it aside."""

    code = "index_unusable"


class Interrupted(HearthError):
    """A served home's start-up pass cut short because the server is stopping."""

    code = "interrupted"


class ApiError(Exception):
    """An HTTP-level refusal (authentication, authorization) raised by the edge."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class LoginFirst(Exception):
    """A page was asked for without a valid token (``PageRoute`` answers it)."""


class BadPack(ValueError):
    """A vector pack that is not what its name and header say: refused, never loaded."""


class NotPlain(Exception):
    """A planned file an ordinary pass would not simply index (not UTF-8)."""


def error_body(code: str, message: str, detail: object = None) -> dict[str, object]:
    """The one error body of every surface: ``{"error": {"code", "message", "detail"}}``
    (an HTTP response, an MCP tool error, the hooks' server check)."""
    return {"error": {"code": code, "message": message, "detail": detail}}
