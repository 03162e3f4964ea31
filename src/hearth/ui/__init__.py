"""The review page (``/ui/``): a person's view of the home, server-rendered HTML.

An edge like the HTTP API: pages read through the service, forms post to one
operation each, and nothing below the service is touched here. See
docs/ui.md.
"""

from hearth.ui.kit import GzipPages
from hearth.ui.pages import build_ui

__all__ = ["GzipPages", "build_ui"]
