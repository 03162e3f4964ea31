"""``hearth get`` beside a running server is the server's answer (issue 52, "CLI
reads in 100 ms": the command does not open the home), the same bytes as the
command's own."""

from __future__ import annotations

import pytest

from tests.api.conftest import Server
from tests.cli.test_writes_served import answer, loaded, run

pytestmark = pytest.mark.e2e  # the installed executable in subprocesses


def test_get_beside_a_server_is_the_servers_answer_byte_for_byte(server: Server) -> None:
    """Case: get (plain, --json, --rev, a missing file) answered by the server
    without libgit2, and printed as the command printed it with no server."""
    reply = server.post("/v1/daily", {"text": "Kingfishers at dawn"}, token="write")
    assert reply.status == 200, reply.body
    path = reply.body["path"]
    asks = [
        (path,),
        (path, "--json"),
        ("SOUL.md", "--rev", "HEAD", "--json"),
        ("memory/topics/none.md",),
    ]
    served = [run(server.root, "get", *ask) for ask in asks]
    for done in served[:3]:
        assert done.returncode == 0, answer(done.stderr)
        assert "pygit2" not in loaded(done.stderr)
    assert "Kingfishers at dawn" in served[0].stdout
    assert server.stop() == 0
    alone = [run(server.root, "get", *ask) for ask in asks]
    for mine, theirs in zip(served, alone, strict=True):
        assert (mine.returncode, mine.stdout) == (theirs.returncode, theirs.stdout)
        assert answer(mine.stderr) == answer(theirs.stderr)
    assert served[3].returncode == 1
