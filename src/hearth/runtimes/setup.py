"""``hearth setup RUNTIME``: wire a home into an agent runtime's user configuration.

The plan comes from the runtime's declaration (``domain.runtimes``): register
hearth's MCP server (with the runtime's own CLI when it has one on PATH,
else by writing its file), add hearth's two hooks to its hooks file, and for
Codex with ``--trust`` record trust for those two hooks. Each step first
reads what is there and does nothing when it is already as wanted, so a
second run changes nothing; ``--remove`` takes out exactly those entries;
``--dry-run`` reports the same steps without taking them. The merge logic is
pure (domain); this module reads, runs and writes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hearth.domain import textdiff
from hearth.errors import HearthError, InvalidInput, NotAHome
from hearth.runtimes import config_text
from hearth.runtimes import known as rt
from hearth.store import user_files
from hearth.store.discovery import is_hearth_home

Which = Callable[[str], str | None]
Run = Callable[[list[str]], "subprocess.CompletedProcess[str]"]


@dataclass(frozen=True)
class Change:
    file: str
    what: str
    changed: bool
    #: The change itself: the file's unified diff, or the commands run (empty
    #: when nothing changes).
    diff: str = ""


def _tense(dry_run: bool, would: str, did: str) -> str:
    """A dry run says what it would do; a run says what it did."""
    return f"would {would}" if dry_run else did


@dataclass
class SetupReport:
    runtime: str
    dry_run: bool
    removed: bool
    changes: list[Change] = field(default_factory=list)
    todo: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return any(c.changed for c in self.changes)

    def as_dict(self) -> dict[str, object]:
        return {
            "runtime": self.runtime,
            "dry_run": self.dry_run,
            "removed": self.removed,
            "changed": self.changed,
            "changes": [c.__dict__.copy() for c in self.changes],
            "todo": list(self.todo),
        }


class RuntimeSetup:
    """Setup of one home in the runtimes of the person whose folder is ``user_home``."""

    def __init__(
        self, user_home: Path, executable: str, home: Path, which: Which, run: Run
    ) -> None:
        self.user_home = user_home
        self.executable = executable
        self.home = home
        self._which = which
        self._run = run

    # -- the steps ------------------------------------------------------------------

    def setup(
        self, name: str, scope: str = "write", *, dry_run: bool = False, trust: bool = False
    ) -> SetupReport:
        runtime = rt.RUNTIMES[name]
        if not is_hearth_home(self.home):
            raise NotAHome(
                f"{self.home} is not a hearth home (a git repository with hearth.toml); "
                f"create or adopt it with 'hearth init {self.home}'"
            )
        report = SetupReport(name, dry_run, removed=False)
        argv = rt.server_argv(self.executable, str(self.home), scope)
        report.changes.append(self._register(runtime, argv, dry_run))
        if runtime.hooks_file is not None:
            change, hooks = self._add_hooks(runtime, dry_run)
            report.changes.append(change)
            if trust and runtime.trust_note is not None:
                report.changes.append(self._trust(runtime, hooks, dry_run))
        trusted = trust and runtime.trust_note is not None
        report.todo = [t for t in runtime.todo if not (trusted and str(runtime.trust_note) in t)]
        return report

    def remove(self, name: str, *, dry_run: bool = False) -> SetupReport:
        runtime = rt.RUNTIMES[name]
        report = SetupReport(name, dry_run, removed=True)
        report.changes.append(self._unregister(runtime, dry_run))
        if runtime.hooks_file is not None:
            if runtime.trust_note is not None:
                report.changes.append(self._untrust(runtime, dry_run))
            report.changes.append(self._remove_hooks(runtime, dry_run))
        return report

    # -- the MCP server -------------------------------------------------------------

    def _register(self, runtime: rt.Runtime, argv: list[str], dry_run: bool) -> Change:
        path = self._path(runtime.mcp.file)
        document, text = self._read(path, runtime.mcp.format)
        found = rt.get_in(document, runtime.mcp.key)
        shown = self._shown(path)
        if rt.mcp_matches(runtime, found, argv):
            return Change(shown, "MCP server hearth already registered", False)
        cli = self._which(runtime.executable) if runtime.mcp.add else None
        if cli is not None:
            commands = [rt.mcp_add_argv(runtime, argv)]
            if found is not None:
                commands.insert(0, [runtime.executable, *runtime.mcp.remove])
            ran = " && ".join(shlex.join(c) for c in commands)
            what = (
                f"{_tense(dry_run, 'register', 'registered')} MCP server hearth: "
                f"{_tense(dry_run, 'run', 'ran')} {ran}"
            )
            if not dry_run:
                for command in commands:
                    self._call([cli, *command[1:]])
                again, _ = self._read(path, runtime.mcp.format)
                if not rt.mcp_matches(runtime, rt.get_in(again, runtime.mcp.key), argv):
                    raise HearthError(f"{runtime.executable} did not register hearth in {shown}")
            return Change(shown, what, True, "".join(f"$ {shlex.join(c)}\n" for c in commands))
        entry = rt.mcp_entry(runtime, argv)
        if isinstance(found, dict):
            entry = {**found, **entry}
        new_text = self._entry_text(runtime, path, document, text, entry)
        if not dry_run:
            user_files.write(path, new_text)
        how = "" if not runtime.mcp.add else f" ({runtime.executable} is not on PATH)"
        what = f"{_tense(dry_run, 'register', 'registered')} MCP server hearth in the file{how}"
        return Change(shown, what, True, _diff(shown, text, new_text))

    def _unregister(self, runtime: rt.Runtime, dry_run: bool) -> Change:
        path = self._path(runtime.mcp.file)
        document, text = self._read(path, runtime.mcp.format)
        shown = self._shown(path)
        if rt.get_in(document, runtime.mcp.key) is None:
            return Change(shown, "no MCP server hearth to remove", False)
        cli = self._which(runtime.executable) if runtime.mcp.remove else None
        if cli is not None:
            command = [runtime.executable, *runtime.mcp.remove]
            if not dry_run:
                self._call([cli, *command[1:]])
            what = (
                f"{_tense(dry_run, 'remove', 'removed')} MCP server hearth: "
                f"{_tense(dry_run, 'run', 'ran')} {shlex.join(command)}"
            )
            return Change(shown, what, True, f"$ {shlex.join(command)}\n")
        new_text = self._entry_text(runtime, path, document, text, None)
        if not dry_run:
            user_files.write(path, new_text)
        what = f"{_tense(dry_run, 'remove', 'removed')} MCP server hearth from the file"
        return Change(shown, what, True, _diff(shown, text, new_text))

    def _entry_text(
        self,
        runtime: rt.Runtime,
        path: Path,
        document: dict[str, Any],
        text: str,
        entry: dict[str, Any] | None,
    ) -> str:
        """The MCP config file's text with hearth's entry set (None: taken out)."""
        key = runtime.mcp.key
        if runtime.mcp.format == "toml":
            new_text = (
                config_text.without_table(text, key)
                if entry is None
                else config_text.with_table(text, key, entry)
            )
            self._check_toml(path, document, new_text, {key: entry})
            return new_text
        if runtime.mcp.format == "jsonc" and config_text.strip_jsonc(text)[1]:
            raise InvalidInput(
                f"{self._shown(path)} has comments, which rewriting it would lose; "
                f"add this under {'.'.join(key)} yourself: {json.dumps(entry)}"
            )
        new = rt.delete_in(document, key) if entry is None else rt.set_in(document, key, entry)
        return _json_text(new)

    # -- hooks ----------------------------------------------------------------------

    def _commands(self, runtime: rt.Runtime) -> dict[rt.Event, str]:
        return {e: rt.hook_command(self.executable, str(self.home), runtime, e) for e in rt.EVENTS}

    def _add_hooks(self, runtime: rt.Runtime, dry_run: bool) -> tuple[Change, dict[str, Any]]:
        """The change, and the hooks file as it is (or would be) after it."""
        assert runtime.hooks_file is not None
        path = self._path(runtime.hooks_file)
        document, text = self._read(path, "json")
        shown = self._shown(path)
        new = rt.add_hooks(runtime, document, self._commands(runtime))
        events = ", ".join(h.runtime_event for h in runtime.hooks)
        if new == document:
            return Change(shown, f"hooks {events} already in place", False), new
        if not dry_run:
            user_files.write(path, _json_text(new))
        added = (
            f"{_tense(dry_run, 'add', 'added')} hooks {events} (hearth agent-hook {runtime.name})"
        )
        return Change(shown, added, True, _diff(shown, text, _json_text(new))), new

    def _remove_hooks(self, runtime: rt.Runtime, dry_run: bool) -> Change:
        assert runtime.hooks_file is not None
        path = self._path(runtime.hooks_file)
        document, text = self._read(path, "json")
        shown = self._shown(path)
        new = rt.remove_hooks(runtime, document)
        if new == document:
            return Change(shown, "no hearth hooks to remove", False)
        kept = bool(new) or runtime.hooks_file == runtime.mcp.file
        if not dry_run:
            if kept:
                user_files.write(path, _json_text(new))
            else:
                user_files.remove(path)  # hearth's own hooks were all it held
        what = f"{_tense(dry_run, 'remove', 'removed')} hearth's hooks"
        return Change(shown, what, True, _diff(shown, text, _json_text(new) if kept else None))

    # -- Codex's trust ----------------------------------------------------------------

    def _trust_tables(
        self, runtime: rt.Runtime, document: dict[str, Any] | None = None
    ) -> dict[str, str]:
        """The ``hooks.state`` keys of hearth's hooks where they stand in the hooks
        file (``document``, else as on disk), with their hashes."""
        assert runtime.hooks_file is not None
        path = self._path(runtime.hooks_file)
        if document is None:
            document, _ = self._read(path, "json")
        tables = {}
        for spec, i, j in rt.hook_positions(runtime, document):
            handler = document["hooks"][spec.runtime_event][i]["hooks"][j]
            key = rt.codex_trust_key(str(path), spec, i, j)
            tables[key] = rt.codex_trust_hash(spec, handler)
        return tables

    def _trust(self, runtime: rt.Runtime, hooks: dict[str, Any], dry_run: bool) -> Change:
        path = self._path(runtime.mcp.file)
        document, text = self._read(path, "toml")
        state = rt.get_in(document, ("hooks", "state"))
        state = state if isinstance(state, dict) else {}
        new_text = text
        wanted = self._trust_tables(runtime, hooks)
        for key, digest in wanted.items():
            if (state.get(key) or {}).get("trusted_hash") != digest:
                new_text = config_text.with_table(
                    new_text, ("hooks", "state", key), {"trusted_hash": digest}
                )
        shown = self._shown(path)
        if new_text == text:
            return Change(shown, "hearth's hooks already trusted", False)
        tables: dict[tuple[str, ...], dict[str, Any] | None] = {
            ("hooks", "state", k): {"trusted_hash": v} for k, v in wanted.items()
        }
        self._check_toml(path, document, new_text, tables)
        if not dry_run:
            user_files.write(path, new_text)
        what = f"{_tense(dry_run, 'trust', 'trusted')} hearth's {len(wanted)} hooks (hooks.state)"
        return Change(shown, what, True, _diff(shown, text, new_text))

    def _untrust(self, runtime: rt.Runtime, dry_run: bool) -> Change:
        path = self._path(runtime.mcp.file)
        document, text = self._read(path, "toml")
        state = rt.get_in(document, ("hooks", "state"))
        keys = [k for k in self._trust_tables(runtime) if isinstance(state, dict) and k in state]
        shown = self._shown(path)
        if not keys:
            return Change(shown, "no trust of hearth's hooks to remove", False)
        new_text = text
        for key in keys:
            new_text = config_text.without_table(new_text, ("hooks", "state", key))
        self._check_toml(path, document, new_text, {("hooks", "state", k): None for k in keys})
        if not dry_run:
            user_files.write(path, new_text)
        what = f"{_tense(dry_run, 'remove', 'removed')} trust of hearth's {len(keys)} hooks"
        return Change(shown, what, True, _diff(shown, text, new_text))

    # -- plumbing -------------------------------------------------------------------

    def _path(self, relative: str) -> Path:
        return self.user_home / relative

    def _shown(self, path: Path) -> str:
        return str(path)

    def _read(self, path: Path, form: rt.Format) -> tuple[dict[str, Any], str]:
        text = user_files.read(path)
        if text is None or not text.strip():
            return {}, text or ""
        try:
            if form == "toml":
                return tomllib.loads(text), text
            data = json.loads(config_text.strip_jsonc(text)[0] if form == "jsonc" else text)
        except ValueError as exc:
            raise InvalidInput(f"{path} is not valid {form}: {exc}; fix it first") from exc
        if not isinstance(data, dict):
            raise InvalidInput(f"{path} does not hold an object; fix it first")
        return data, text

    def _check_toml(
        self,
        path: Path,
        before: dict[str, Any],
        text: str,
        changes: dict[tuple[str, ...], dict[str, Any] | None],
    ) -> None:
        """Refuse a text edit of a TOML file that would change anything but the
        tables in ``changes`` (each set to its value, or gone when None)."""
        try:
            after = tomllib.loads(text)
        except ValueError as exc:
            raise HearthError(f"editing {path} would break it ({exc}); nothing written") from exc
        expected = before
        for key, entry in changes.items():
            expected = (
                rt.delete_in(expected, key) if entry is None else rt.set_in(expected, key, entry)
            )
        if _pruned(after) != _pruned(expected):
            raise HearthError(f"editing {path} as text would change more than hearth's tables")

    def _call(self, argv: list[str]) -> None:
        done = self._run(argv)
        if done.returncode != 0:
            why = (done.stderr or done.stdout).strip().splitlines()
            raise HearthError(f"{shlex.join(argv)} failed: {why[-1] if why else done.returncode}")


def _pruned(node: object) -> object:
    """``node`` without empty tables (taking out a table's last sub-table leaves none)."""
    if not isinstance(node, dict):
        return node
    kept = {k: _pruned(v) for k, v in node.items()}
    return {k: v for k, v in kept.items() if v != {} or not isinstance(node[k], dict)}


def _json_text(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _diff(shown: str, before: str, after: str | None) -> str:
    """The file's change as a unified diff (an empty file before reads as absent)."""
    return textdiff.unified(shown.lstrip("/"), before or None, after)
