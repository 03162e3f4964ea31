"""Running reflection: the configured command, bounded, and what it proposes.

``hearth reflect`` and the scheduler's ``reflection`` job call ``Reflector.run``:
gather the bundle (daily entries since the last run, MEMORY.md and USER.md
with their entries, the pending proposals), run the command without a shell
(its time bounded, its output read up to a bound), check the whole answer
(``domain/reflection.py``), drop what is already known, and only then create
one proposal per item (source ``reflection``, ``Hearth-Actor`` the command's
name). A command that fails, times out, prints garbage or tries anything
but proposing leaves nothing behind; every run is recorded in
``.git/hearth/reflection.json`` for status and ACTIVE.md.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from hearth.app.reads.review_board import ReviewMatcher
from hearth.app.writes.home import HomeWrites
from hearth.domain import entries, layout, records
from hearth.domain.likeness import Held
from hearth.domain.reflection import (
    MAX_OUTPUT_BYTES,
    WAITING_ATTENTION,
    ProposedMemory,
    ReflectionSettings,
    parse_output,
    reflection_status,
    waiting_note,
)
from hearth.domain.text import decode_text
from hearth.errors import HearthError, InvalidInput
from hearth.store import active_records, state
from hearth.store.private import private_dir, write_file
from hearth.store.trust import CommandTrust

#: The daily notes looked at when the last run is older than this (or there is none).
MAX_LOOKBACK_DAYS = 7
FIRST_LOOKBACK_SECONDS = 24 * 3600
_STDERR_BYTES = 2000


@dataclass
class ReflectionRun:
    time: str
    seconds: float = 0.0
    since: str = ""
    entries: int = 0
    proposed: list[str] = field(default_factory=list)
    dropped: int = 0
    #: The dropped entries and what already held each (text, path, line, score).
    known: list[dict[str, object]] = field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


class ReflectionLog:
    """The record of reflection runs (``.git/hearth/reflection.json``): what status
    shows and what ACTIVE.md's Needs attention says after a failed run."""

    def __init__(self, state_dir: Path, settings: ReflectionSettings, trust: CommandTrust) -> None:
        self.settings = settings
        self.record_path = state_dir / state.REFLECTION_RECORD
        #: This machine's approvals: the command runs only when they hold it.
        self.trust = trust

    def last(self) -> dict[str, object]:
        return state.read_record(self.record_path)

    def approved(self) -> bool:
        return self.settings.enabled and self.trust.approved(self.settings.command)

    def status(self) -> dict[str, object]:
        return reflection_status(self.settings, self.approved(), self.last())

    def attention(self) -> list[str]:
        if self.settings.enabled and not self.approved():
            return [WAITING_ATTENTION]
        last = self.last()
        if last.get("error"):
            return [f"reflection failed at {last.get('time')}: {last['error']}"]
        return []

    def record(self, run: ReflectionRun) -> None:
        data = run.as_dict()
        # The next run starts where the last successful one ended; a failed
        # run's window is looked at again.
        data["next_since"] = (
            run.time if run.error is None else (self.last().get("next_since") or run.since or None)
        )
        private_dir(self.record_path.parent)
        write_file(self.record_path, json.dumps(data).encode())


class Reflector:
    def __init__(
        self, home: HomeWrites, log: ReflectionLog, matcher: ReviewMatcher | None = None
    ) -> None:
        self.home = home
        self.log = log
        self.settings = log.settings
        if matcher is None:  # words only (no model handed in)
            from hearth.index.likeness import EntryLikeness  # noqa: PLC0415

            settings = home.settings
            matcher = ReviewMatcher(EntryLikeness(), settings.review.threshold, settings.bounds)
        #: Finds what the home already holds like a proposed entry (``app/reads/review_board.py``).
        self.matcher = matcher

    def status(self) -> dict[str, object]:
        return self.log.status()

    def attention(self) -> list[str]:
        return self.log.attention()

    # -- a run -----------------------------------------------------------------

    def waiting(self) -> tuple[str, ...]:
        """The command when one is set that this machine has not approved, else ()."""
        return self.settings.command if self.settings.enabled and not self.log.approved() else ()

    def approve(self) -> tuple[str, ...]:
        """Approve the configured command on this machine, as it is now; the command."""
        if not self.settings.enabled:
            raise InvalidInput(
                "no reflection command is configured; set [reflection] command in hearth.toml"
            )
        self.log.trust.approve(self.settings.command, self.home.clock())
        # A server serving the home refreshes its status and ACTIVE.md too (its
        # watcher takes the nudge as the git hooks' "files may have changed").
        with contextlib.suppress(OSError):
            (self.log.record_path.parent / state.NUDGE).write_text(str(os.getpid()))
        return self.settings.command

    def run(self) -> ReflectionRun:
        """One run; refused (nothing runs, nothing is recorded) while the command is
        unset or not approved on this machine."""
        if not self.settings.enabled:
            raise InvalidInput(
                "no reflection command is configured; set [reflection] command in hearth.toml"
            )
        if not self.log.approved():
            raise InvalidInput(waiting_note(self.settings.command))
        now = self.home.clock().astimezone(dt.UTC)
        run = ReflectionRun(time=now.isoformat(timespec="seconds"))
        started = time.monotonic()
        try:
            since = self._since(now)
            run.since = since.isoformat(timespec="seconds")
            bundle = self._bundle(since)
            run.entries = len(bundle["entries"])  # type: ignore[arg-type]
            raw = self._execute(json.dumps(bundle, ensure_ascii=False).encode())
            proposed = parse_output(raw)
            kept = self._drop_known(proposed, run)
            # Checked whole above; only now is anything written.
            actor = Path(self.settings.command[0]).name
            for item in kept:
                # hearth ran the command: "reflection" is hearth's word for who
                # wrote the proposal (its source), and it is not the person's.
                result = self.home.propose(
                    item.title,
                    item.entries,
                    actor,
                    item.target,
                    item.rationale,
                    agent=True,
                    origin="reflection",
                )
                run.proposed.append(result.key or result.path)
        except HearthError as exc:
            run.error = exc.message
        run.seconds = round(time.monotonic() - started, 3)
        self.log.record(run)
        return run

    def _drop_known(
        self, proposed: list[ProposedMemory], run: ReflectionRun
    ) -> list[ProposedMemory]:
        """Drop entries the home holds, or a pending proposal holds, the same or
        nearly the same (``[review] threshold``), and entries an earlier item of
        this answer already proposed; each dropped entry is counted and kept in
        the run record with what held it."""
        snap = self.home.store.snapshot()
        pending = [
            Held(entry, layout.record_path("proposal", view["key"]), 0, view["key"])
            for view in self._pending()
            for entry in view["entries"]
        ]
        kept = []
        for item in proposed:
            target = item.target or layout.DEFAULT_PROPOSAL_TARGET
            fresh = []
            for entry in item.entries:  # one at a time: an entry may repeat the one before
                found = self.matcher.known(snap, target, [entry], pending)[0]
                if found.matches:
                    best = found.matches[0]
                    run.known.append({"entry": found.entry, **best.as_dict()})
                    continue
                fresh.append(entry)
                pending.append(Held(entry, "", 0, "(this run)"))
            run.dropped += len(item.entries) - len(fresh)
            if fresh:
                kept.append(ProposedMemory(item.title, tuple(fresh), item.rationale, item.target))
        return kept

    def _since(self, now: dt.datetime) -> dt.datetime:
        floor = now - dt.timedelta(days=MAX_LOOKBACK_DAYS)
        last = self.log.last().get("next_since")
        if isinstance(last, str):
            with contextlib.suppress(ValueError):
                return max(dt.datetime.fromisoformat(last), floor)
        # The first run reads the last day (or one interval, when that is longer).
        first = max(self.settings.every_seconds, FIRST_LOOKBACK_SECONDS)
        return max(now - dt.timedelta(seconds=first), floor)

    def _pending(self) -> list[dict[str, Any]]:
        found = []
        for view in active_records.list_records(self.home.files, "proposal"):
            if isinstance(view.record, records.Proposal):
                found.append(
                    {
                        "key": view.key,
                        "title": view.record.title,
                        "entries": list(view.record.entries),
                    }
                )
        return found

    def _bundle(self, since: dt.datetime) -> dict[str, object]:
        from hearth.domain import daily_merge  # noqa: PLC0415  (start-up: reflection only)

        snap = self.home.store.snapshot()
        found: list[dict[str, str]] = []
        day = since.date()
        while day <= self.home.clock().astimezone(dt.UTC).date():
            for path in layout.daily_note_paths(day):  # both layouts
                data = snap.read(path)
                if data is None:
                    continue
                for entry in daily_merge.parse_daily(decode_text(data, path)).entries:
                    heading, _, text = entry.partition("\n")
                    minute = heading[3:8]
                    if day == since.date() and minute < f"{since:%H:%M}":
                        continue
                    found.append({"path": path, "heading": heading[3:], "text": text.strip()})
            day += dt.timedelta(days=1)

        def memory_file(path: str) -> dict[str, object]:
            data = snap.read(path)
            text = decode_text(data, path) if data is not None else ""
            return {
                "path": path,
                "text": text,
                "entries": [e.text for e in entries.list_entries(text)],
            }

        return {
            "since": since.isoformat(timespec="seconds"),
            "entries": found,
            "memory": memory_file("MEMORY.md"),
            "user": memory_file("USER.md"),
            "pending": self._pending(),
        }

    def _execute(self, stdin: bytes) -> bytes:
        """Run the command (no shell, its own process group); its output, bounded."""
        import subprocess  # noqa: PLC0415  (start-up: reflection only)
        import tempfile  # noqa: PLC0415

        settings = self.settings
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                proc = subprocess.Popen(
                    settings.command,
                    stdin=subprocess.PIPE,
                    stdout=out,
                    stderr=err,
                    cwd=self.home.root,
                    start_new_session=True,
                )
            except OSError as exc:
                raise InvalidInput(f"the reflection command could not start: {exc}") from exc
            try:
                with contextlib.suppress(BrokenPipeError):
                    assert proc.stdin is not None
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                code = proc.wait(timeout=settings.timeout_seconds)
            except subprocess.TimeoutExpired as exc:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                raise InvalidInput(
                    f"the reflection command ran over {settings.timeout_seconds} s and was stopped"
                ) from exc
            if code != 0:
                raise InvalidInput(
                    f"the reflection command exited with status {code}: {_tail(err)}"
                )
            size = os.fstat(out.fileno()).st_size
            if size > MAX_OUTPUT_BYTES:
                raise InvalidInput(f"the reflection command printed over {MAX_OUTPUT_BYTES} bytes")
            out.seek(0)
            return out.read()


def _tail(handle: IO[bytes]) -> str:
    handle.seek(0)
    text = handle.read()[-_STDERR_BYTES:].decode("utf-8", "replace").strip()
    return " ".join(text.split()) or "(no error output)"
