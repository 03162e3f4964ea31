"""The CLI's tests that ask a running server take the API tests' real ones: a
server on a fresh home per test, or one per module."""

from tests.api.conftest import server, shared_server

__all__ = ["server", "shared_server"]
