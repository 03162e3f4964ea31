"""Renaming the records still named with hearth's old keys to LionClaw's
(``hearth check --fix-keys``), in one commit."""

from __future__ import annotations

from hearth.app.results import KeyFix
from hearth.app.writes.writer import Writer
from hearth.domain import layout, records
from hearth.domain.text import decode_text
from hearth.errors import InvalidInput
from hearth.store.plans import FileChange, Plan, Snapshot


class KeyFixWrites(Writer):
    def fix_keys(self, actor: str) -> KeyFix:
        """Rename every committed record still named with hearth's old key to
        LionClaw's key, in one commit; the content moves unchanged (a LionClaw
        record's ``- Key:`` line follows), so ``git log --follow`` finds the
        history. A record whose new name is already taken is left alone and
        reported."""
        renamed: list[tuple[str, str]] = []
        blocked: list[tuple[str, str]] = []

        def planner(snap: Snapshot) -> Plan:
            renamed.clear()
            blocked.clear()
            changes: list[FileChange] = []
            for folder in layout.record_folders():
                for name in snap.names(folder):
                    path = f"{folder}/{name}"
                    data = snap.read(path)
                    if data is None or not name.endswith(".md"):
                        continue
                    try:
                        text = decode_text(data, path)
                    except InvalidInput:
                        continue
                    fix = records.lionclaw_key_rename(path, text)
                    if fix is None:
                        continue
                    new_path, new_text = fix
                    if snap.entry(new_path) is not None or self.files.read(new_path) is not None:
                        blocked.append((path, f"{new_path} already exists; merge the two by hand"))
                        continue
                    changes += [FileChange(path, None), FileChange(new_path, new_text.encode())]
                    renamed.append((path, new_path))
            body = "\n".join(f"{old} -> {new}" for old, new in renamed)
            count = len(renamed)
            return Plan(
                f"records: rename {count} record{'s' if count != 1 else ''} to LionClaw's keys",
                tuple(changes),
                body=body,
            )

        result = self._commit(planner, "records.fix-keys", actor)
        return KeyFix(result.commit if result.changed else None, tuple(renamed), tuple(blocked))
