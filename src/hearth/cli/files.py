"""Commands on one file of the home: put, get, restore, and its history. Each
write is one commit; the records' commands are in ``records.py``."""

from __future__ import annotations

import sys
from typing import BinaryIO

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
from hearth.domain.text import shown


@cli.command(cls=LightCommand)
@click.argument("path", callback=home_path)
@click.option(
    "--from-file", "source", type=click.File("rb"), required=True, help="File to read; - is stdin."
)
@click.option("--expected-oid", default=None, help="Refuse unless HEAD's blob id is this.")
@click.option("--message", default=None, help="Commit summary.")
@json_option
@click.pass_obj
def put(
    state: _State,
    path: str,
    source: BinaryIO,
    expected_oid: str | None,
    message: str | None,
    as_json: bool,
) -> None:
    """Replace PATH in the home with the content of a file, as one commit."""
    if expected_oid is not None and not _is_oid(expected_oid):
        from hearth.errors import HearthError  # noqa: PLC0415

        raise HearthError(
            f"--expected-oid {expected_oid!r} is not a file's version: give the 40 hex "
            "digits of the oid 'hearth get PATH --json' shows, or leave the option out"
        )
    data = source.read(_SERVED_PUT_BYTES + 1)
    if len(data) <= _SERVED_PUT_BYTES:
        try:
            text: str | None = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # not text: the command says why itself
        if text is not None:
            body = {"content": text, "expected_oid": expected_oid, "message": message}
            served = served_write(state, "PUT", f"/v1/files/{quoted(path)}", body)
            if served is not None:
                _written(as_json, served, f"wrote {served['path']}")
                return
    app = state.app()
    limit = app.writes.settings.file_bytes + 1
    content = data[:limit] + (source.read(limit - len(data)) if len(data) < limit else b"")
    result = app.put(path, content, state.actor, expected_oid, message)
    _written(as_json, result, f"wrote {result.path}")


def _is_oid(value: str) -> bool:
    """Whether ``value`` is a blob id as git and the API spell it (40 lowercase hex)."""
    return len(value) == 40 and all(c in "0123456789abcdef" for c in value)


#: The most bytes ``put`` sends the server (its body limit is 10 MiB, and JSON
#: escapes some text to thrice its size: a body it refuses as too large, 413,
#: is written here too); anything longer is written here.
_SERVED_PUT_BYTES = 4 * 1024 * 1024


@cli.command(cls=LightCommand)
@click.argument("path", callback=home_path)
@click.option("--rev", default=None, help="Read the file as of this revision.")
@json_option
@click.pass_obj
def get(state: _State, path: str, rev: str | None, as_json: bool) -> None:
    """Print a file of the home (from the work tree, or as of --rev)."""
    from hearth.client import delegate  # noqa: PLC0415  (start-up: only this command)

    asked = delegate.query(f"/v1/files/{quoted(path)}", {"rev": rev})
    data = served_write(state, "GET", asked, fields=None)
    if data is None or not isinstance(data.get("content"), str):
        data = state.app().get_file(path, rev).as_dict()
    if as_json:
        _emit(True, data, "")
    elif sys.stdout.isatty():
        # On a terminal the text is read, not stored: a file brought by git can
        # hold escape sequences (a clipboard write, a retitled window) that would
        # reach the terminal; shown visibly, as every other command prints.
        click.echo(shown(str(data["content"])), nl=False)
    else:
        click.echo(data["content"], nl=False)  # to a file or pipe: the bytes as they are


@cli.command(cls=LightCommand)
@click.argument("path", callback=home_path)
@click.argument("rev", required=False)
@click.option(
    "--rev",
    "rev_option",
    default=None,
    metavar="REV",
    help="The revision to bring PATH back from (as `get --rev`; or give it after PATH).",
)
@json_option
@click.pass_obj
def restore(
    state: _State, path: str, rev: str | None, rev_option: str | None, as_json: bool
) -> None:
    """Bring PATH back as it was at REV, as a new commit (history is kept).

    REV goes after PATH or as --rev REV, the way `hearth get --rev REV` takes it."""
    if rev is not None and rev_option is not None and rev != rev_option:
        raise click.UsageError(f"two revisions given ({rev} and --rev {rev_option}); give one")
    rev = rev or rev_option
    if rev is None:
        raise click.UsageError("give the revision: hearth restore PATH REV, or --rev REV")
    served = served_write(state, "POST", "/v1/restore", {"path": path, "rev": rev})
    result = served or state.app().restore(path, rev, state.actor).as_dict()
    _written(as_json, result, f"restored {result['path']} from {rev}")


@cli.command()
@click.argument("path", callback=home_path)
@click.option("--limit", default=20, show_default=True, help="Most commits to list.")
@json_option
@click.pass_obj
def history(state: _State, path: str, limit: int, as_json: bool) -> None:
    """List the commits that changed PATH, newest first."""
    commits = state.app().history(path, limit)
    _emit(
        as_json,
        {"path": path, "commits": [c.as_dict() for c in commits]},
        lambda: (
            "\n".join(
                f"{c.id[:12]} {c.time} {_who(c.actor, c.op, c.author)}: {c.subject}"
                for c in commits
            )
            or "no commits"
        ),
    )


def _who(actor: str | None, op: str | None, author: str) -> str:
    """Who made a commit, as history lists it: hearth's trailers (the actor that
    wrote through hearth and the operation), else the git author's own commit."""
    return f"{actor} [{op}]" if actor else f"git ({author})"
