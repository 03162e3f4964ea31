"""The routes of the HTTP API, every one a thin call into ``ServedHearth``: parse
(FastAPI and the models), one call on the use cases, render. The served home
and the caller's token arrive as FastAPI dependencies.

Handlers that touch git or the index writer are plain functions (FastAPI runs
them on its thread pool); the service takes the home's lock for exactly the
operation; search is ``async`` and reads the shared Tantivy searcher on the
event loop, so it never queues behind a write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Path, Query

from hearth.answers import (
    ENTRIES_FILE_SCHEMA,
    KEY_SCHEMA,
    MAX_HISTORY,
    MAX_REVISION_CHARS,
    PATH_SCHEMA,
    USER_ID_SCHEMA,
    loop_written,
    merge_written,
    search_result,
    written,
)
from hearth.api import models
from hearth.api.gate import ERRORS, Caller, Service, actor, allowed, gate
from hearth.app.results import ActiveView, Diff, Reindexed
from hearth.domain.entries import MAX_ENTRY_CHARS
from hearth.domain.layout import MAX_USER_ID_CHARS, Kind
from hearth.domain.paths import normalize
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS
from hearth.domain.text import ONE_LINE, text_bytes
from hearth.operations import is_agent, put_operation
from hearth.review_answers import (
    batch_written,
)

#: The routes; ``create_app`` includes them.
router = APIRouter(responses=ERRORS)

# Path parameters: the schema declares what the domain's check enforces (see
# ``hearth.answers``); a bad path still answers 400 ``path_refused``, a malformed key 404.
FilePath = Annotated[str, Path(json_schema_extra=PATH_SCHEMA)]
EntriesFile = Annotated[str, Path(json_schema_extra=ENTRIES_FILE_SCHEMA)]
Key = Annotated[str, Path(json_schema_extra=KEY_SCHEMA)]
Revision = Annotated[str | None, Query(max_length=MAX_REVISION_CHARS)]


Handler = TypeVar("Handler", bound=Callable[..., Any])


def operation(
    method: str,
    path: str,
    name: str,
    *,
    hook_key: bool = False,
    on: APIRouter = router,
    **extra: Any,
) -> Callable[[Handler], Handler]:
    """A route that runs the operation ``name``: its gate asks the one policy
    (``operations.py``) for the scope, and the OpenAPI document names the
    operation (``x-hearth-operation``), which the docs and the catalogue test read.

    ``hook_key``: the server's hook key (``hook_key`` in ``.git/hearth/server.json``,
    readable only by the home's owner, new on every start) is let in too: the reads
    the hooks and the CLI delegate to the server (status, search, context, active).
    ``on``: the router it joins (``routes_home.py`` has its own).
    """
    route: Callable[..., Callable[[Handler], Handler]] = getattr(on, method)
    return route(
        path,
        dependencies=[gate(name, hook_key)],
        openapi_extra={"x-hearth-operation": name},
        **extra,
    )


@router.get("/healthz", response_model=models.Health, tags=["service"])
async def healthz() -> models.Health:
    return models.Health(ok=True)


@operation(
    "get", "/v1/status", "status", hook_key=True, response_model=models.Status, tags=["service"]
)
def status(service: Service) -> dict[str, Any]:
    """The home's status (a read token, or the server's hook key: ``hearth status``
    asks the running server with it)."""
    return service.status().as_dict()


@operation(
    "get", "/v1/search", "search", hook_key=True, response_model=models.SearchResult, tags=["read"]
)
async def search(
    service: Service,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)],
    kind: Kind | None = None,
    path: Annotated[str | None, Query(max_length=MAX_PREFIX_CHARS)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 10,
    everything: Annotated[
        bool,
        Query(
            alias="all",
            description="Every hit of the ranking, also those below the relevance floor "
            "(browsing); by default only the hits judged evidence for q, and left_out "
            "counts the others",
        ),
    ] = False,
) -> models.SearchResult:
    """Search (a read token, or the server's hook key: ``hearth search`` asks with it)."""
    found = service.search(q, kind, path, limit, everything=everything)
    return search_result(found, *service.index_freshness())


@operation("get", "/v1/files/{path:path}", "read", response_model=models.FileView, tags=["read"])
def get_file(service: Service, path: FilePath, rev: Revision = None) -> dict[str, object]:
    return service.get_file(path, rev).as_dict()


@operation("put", "/v1/files/{path:path}", "put", response_model=models.Written, tags=["write"])
def put_file(
    service: Service, path: FilePath, body: models.PutFile, info: Caller
) -> models.Written:
    allowed(info, put_operation(normalize(path)))  # settings and git's own files: admin
    content = text_bytes("content", body.content)
    result = service.put(
        path, content, actor(info), body.expected_oid, body.message, agent=is_agent(info.scope)
    )
    return written(result)


@operation(
    "get",
    "/v1/context",
    "context",
    hook_key=True,
    response_model=models.ContextBundle,
    tags=["read"],
)
def get_context(
    service: Service,
    session: Literal["main", "subagent"] = "main",
    q: Annotated[str | None, Query(max_length=MAX_QUERY_CHARS)] = None,
    user: Annotated[
        str | None, Query(max_length=MAX_USER_ID_CHARS, json_schema_extra=USER_ID_SCHEMA)
    ] = None,
) -> dict[str, object]:
    """The turn's bundle (a read token, or the hook key: ``hearth context`` asks with it)."""
    return service.context(session, q, user).as_dict()


@operation("get", "/v1/active", "active", hook_key=True, response_model=ActiveView, tags=["read"])
def active(service: Service) -> ActiveView:
    """ACTIVE.md (a read token, or the hook key: ``hearth active`` asks with it)."""
    return service.active()


@operation("post", "/v1/daily", "note", response_model=models.Written, tags=["write"])
def daily(service: Service, body: models.DailyEntry, info: Caller) -> models.Written:
    return written(service.note(body.text, body.title, actor(info)))


@operation("get", "/v1/proposals", "proposals", response_model=models.Proposals, tags=["read"])
def proposals(service: Service) -> dict[str, Any]:
    views = service.records("proposal")
    return service.review_board(views).answer(views)


@operation("post", "/v1/proposals", "propose", response_model=models.Written, tags=["write"])
def propose(service: Service, body: models.NewProposal, info: Caller) -> models.Written:
    result = service.propose(
        body.title,
        body.entries,
        actor(info),
        body.target,
        body.rationale,
        body.source,
        agent=is_agent(info.scope),
    )
    return written(result)


@operation(
    "post",
    "/v1/proposals/{key}/merge",
    "merge",
    response_model=models.MergeWritten,
    tags=["review"],
)
def merge(
    service: Service, key: Key, info: Caller, body: models.MergeVersion | None = None
) -> models.MergeWritten:
    """Merge a proposal; ``version`` (the ``oid`` the proposals list gave) refuses
    a proposal changed since it was read (409 stale_write). Says what each
    replacement replaced."""
    version = body.version if body is not None else None
    return merge_written(service.merge(key, actor(info), version=version))


@operation(
    "post", "/v1/proposals/{key}/reject", "reject", response_model=models.Written, tags=["review"]
)
def reject(service: Service, key: Key, body: models.Rejection, info: Caller) -> models.Written:
    return written(service.reject(key, body.reason, actor(info)))


@operation(
    "post",
    "/v1/proposals/merge",
    "merge.many",
    response_model=models.BatchWritten,
    tags=["review"],
)
def merge_many(service: Service, body: models.ManyProposals, info: Caller) -> models.BatchWritten:
    """Merge many proposals in one commit (all or nothing)."""
    return batch_written(service.merge_many(body.keys, actor(info), expected=_seen(body.expected)))


@operation(
    "post",
    "/v1/proposals/reject",
    "reject.many",
    response_model=models.BatchWritten,
    tags=["review"],
)
def reject_many(service: Service, body: models.ManyRejected, info: Caller) -> models.BatchWritten:
    """Reject many proposals with one reason, in one commit (all or nothing)."""
    expected = _seen(body.expected)
    return batch_written(
        service.reject_many(body.keys, body.reason, actor(info), expected=expected)
    )


def _seen(expected: dict[str, str | None] | None) -> dict[str, str | None] | None:
    """The blob ids a caller saw, by normalized path (a bad path is a 400)."""
    if expected is None:
        return None
    return {normalize(path): oid for path, oid in expected.items()}


@operation("get", "/v1/loops", "loops", response_model=models.Loops, tags=["read"])
def loops(service: Service) -> dict[str, Any]:
    views = service.records("loop")
    return {"loops": [v.as_dict() for v in views]}


@operation("post", "/v1/loops", "loop.add", response_model=models.LoopWritten, tags=["write"])
def add_loop(service: Service, body: models.NewLoop, info: Caller) -> models.LoopWritten:
    result = service.add_loop(
        body.title,
        actor(info),
        body.summary,
        body.next_step,
        body.source,
        agent=is_agent(info.scope),
    )
    return loop_written(result)


@operation(
    "post",
    "/v1/loops/{key}/resolve",
    "loop.resolve",
    response_model=models.Written,
    tags=["review"],
)
def resolve_loop(
    service: Service, key: Key, info: Caller, body: models.Resolution | None = None
) -> models.Written:
    note = body.note if body is not None else ""
    return written(service.resolve_loop(key, actor(info), note, agent=is_agent(info.scope)))


@operation("get", "/v1/decisions", "decisions", response_model=models.Decisions, tags=["read"])
def decisions(service: Service) -> dict[str, Any]:
    views = service.records("decision")
    return {"decisions": [v.as_dict() for v in views]}


@operation("post", "/v1/decisions", "decide", response_model=models.Written, tags=["write"])
def decide(service: Service, body: models.NewDecision, info: Caller) -> models.Written:
    result = service.decide(
        body.title, body.decision, actor(info), body.why, body.source, agent=is_agent(info.scope)
    )
    return written(result)


@operation(
    "post",
    "/v1/decisions/{key}/withdraw",
    "decision.withdraw",
    response_model=models.Written,
    tags=["write"],
)
def withdraw_decision(
    service: Service, key: Key, body: models.Withdrawal, info: Caller
) -> models.Written:
    agent = is_agent(info.scope)
    return written(service.withdraw_decision(key, body.reason, actor(info), agent=agent))


@operation(
    "get", "/v1/history/{path:path}", "history", response_model=models.History, tags=["read"]
)
def history(
    service: Service, path: FilePath, limit: Annotated[int, Query(ge=1, le=MAX_HISTORY)] = 20
) -> dict[str, Any]:
    commits = service.history(path, limit)
    return {"path": path, "commits": [c.as_dict() for c in commits]}


@operation("get", "/v1/diff", "diff", response_model=models.Diff, tags=["read"])
def diff(
    service: Service,
    path: Annotated[str, Query(json_schema_extra=PATH_SCHEMA)],
    rev_from: Annotated[str | None, Query(alias="from", max_length=MAX_REVISION_CHARS)] = None,
    rev_to: Annotated[str | None, Query(alias="to", max_length=MAX_REVISION_CHARS)] = None,
) -> Diff:
    return service.diff(path, rev_from, rev_to)


@operation(
    "get",
    "/v1/memory/{file:path}/entries",
    "memory.list",
    response_model=models.EntryList,
    tags=["memory"],
)
def memory_entries(service: Service, file: EntriesFile) -> dict[str, Any]:
    found = service.entry_list(file)
    return {"path": normalize(file), "entries": [e.as_dict() for e in found]}


@operation(
    "post",
    "/v1/memory/{file:path}/entries",
    "memory.add",
    response_model=models.Written,
    tags=["memory"],
)
def memory_add(
    service: Service, file: EntriesFile, body: models.NewEntry, info: Caller
) -> models.Written:
    return written(
        service.entry_add(file, body.entry, actor(info), body.section, agent=is_agent(info.scope))
    )


@operation(
    "put",
    "/v1/memory/{file:path}/entries",
    "memory.replace",
    response_model=models.Written,
    tags=["memory"],
)
def memory_replace(
    service: Service, file: EntriesFile, body: models.EntryReplacement, info: Caller
) -> models.Written:
    agent = is_agent(info.scope)
    return written(service.entry_replace(file, body.old, body.new, actor(info), agent=agent))


@operation(
    "delete",
    "/v1/memory/{file:path}/entries",
    "memory.remove",
    response_model=models.Written,
    tags=["memory"],
)
def memory_remove(
    service: Service,
    file: EntriesFile,
    entry: Annotated[
        str,
        Query(min_length=1, max_length=MAX_ENTRY_CHARS, json_schema_extra={"pattern": ONE_LINE}),
    ],
    info: Caller,
) -> models.Written:
    return written(service.entry_remove(file, entry, actor(info), agent=is_agent(info.scope)))


@operation("post", "/v1/reconcile", "reconcile", response_model=models.Reindexed, tags=["admin"])
def reconcile(service: Service, full: bool = False) -> dict[str, object]:
    """A pass (``full``: the index rebuilt aside, then swapped), as ``hearth reindex``
    answers it; the server's filler embeds what it indexed in the background
    (``embedded`` 0, ``to_embed`` what waits for it)."""
    report = service.reconcile(full)
    return Reindexed(report, 0, service.vectors_to_embed()).as_dict()


@operation("post", "/v1/sync", "sync", tags=["admin"])
def sync(service: Service) -> dict[str, object]:
    return service.sync().as_dict()
