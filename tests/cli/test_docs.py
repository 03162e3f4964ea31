"""docs/cli.md documents every command the CLI has, with the options it takes."""

from __future__ import annotations

from pathlib import Path

import click

from hearth.cli import cli

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _commands(group: click.Group, prefix: str = "hearth") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found.update(_commands(command, f"{prefix} {name}"))
        else:
            found[f"{prefix} {name}"] = command
    return found


def test_every_command_has_a_section_listing_its_options() -> None:
    text = (DOCS / "cli.md").read_text()
    sections = {block.split("\n", 1)[0].strip(): block for block in text.split("\n## ")[1:]}
    commands = _commands(cli)
    assert len(commands) >= 15
    missing = sorted(set(commands) - set(sections))
    assert not missing, f"undocumented commands in docs/cli.md: {missing}"
    for name, command in commands.items():
        for param in command.params:
            if isinstance(param, click.Option):
                flag = max(param.opts, key=len)
                assert flag in sections[name], f"{name}: {flag} is not documented"


def test_every_endpoint_is_documented_with_an_example(workspace) -> None:
    from hearth import wiring
    from hearth.api.app import create_app

    spec = create_app(wiring.open_service(workspace.root)).openapi()
    text = (DOCS / "api.md").read_text()
    sections = {block.split("\n", 1)[0].strip(): block for block in text.split("\n### ")[1:]}
    operations = [(m.upper(), path) for path, item in spec["paths"].items() for m in item]
    assert len(operations) >= 19
    for method, path in operations:
        heading = f"`{method} {path}`"
        assert heading in sections, f"{heading} is not documented in docs/api.md"
        assert "curl " in sections[heading], f"{heading} has no curl example"
