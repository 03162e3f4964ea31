"""The routes of the writes that are the home's as a whole rather than one
record's: restoring a file, topic notes, settling an entry conflict,
reflection, the weekly rollup, consolidation, and the API's tokens. Each is the
CLI command of the same name asked of the home's one server (``hearth restore``,
``topic``, ``memory settle``, ``reflect``, ``rollup``, ``consolidate``,
``token``), and each answers what that command prints with ``--json``. As in
``routes.py``: parse, one call on ``ServedHearth``, render.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from hearth.answers import written
from hearth.api import models
from hearth.api.gate import ERRORS, Caller, Service, actor, allowed
from hearth.api.routes import operation
from hearth.domain.paths import normalize
from hearth.domain.text import PLAIN
from hearth.operations import is_agent, put_operation

#: These routes; ``create_app`` includes them beside ``routes.router``.
router = APIRouter(responses=ERRORS)

ConflictId = Annotated[str, Path(min_length=1, max_length=200, pattern=PLAIN)]
TokenName = Annotated[str, Path(min_length=1, max_length=models.MAX_TOKEN_NAME_CHARS)]


@operation(
    "post", "/v1/restore", "restore", on=router, response_model=models.Written, tags=["write"]
)
def restore(service: Service, body: models.Restoration, info: Caller) -> models.Written:
    """Bring a file back as it was at ``rev``, as a new commit. A persona or memory
    file, or a record under continuity/, is the person's (admin)."""
    allowed(info, put_operation(normalize(body.path), "restore"))
    agent = is_agent(info.scope)
    return written(service.restore(body.path, body.rev, actor(info), agent=agent))


@operation("post", "/v1/topics", "topic", on=router, response_model=models.Written, tags=["write"])
def topic(service: Service, body: models.TopicNote, info: Caller) -> models.Written:
    """Create, replace (``content``) or append to (``append``) a topic note."""
    agent = is_agent(info.scope)
    result = service.topic(
        body.title, actor(info), content=body.content, append=body.append, agent=agent
    )
    return written(result)


@operation(
    "post",
    "/v1/memory/conflicts/{conflict_id}/settle",
    "memory.settle",
    on=router,
    response_model=models.Written,
    tags=["memory"],
)
def settle(
    service: Service, conflict_id: ConflictId, body: models.Settlement, info: Caller
) -> models.Written:
    """Settle an entry two machines changed in different ways."""
    return written(service.entry_settle(conflict_id, body.keep, actor(info)))


@operation("post", "/v1/reflect", "reflect", on=router, tags=["admin"])
def reflect(service: Service) -> dict[str, Any]:
    """Run the approved [reflection] command once (a failed run answers 200 with
    its ``error``, as the run is recorded; a command not approved here is 422)."""
    return service.reflect().as_dict()


@operation("post", "/v1/reflect/approve", "reflect", on=router, tags=["admin"])
def approve_reflection(service: Service) -> dict[str, Any]:
    """Approve hearth.toml's [reflection] command on this machine (nothing runs)."""
    return {"approved": list(service.approve_reflection())}


@operation(
    "post", "/v1/rollups", "rollup", on=router, response_model=models.Written, tags=["write"]
)
def rollup(service: Service, body: models.RollupWeek, info: Caller) -> models.Written:
    """Commit a week's digest of daily notes to continuity/rollups/."""
    return written(service.rollup(body.week, actor(info)))


@operation(
    "post",
    "/v1/consolidate",
    "consolidate",
    on=router,
    response_model=models.Consolidated,
    tags=["write"],
)
def consolidate(service: Service, body: models.Consolidation) -> models.Consolidated:
    """Propose moves and folds for the hot files past their soft budget."""
    made = service.consolidate([normalize(f) for f in body.files] or None)
    return models.Consolidated(proposed=[str(r.key) for r in made])


@operation("get", "/v1/tokens", "tokens", on=router, response_model=models.Tokens, tags=["admin"])
def tokens(service: Service) -> dict[str, Any]:
    return {"tokens": [t.as_dict() for t in service.tokens.list()]}


@operation(
    "post", "/v1/tokens", "tokens", on=router, response_model=models.TokenMade, tags=["admin"]
)
def create_token(service: Service, body: models.NewToken) -> models.TokenMade:
    """Create a token; the answer is the only time it is shown."""
    secret, made = service.tokens.create(body.name, body.scope, service.writes.clock())
    return models.TokenMade(token=secret, name=made.name, scope=made.scope)


@operation("delete", "/v1/tokens/{name}", "tokens", on=router, tags=["admin"])
def revoke_token(service: Service, name: TokenName) -> dict[str, str]:
    """Revoke a token: requests with it get 401 at once."""
    service.tokens.revoke(name)
    return {"revoked": name}
