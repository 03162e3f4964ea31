"""``hearth setup openclaw``: OpenClaw's workspace is the home, its memory slot is
hearth's plugin, hearth's MCP server is in its ``mcp.servers``, and the home
commits what OpenClaw's agent writes itself.

Everything is checked before anything is written: OpenClaw on PATH and new
enough, its config readable, its memory slot free for hearth (OpenClaw's
default ``memory-core`` or hearth's own), hearth.toml without uncommitted edits.
Then, in this order: the values setup replaces are kept in the home's state
(``.git/hearth/openclaw.json``), hearth's plugin is installed from the folder
hearth ships (``openclaw plugins install``, offline; skipped when the installed
copy is the same), ``openclaw.json`` is changed with one ``openclaw config
patch`` (OpenClaw validates the whole result and writes it or nothing; a
failure takes back a plugin install made by this run), and hearth.toml gets
``[runtimes.openclaw] commit_writes = true`` in one commit. ``--remove`` runs
``openclaw plugins uninstall`` and one patch that puts back what was kept,
and restores hearth.toml's table. The patch itself is pure: ``runtimes/openclaw_config.py``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shlex
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hearth.domain import layout
from hearth.domain.settings import parse_settings
from hearth.errors import HearthError, InvalidInput
from hearth.runtimes import config_text
from hearth.runtimes import known as rt
from hearth.runtimes import openclaw_config as oc
from hearth.runtimes.setup import Change, Run, SetupReport, Which
from hearth.store import state as state_files
from hearth.store import user_files
from hearth.store.trust import CommandTrust

NAME = "openclaw"
#: The home's record of what setup replaced (in ``.git/hearth/``).
STATE_FILE = "openclaw.json"
_TABLE = ("runtimes", NAME)
TODO = (
    "start a new OpenClaw session (a running Gateway applies config changes itself)",
    "keep a hearth server running for the home (hearth serve, or hearth watch; restart one "
    "already running: it reads hearth.toml at start): it commits what OpenClaw's agent "
    "writes once the files settle, and answers memory_search fastest",
)


class OpenClawSetup:
    """Setup of one home in the OpenClaw of the person running it.

    ``plugin``: the folder of hearth's memory plugin; ``extensions``: where
    OpenClaw installs plugins (``$OPENCLAW_STATE_DIR/extensions``);
    ``settings``: puts hearth.toml (text, commit message) as one commit."""

    def __init__(
        self,
        home: Path,
        executable: str,
        plugin: Path,
        extensions: Path,
        which: Which,
        run: Run,
        put_settings: Callable[[str, str], None],
    ) -> None:
        self.home = home
        self.executable = executable
        self.plugin = plugin
        self.extensions = extensions
        self._which = which
        self._run = run
        self._put_settings = put_settings

    # -- setup ------------------------------------------------------------------------

    def setup(self, scope: str = "write", *, dry_run: bool = False) -> SetupReport:
        cli = self._check()
        path, config = self._config(cli)
        argv = rt.server_argv(self.executable, str(self.home), scope)
        plan = oc.setup_plan(config, str(self.home), self.executable, argv)
        table, settings_text = self._settings_on()
        installed = self._installed_current()
        report = SetupReport(NAME, dry_run, removed=False)
        report.changes.append(self._plugin_change(installed))
        report.changes.append(self._config_change(path, plan))
        report.changes.append(self._settings_change(settings_text is not None, on=True))
        report.todo = list(TODO)
        if dry_run:
            return report
        self._keep(config, table)
        if not installed:
            self._call([cli, "plugins", "install", str(self.plugin), "--force",
                        "--accept-capabilities"])  # fmt: skip
        try:
            self._patch(cli, plan)
        except HearthError:
            if not installed:
                with contextlib.suppress(HearthError):
                    self._call([cli, "plugins", "uninstall", oc.PLUGIN_ID, "--force"])
            raise
        if settings_text is not None:
            self._put_settings(settings_text, "settings: commit what OpenClaw's agent writes")
        self._set_up_here(on=True)
        return report

    # -- remove -----------------------------------------------------------------------

    def remove(self, *, dry_run: bool = False) -> SetupReport:
        cli = self._check()
        path, config = self._config(cli)
        kept = self._kept()
        saved = oc.Saved.from_dict(kept.get("saved") or {}) if kept else None
        plan = oc.remove_plan(config, saved, str(self.home))
        installed = (self.extensions / oc.PLUGIN_ID).is_dir()
        settings_text = self._settings_back(kept)
        report = SetupReport(NAME, dry_run, removed=True)
        report.changes.append(
            Change(
                str(self.extensions / oc.PLUGIN_ID),
                f"uninstalled plugin {oc.PLUGIN_ID}: ran openclaw plugins uninstall "
                f"{oc.PLUGIN_ID} --force"
                if installed
                else f"plugin {oc.PLUGIN_ID} is not installed",
                installed,
            )
        )
        report.changes.append(self._config_change(path, plan))
        report.changes.append(self._settings_change(settings_text is not None, on=False))
        if dry_run:
            return report
        if installed:
            self._call([cli, "plugins", "uninstall", oc.PLUGIN_ID, "--force"])
            # Uninstalling changed the file (the slot back to the default, a marker
            # entry): the patch is made from the file as it is now.
            _path, config_now = self._config(cli)
            plan = oc.remove_plan(config_now, saved, str(self.home), oc.holds_slot(config))
        self._patch(cli, plan)
        if settings_text is not None:
            self._put_settings(settings_text, "settings: stop committing what OpenClaw writes")
        self._set_up_here(on=False)
        (self._state_dir() / STATE_FILE).unlink(missing_ok=True)
        return report

    # -- checks -----------------------------------------------------------------------

    def _check(self) -> str:
        if not (self.home / ".git").exists():
            raise InvalidInput(f"{self.home} is not a hearth home; create it with: hearth init")
        cli = self._which("openclaw")
        if cli is None:
            raise InvalidInput(
                "OpenClaw is not installed: no openclaw on PATH (it needs Node 24: "
                "npm install -g openclaw); nothing was changed"
            )
        done = self._run([cli, "--version"])
        version = oc.parse_version(done.stdout or "") if done.returncode == 0 else None
        if version is None:
            said = (done.stdout or done.stderr or "").strip()[-200:]
            raise InvalidInput(
                f"{cli} --version did not say which OpenClaw it is ({said or done.returncode}); "
                "nothing was changed"
            )
        if version < oc.MIN_VERSION:
            raise InvalidInput(
                f"OpenClaw {oc.shown_version(version)} is too old: hearth's memory plugin needs "
                f"OpenClaw {oc.shown_version(oc.MIN_VERSION)} or newer (openclaw update); "
                "nothing was changed"
            )
        return cli

    def _config(self, cli: str) -> tuple[Path, dict[str, Any]]:
        """OpenClaw's config file (as ``openclaw config file`` names it) and its content."""
        done = self._call([cli, "config", "file", "--json"])
        try:
            path = Path(json.loads(done)["path"])
        except (ValueError, KeyError, TypeError) as exc:
            raise HearthError(f"openclaw config file --json said {done.strip()!r}") from exc
        text = user_files.read(path)
        if text is None or not text.strip():
            return path, {}
        try:
            data = json.loads(config_text.strip_jsonc(text)[0])
        except ValueError as exc:
            raise InvalidInput(
                f"{path} is not JSON that hearth can read ({exc}); hearth reads JSON with "
                "comments, not every JSON5 form: check it with openclaw config validate; "
                "nothing was changed"
            ) from exc
        if not isinstance(data, dict):
            raise InvalidInput(f"{path} does not hold an object; fix it first")
        return path, data

    # -- the plugin -------------------------------------------------------------------

    def _installed_current(self) -> bool:
        """Whether OpenClaw's copy of the plugin is the one hearth ships, file for file."""
        target = self.extensions / oc.PLUGIN_ID
        for source in self.plugin.iterdir():
            if not source.is_file():
                continue
            try:
                if (target / source.name).read_bytes() != source.read_bytes():
                    return False
            except OSError:
                return False
        return True

    def _plugin_change(self, installed: bool) -> Change:
        where = str(self.extensions / oc.PLUGIN_ID)
        if installed:
            return Change(where, f"plugin {oc.PLUGIN_ID} already installed", False)
        command = shlex.join(["openclaw", "plugins", "install", str(self.plugin), "--force",
                              "--accept-capabilities"])  # fmt: skip
        return Change(where, f"installed plugin {oc.PLUGIN_ID}: ran {command}", True)

    # -- openclaw.json ----------------------------------------------------------------

    def _config_change(self, path: Path, plan: oc.Plan) -> Change:
        if not plan.changed:
            return Change(str(path), "nothing of hearth's to change", False)
        return Change(str(path), "openclaw config patch: " + "; ".join(plan.steps), True)

    def _patch(self, cli: str, plan: oc.Plan) -> None:
        if not plan.changed:
            return
        patch_file = self._state_dir() / "openclaw.patch.json"
        patch_file.parent.mkdir(parents=True, exist_ok=True)
        patch_file.write_text(json.dumps(plan.patch, indent=2) + "\n")
        try:
            self._call([cli, "config", "patch", "--file", str(patch_file)])
        finally:
            patch_file.unlink(missing_ok=True)

    # -- what setup replaced ------------------------------------------------------------

    def _state_dir(self) -> Path:
        return state_files.state_dir_of(self.home)

    def _set_up_here(self, *, on: bool) -> None:
        """Record on this machine (never in the synced hearth.toml) that OpenClaw's
        writes over the table's patterns are committed here, or take that back:
        the served home commits them only then (``store/trust.py``)."""
        trust = CommandTrust(self.home, self._state_dir())
        text = user_files.read(self.home / layout.SETTINGS_PATH) or ""
        wanted = [r for r in parse_settings(text).committed_writes() if r.runtime == NAME]
        if on and wanted:
            trust.approve_writes(NAME, wanted[0].paths, dt.datetime.now(dt.UTC))
        else:
            trust.approve_writes(NAME, (), None)

    def _kept(self) -> dict[str, Any]:
        return dict(state_files.read_record(self._state_dir() / STATE_FILE))

    def _keep(self, config: dict[str, Any], table: dict[str, Any] | None) -> None:
        """Record the values setup replaces, once: a second setup keeps the first record."""
        path = self._state_dir() / STATE_FILE
        if path.exists():
            return
        record = {"saved": oc.saved_from(config).as_dict(), "hearth_toml": table}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n")

    # -- hearth.toml ------------------------------------------------------------------

    def _settings_text(self) -> str:
        """hearth.toml as committed, refused when it has uncommitted edits."""
        from hearth.store import git_cli  # noqa: PLC0415

        status = git_cli.status(self.home)
        if status is not None and any(path == layout.SETTINGS_PATH for path, _ in status.changes):
            raise InvalidInput(
                f"{layout.SETTINGS_PATH} has uncommitted edits; commit or discard them "
                "and run setup again; nothing was changed"
            )
        return user_files.read(self.home / layout.SETTINGS_PATH) or ""

    def _table_of(self, text: str) -> dict[str, Any] | None:
        found = rt.get_in(tomllib.loads(text), _TABLE)
        return dict(found) if isinstance(found, dict) else None

    def _settings_on(self) -> tuple[dict[str, Any] | None, str | None]:
        """The table as it is, and hearth.toml with commit_writes on (None: already on)."""
        text = self._settings_text()
        table = self._table_of(text)
        if table is not None and table.get("commit_writes") is True:
            return table, None
        return table, self._checked(config_text.with_table(
            text, _TABLE, {**(table or {}), "commit_writes": True}
        ))  # fmt: skip

    def _settings_back(self, kept: dict[str, Any]) -> str | None:
        """hearth.toml with the table as it was before setup (None: nothing to do)."""
        text = self._settings_text()
        now = self._table_of(text)
        before = kept.get("hearth_toml") if kept else None
        if now is None or now.get("commit_writes") is not True:
            return None  # turned off (or never on): a person's choice since
        if isinstance(before, dict):
            return self._checked(config_text.with_table(text, _TABLE, before))
        return self._checked(config_text.without_table(text, _TABLE))

    def _checked(self, text: str) -> str:
        try:
            parse_settings(text)
        except HearthError as exc:
            raise InvalidInput(
                f"hearth.toml could not take [runtimes.openclaw] ({exc.message}); "
                "nothing was changed"
            ) from exc
        return text

    def _settings_change(self, changing: bool, *, on: bool) -> Change:
        where = str(self.home / layout.SETTINGS_PATH)
        if not changing:
            return Change(where, "[runtimes.openclaw] already as wanted", False)
        if on:
            return Change(where, "[runtimes.openclaw] commit_writes = true (one commit)", True)
        return Change(where, "[runtimes.openclaw] put back as it was (one commit)", True)

    # -- plumbing -----------------------------------------------------------------------

    def _call(self, argv: list[str]) -> str:
        done = self._run(argv)
        if done.returncode != 0:
            why = (done.stderr or done.stdout or "").strip().splitlines()
            raise HearthError(f"{shlex.join(argv)} failed: {why[-1] if why else done.returncode}")
        return done.stdout or ""
