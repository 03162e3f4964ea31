"""API tokens: stored hashed in ``.git/hearth/tokens.json``, never in a commit.

A token is ``hth_`` plus 32 random bytes (URL-safe base64). Only its SHA-256
is stored: tokens carry 256 bits of entropy, so a slow password hash would
add nothing but latency to every request. Lookups compare the hash of the
presented token with every stored hash in constant time.

Scopes are ordered ``read`` < ``write`` < ``admin``; what each allows is the one
policy of ``operations.py``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from hearth.errors import InvalidInput, NotFound
from hearth.operations import SCOPES, Scope
from hearth.store import state

TOKENS_NAME = state.TOKENS
PREFIX = "hth_"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


@dataclass(frozen=True)
class TokenInfo:
    name: str
    scope: Scope
    created: str
    #: A thin client's local token (``server_file.local_token``): ``name`` is the
    #: session's actor as it is, not a token's name to prefix.
    local: bool = False

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "scope": self.scope, "created": self.created}


def token_digest(token: str) -> str:
    """The SHA-256 (hex) a token is stored and checked as."""
    return _digest(token)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenStore:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / TOKENS_NAME
        self._cache: tuple[tuple[int, int, int] | None, list[dict[str, str]]] = (None, [])

    def _load(self) -> list[dict[str, str]]:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return []
        stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._cache[0] != stamp:
            try:
                data = json.loads(self.path.read_bytes())
                entries = [e for e in data.get("tokens", []) if isinstance(e, dict)]
            except (OSError, ValueError, AttributeError):
                entries = []
            self._cache = (stamp, entries)
        return self._cache[1]

    def _save(self, entries: list[dict[str, str]]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temp = self.path.with_name(f".{TOKENS_NAME}.{secrets.token_hex(4)}")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(json.dumps({"tokens": entries}, indent=1).encode())
            handle.flush()
            os.fsync(handle.fileno())
        temp.replace(self.path)

    def create(self, name: str, scope: str, now: dt.datetime) -> tuple[str, TokenInfo]:
        """A new token (returned once, in clear) named ``name`` with ``scope``."""
        if not _NAME.match(name):
            raise InvalidInput(
                "a token name is 1 to 64 letters, digits, '.', '_' or '-' (e.g. laptop-agent)"
            )
        if scope not in SCOPES:
            raise InvalidInput(f"scope must be one of {', '.join(SCOPES)}")
        entries = list(self._load())
        if any(e.get("name") == name for e in entries):
            raise InvalidInput(f"a token named {name!r} exists; revoke it first or pick a name")
        token = PREFIX + secrets.token_urlsafe(32)
        created = now.astimezone(dt.UTC).isoformat(timespec="seconds")
        entries.append({"name": name, "scope": scope, "sha256": _digest(token), "created": created})
        self._save(entries)
        return token, TokenInfo(name, scope, created)

    def list(self) -> list[TokenInfo]:
        return [
            TokenInfo(e["name"], e["scope"], e.get("created", ""))  # type: ignore[arg-type]
            for e in self._load()
            if e.get("scope") in SCOPES and "name" in e
        ]

    def revoke(self, name: str) -> None:
        entries = self._load()
        kept = [e for e in entries if e.get("name") != name]
        if len(kept) == len(entries):
            raise NotFound(f"no token named {name!r} (list them with 'hearth token list')")
        self._save(kept)

    def check(self, token: str) -> TokenInfo | None:
        """The token's record, or None; compares against every stored hash."""
        return self.check_digest(_digest(token))

    def check_digest(self, presented: str) -> TokenInfo | None:
        """Like ``check`` given the token's SHA-256 (hex): what a browser session
        keeps, so the server never holds the token itself after login."""
        found: TokenInfo | None = None
        for entry in self._load():
            if hmac.compare_digest(presented, entry.get("sha256", "")) and found is None:
                scope = entry.get("scope")
                if scope in SCOPES:
                    found = TokenInfo(entry["name"], scope, entry.get("created", ""))
        return found
