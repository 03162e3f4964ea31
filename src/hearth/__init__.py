"""hearth: an AI assistant's home as markdown in a git repository."""

from __future__ import annotations

#: The distribution's name on the package index (``pip install hearth-home``).
DISTRIBUTION = "hearth-home"


def package_version() -> str:
    """The installed package's version (what ``hearth --version`` prints)."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"
