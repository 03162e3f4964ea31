"""API tokens for ``hearth serve``: ``hearth token create|list|revoke``."""

from __future__ import annotations

import click

from hearth.cli.support import _emit, _State, cli, json_option


@cli.group()
def token() -> None:
    """API tokens for hearth serve: create, list, revoke."""


@token.command("create")
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
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)
    from hearth.domain.clock import utc_now  # noqa: PLC0415

    secret, info = wiring.token_store(state.root).create(name, scope, utc_now())
    _emit(as_json, {"token": secret, "name": info.name, "scope": info.scope}, secret)


@token.command("list")
@json_option
@click.pass_obj
def token_list(state: _State, as_json: bool) -> None:
    """List tokens by name and scope (never the tokens themselves)."""
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    tokens = wiring.token_store(state.root).list()
    _emit(
        as_json,
        {"tokens": [t.as_dict() for t in tokens]},
        lambda: "\n".join(f"{t.name}  {t.scope}  {t.created}" for t in tokens) or "no tokens",
    )


@token.command("revoke")
@click.argument("name")
@json_option
@click.pass_obj
def token_revoke(state: _State, name: str, as_json: bool) -> None:
    """Revoke the token called NAME; requests with it get 401 at once."""
    from hearth import wiring  # noqa: PLC0415  (start-up: only commands that open a home)

    wiring.token_store(state.root).revoke(name)
    _emit(as_json, {"revoked": name}, f"revoked {name}")
