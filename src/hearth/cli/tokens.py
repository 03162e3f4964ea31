"""API tokens for ``hearth serve``: ``hearth token create|list|revoke``. Beside a
running server each asks it (``/v1/tokens``, the person's admin scope), so the
tokens file has one writer; with none running, the command reads and writes it
itself and starts no server (tokens are made before one is served, and the
file is no part of the home's content or index)."""

from __future__ import annotations

import click

from hearth.cli.support import LightCommand, _emit, _State, cli, json_option, quoted, served_write


@cli.group()
def token() -> None:
    """API tokens for hearth serve: create, list, revoke."""


@token.command("create", cls=LightCommand)
@click.option("--name", required=True, help="What the token is for (unique).")
@click.option(
    "--scope",
    type=click.Choice(["read", "write", "admin"]),
    required=True,
    help="read: search and read; write: also write (notes, memory, proposals, loops, "
    "decisions); admin: also merge and reject, reconcile, sync, non-markdown files.",
)
@json_option
@click.pass_obj
def token_create(state: _State, name: str, scope: str, as_json: bool) -> None:
    """Create a token and print it once (only its hash is kept)."""
    made = served_write(
        state, "POST", "/v1/tokens", {"name": name, "scope": scope}, fields=None, start=False
    )
    if made is None:
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
        from hearth.domain.clock import utc_now  # noqa: PLC0415

        secret, info = wiring.token_store(state.root).create(name, scope, utc_now())
        made = {"token": secret, "name": info.name, "scope": info.scope}
    _emit(as_json, made, str(made["token"]))


@token.command("list", cls=LightCommand)
@json_option
@click.pass_obj
def token_list(state: _State, as_json: bool) -> None:
    """List tokens by name and scope (never the tokens themselves)."""
    listed = served_write(state, "GET", "/v1/tokens", fields=None, start=False)
    if listed is None:
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

        listed = {"tokens": [t.as_dict() for t in wiring.token_store(state.root).list()]}
    tokens = listed["tokens"]
    _emit(
        as_json,
        listed,
        lambda: (
            "\n".join(f"{t['name']}  {t['scope']}  {t['created']}" for t in tokens) or "no tokens"
        ),
    )


@token.command("revoke", cls=LightCommand)
@click.argument("name")
@json_option
@click.pass_obj
def token_revoke(state: _State, name: str, as_json: bool) -> None:
    """Revoke the token called NAME; requests with it get 401 at once."""
    # A name no token can have is not asked for (its URL would not be one route).
    named = name.replace(".", "").replace("_", "").replace("-", "").isalnum()
    asked = f"/v1/tokens/{quoted(name)}"
    if not named or served_write(state, "DELETE", asked, fields=None, start=False) is None:
        from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

        wiring.token_store(state.root).revoke(name)
    _emit(as_json, {"revoked": name}, f"revoked {name}")
