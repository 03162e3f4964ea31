"""The real-server fixtures of the API tests, for the torture suite."""

from tests.api.conftest import server, shared_server

__all__ = ["server", "shared_server"]
