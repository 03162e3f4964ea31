"""``hearth memory`` (add, replace, remove, list, conflicts, settle), ``hearth topic``,
``hearth reflect`` and ``hearth consolidate``: a runtime's (or a person's) memory, one entry or
one topic note at a time, each one commit; reflection and consolidation only ever propose."""

from __future__ import annotations

import sys
from typing import Any

import click

from hearth.cli.support import (
    LightCommand,
    _emit,
    _State,
    _written,
    cli,
    home_path,
    json_option,
    quoted,
    served_write,
)
from hearth.domain.text import counted
from hearth.errors import HearthError


@cli.group()
def memory() -> None:
    """Entries of USER.md, MEMORY.md, users/<id>.md or any file with an '## Entries' section.

    An entry is one bullet ('- ', '* ' or '+ ') of the file's '## Entries'
    section (or, in a file without one, a bullet at the margin), named by its exact text or by its
    number ('#3', as 'hearth memory list' shows). Each change is one commit,
    computed from the committed file. 'conflicts' and 'settle' deal with an
    entry two machines changed in different ways (docs/sync.md).
    """


@memory.command("list")
@click.argument("file", callback=home_path)
@json_option
@click.pass_obj
def memory_list(state: _State, file: str, as_json: bool) -> None:
    """List FILE's entries with their numbers."""
    found = state.app().entry_list(file)
    _emit(
        as_json,
        {"path": file, "entries": [e.as_dict() for e in found]},
        lambda: "\n".join(f"#{e.number}  {e.text}" for e in found) or "no entries",
    )


@memory.command("add", cls=LightCommand)
@click.argument("file", callback=home_path)
@click.argument("text")
@click.option(
    "--section",
    default=None,
    metavar="NAME",
    help="In a file of named sections (USER.md: Preferences, Context), add under '## NAME'.",
)
@json_option
@click.pass_obj
def memory_add(state: _State, file: str, text: str, section: str | None, as_json: bool) -> None:
    """Add the entry TEXT to FILE."""
    body = {"entry": text, **({"section": section} if section else {})}
    served = served_write(state, "POST", _entries(file), body)
    result = served or state.app().entry_add(file, text, state.actor, section)
    _written(as_json, result, f"added to {file}" + (f" under '## {section}'" if section else ""))


@memory.command("replace", cls=LightCommand)
@click.argument("file", callback=home_path)
@click.argument("old")
@click.argument("new")
@json_option
@click.pass_obj
def memory_replace(state: _State, file: str, old: str, new: str, as_json: bool) -> None:
    """Replace the entry OLD (its exact text, or #N) of FILE with NEW."""
    served = served_write(state, "PUT", _entries(file), {"old": old, "new": new})
    result = served or state.app().entry_replace(file, old, new, state.actor)
    _written(as_json, result, f"replaced in {file}")


@memory.command("remove", cls=LightCommand)
@click.argument("file", callback=home_path)
@click.argument("text")
@json_option
@click.pass_obj
def memory_remove(state: _State, file: str, text: str, as_json: bool) -> None:
    """Remove the entry TEXT (its exact text, or #N) from FILE."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only this command)

    served = served_write(state, "DELETE", delegate.query(_entries(file), {"entry": text}))
    result = served or state.app().entry_remove(file, text, state.actor)
    _written(as_json, result, f"removed from {file}")


def _entries(file: str) -> str:
    """The route of FILE's entries."""
    return f"/v1/memory/{quoted(file)}/entries"


@memory.command("conflicts")
@json_option
@click.pass_obj
def memory_conflicts(state: _State, as_json: bool) -> None:
    """List the entries two machines changed in different ways, to settle."""
    found = state.app().entry_conflicts()

    def human() -> str:
        lines = []
        for r in found:
            other = f"«{r.other}»" if r.other is not None else "(removed there)"
            lines += [
                f"{r.id}  {r.path}",
                f"    --keep file:  «{r.kept}»",
                f"    --keep other: {other}",
            ]
        return "\n".join(lines) or "no entry conflicts"

    _emit(as_json, {"conflicts": [r.as_dict() for r in found]}, human)


@memory.command("settle", cls=LightCommand)
@click.argument("conflict_id")
@click.option(
    "--keep",
    type=click.Choice(["file", "other"]),
    required=True,
    help="file: the version listed first stays; other: the other version stays "
    "(or the entry goes, when the other side removed it).",
)
@json_option
@click.pass_obj
def memory_settle(state: _State, conflict_id: str, keep: str, as_json: bool) -> None:
    """Settle the entry conflict CONFLICT_ID (as 'hearth memory conflicts' lists it)."""
    asked = f"/v1/memory/conflicts/{quoted(conflict_id)}/settle"
    served = served_write(state, "POST", asked, {"keep": keep})
    result = served or state.app().entry_settle(conflict_id, keep, state.actor).as_dict()
    _written(as_json, result, f"settled {conflict_id} in {result['path']}")


@cli.command(cls=LightCommand)
@click.argument("title", required=False)
@click.option("--content", default=None, help="The note's whole text (creates or replaces it).")
@click.option("--append", "append", default=None, help="Text to add as a new section.")
@json_option
@click.pass_obj
def topic(
    state: _State, title: str | None, content: str | None, append: str | None, as_json: bool
) -> None:
    """Write the topic note memory/topics/<slug>.md for TITLE; without TITLE, list them."""
    if title is None:
        found = state.app().topics()
        _emit(
            as_json,
            {"topics": found},
            lambda: "\n".join(f"{t['path']}  {t['title']}" for t in found) or "no topics",
        )
        return
    body = {"title": title, "content": content, "append": append}
    served = served_write(state, "POST", "/v1/topics", body)
    result = (
        served or state.app().topic(title, state.actor, content=content, append=append).as_dict()
    )
    _written(as_json, result, f"wrote {result['path']}")


@cli.command(cls=LightCommand)
@click.option(
    "--approve",
    is_flag=True,
    help="Approve the [reflection] command in hearth.toml on this machine (nothing runs).",
)
@json_option
@click.pass_obj
def reflect(state: _State, approve: bool, as_json: bool) -> None:
    """Run the [reflection] command once: its proposals wait for review.

    hearth.toml travels with the home, so its command runs only once the person
    on this machine approved that exact command with --approve (again after any
    change to it, or to a file of the home it names). Exit 1 (with the reason)
    when no command is configured, it is not approved here, or the run failed;
    a failed run leaves nothing behind and shows in status and ACTIVE.md.
    """
    from hearth.domain.reflection import shown_command  # noqa: PLC0415

    if approve:
        served = served_write(state, "POST", "/v1/reflect/approve", fields=None)
        command = served["approved"] if served else list(state.app().approve_reflection())
        _emit(
            as_json,
            {"approved": command},
            lambda: f"approved on this machine: {shown_command(tuple(command))}",
        )
        return
    # A command this machine has not approved is refused by the server as input
    # (422): done here, where a person at a terminal is asked.
    run = served_write(state, "POST", "/v1/reflect", fields=None) or _reflect_here(state, as_json)
    if run["error"] is not None:
        _emit(as_json, run, "")
        raise HearthError(f"reflection failed: {run['error']}")

    def human() -> str:
        proposed = run["proposed"]
        lines = [
            f"reflection read {counted(run['entries'], 'entry', 'entries')} since {run['since']} "
            f"in {run['seconds']:.1f} s: "
            f"{counted(len(proposed), 'proposal')}, "
            f"{counted(run['dropped'], 'known entry', 'known entries')} dropped"
        ]
        lines += [f"  {key}" for key in proposed]
        if proposed:
            lines.append("review them with 'hearth proposals'")
        return "\n".join(lines)

    _emit(as_json, run, human)


def _reflect_here(state: _State, as_json: bool) -> dict[str, Any]:
    """One reflection run in this process; at a terminal, a command not approved
    on this machine is shown and the person asked first."""
    from hearth.domain.reflection import shown_command  # noqa: PLC0415

    app = state.app()
    command = app.reflection_waiting() if not as_json and sys.stdin.isatty() else ()
    if command:
        # A person at a terminal (who may just have set the command in an editor)
        # approves it here; nothing is assumed.
        click.echo(f"hearth.toml's [reflection] command: {shown_command(command)}")
        if click.confirm("run this command on this machine, now and on schedule?", default=False):
            app.approve_reflection()
    return app.reflect().as_dict()


def _home_paths(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> list[str]:
    return [p for p in (home_path(ctx, param, v) for v in value) if p]


@cli.command(cls=LightCommand)
@click.argument("files", nargs=-1, callback=_home_paths)
@json_option
@click.pass_obj
def consolidate(state: _State, files: list[str], as_json: bool) -> None:
    """Propose what the hot files need now: moves and folds for a person to approve.

    Looks at FILES (default: USER.md, MEMORY.md and every users/<id>.md): a file
    past its soft budget ([consolidation] soft_budget of its bound, counting what
    pending proposals would add) gets moves of clusters of its entries to their
    own notes, each leaving a pointer line; entries that say nearly the same get
    a fold. Each proposal is one commit; nothing changes a hot file until it is
    merged. The scheduled 'consolidate' job of 'hearth serve' does the same.
    """
    served = served_write(state, "POST", "/v1/consolidate", {"files": files}, fields=None)
    data = served or {"proposed": [r.key for r in state.app().consolidate(files or None)]}
    made = data["proposed"]

    def human() -> str:
        lines = [f"proposed {counted(len(made), 'consolidation')}"]
        lines += [f"  {key}" for key in made]
        if made:
            lines.append("review them with 'hearth proposals'")
        return "\n".join(lines)

    _emit(as_json, data, human)
