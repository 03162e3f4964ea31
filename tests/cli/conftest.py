"""The CLI's tests that ask a running server take the API tests' real one."""

from tests.api.conftest import server  # noqa: F401  (a real server on a fresh home)
