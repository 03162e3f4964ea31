"""Turning file bytes into text: the one place that decides what counts as text."""

from __future__ import annotations

from hearth.errors import InvalidInput


def decode_text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path} is not valid UTF-8 text") from exc
