"""The routes of the HTTP API, every one a thin call into ``ServedHearth``: parse
(FastAPI and the models), one call on the use cases, render. The served home
and the caller's token arrive as FastAPI dependencies.

Handlers that touch git or the index writer are plain functions (FastAPI runs
them on its thread pool); the service takes the home's lock for exactly the
operation; search is ``async`` and reads the shared Tantivy searcher on the
event loop, so it never queues behind a write.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Request

from hearth.api import models
from hearth.api.problems import ApiError
from hearth.app.results import ActiveView, Diff, WriteResult
from hearth.app.served import ServedHearth
from hearth.domain.layout import Kind
from hearth.domain.paths import normalize
from hearth.domain.searching import MAX_LIMIT, MAX_PREFIX_CHARS, MAX_QUERY_CHARS
from hearth.store.tokens import Scope, TokenInfo, allows

ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": models.ErrorBody, "description": description}
    for status, description in (
        (400, "bad path or request"),
        (401, "no or unknown token"),
        (403, "token scope too small"),
        (404, "no such file, record or revision"),
        (409, "conflict: uncommitted edits, stale oid, busy"),
        (413, "too large"),
        (422, "invalid input or a validation rule failed"),
    )
}


async def _service(request: Request) -> ServedHearth:
    # async: FastAPI would run a plain function on its thread pool, a hop that
    # search (answered on the event loop) should not pay.
    served: ServedHearth = request.app.state.service
    return served


#: The served home, as a FastAPI dependency (``create_app`` puts it in the app's state).
Service = Annotated[ServedHearth, Depends(_service)]

#: The routes; ``create_app`` includes them.
router = APIRouter(responses=ERRORS)


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError(
            401, "send 'Authorization: Bearer <token>' (create one: hearth token create)"
        )
    return token.strip()


def require(scope: Scope) -> Any:
    def check(request: Request, service: Service) -> TokenInfo:
        info = service.tokens.check(bearer(request))
        if info is None:
            raise ApiError(401, "unknown or revoked token")
        if not allows(info.scope, scope):
            raise ApiError(403, f"this needs a token with the {scope} scope")
        return info

    return Depends(check)


read, write, admin = require("read"), require("write"), require("admin")


def _read_or_hook_key(request: Request, service: Service) -> None:
    """The server's hook key (``hook_key`` in ``.git/hearth/server.json``, readable only
    by the home's owner, new on every start) or any token with the ``read`` scope."""
    sent = bearer(request)
    if secrets.compare_digest(sent.encode(), service.hook_key.encode()):
        return
    info = service.tokens.check(sent)
    if info is None:
        raise ApiError(401, "unknown hook key or token")
    if not allows(info.scope, "read"):
        raise ApiError(403, "this needs a token with the read scope")


#: For what the hooks and the CLI ask of the server on the home owner's behalf: the
#: reads the CLI delegates (status, search, context, active), never a write.
read_or_hook_key = Depends(_read_or_hook_key)


def actor(info: TokenInfo) -> str:
    return f"api:{info.name}"


def written(result: WriteResult) -> models.Written:
    return models.Written(**result.as_dict())  # type: ignore[arg-type]


@router.get("/healthz", response_model=models.Health, tags=["service"])
async def healthz() -> models.Health:
    return models.Health(ok=True)


@router.get("/v1/status", response_model=models.Status, tags=["service"])
def status(service: Service, _: None = read_or_hook_key) -> dict[str, Any]:
    """The home's status (a read token, or the server's hook key: ``hearth status``
    asks the running server with it)."""
    return service.status().as_dict()


@router.get("/v1/search", response_model=models.SearchResult, tags=["read"])
async def search(
    service: Service,
    q: Annotated[str, Query(max_length=MAX_QUERY_CHARS)],
    kind: Kind | None = None,
    path: Annotated[str | None, Query(max_length=MAX_PREFIX_CHARS)] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 10,
    _: None = read_or_hook_key,
) -> dict[str, Any]:
    """Search (a read token, or the server's hook key: ``hearth search`` asks with it)."""
    return service.search(q, kind, path, limit).as_dict()


@router.get("/v1/files/{path:path}", response_model=models.FileView, tags=["read"])
def get_file(
    service: Service,
    path: str,
    rev: Annotated[str | None, Query(max_length=200)] = None,
    _: TokenInfo = read,
) -> dict[str, object]:
    return service.get_file(path, rev).as_dict()


@router.put("/v1/files/{path:path}", response_model=models.Written, tags=["write"])
def put_file(
    service: Service, path: str, body: models.PutFile, info: TokenInfo = write
) -> models.Written:
    if not normalize(path).endswith(".md") and not allows(info.scope, "admin"):
        # Settings, .gitignore and .gitattributes steer hearth and git itself.
        raise ApiError(403, "a write token writes markdown files; other files need admin")
    result = service.put(path, body.content.encode(), actor(info), body.expected_oid, body.message)
    return written(result)


@router.get("/v1/context", response_model=models.ContextBundle, tags=["read"])
def get_context(
    service: Service,
    session: Literal["main", "subagent"] = "main",
    q: Annotated[str | None, Query(max_length=MAX_QUERY_CHARS)] = None,
    user: Annotated[str | None, Query(max_length=100)] = None,
    _: None = read_or_hook_key,
) -> dict[str, object]:
    """The turn's bundle (a read token, or the hook key: ``hearth context`` asks with it)."""
    return service.context(session, q, user).as_dict()


@router.get("/v1/active", response_model=ActiveView, tags=["read"])
def active(service: Service, _: None = read_or_hook_key) -> ActiveView:
    """ACTIVE.md (a read token, or the hook key: ``hearth active`` asks with it)."""
    return service.active()


@router.post("/v1/daily", response_model=models.Written, tags=["write"])
def daily(service: Service, body: models.DailyEntry, info: TokenInfo = write) -> models.Written:
    return written(service.note(body.text, body.title, actor(info)))


@router.get("/v1/proposals", response_model=models.Proposals, tags=["read"])
def proposals(service: Service, _: TokenInfo = read) -> dict[str, Any]:
    views = service.records("proposal")
    return {"proposals": [v.as_dict() for v in views]}


@router.post("/v1/proposals", response_model=models.Written, tags=["write"])
def propose(service: Service, body: models.NewProposal, info: TokenInfo = write) -> models.Written:
    result = service.propose(
        body.title, body.entries, actor(info), body.target, body.rationale, body.source
    )
    return written(result)


@router.post("/v1/proposals/{key}/merge", response_model=models.Written, tags=["review"])
def merge(service: Service, key: str, info: TokenInfo = write) -> models.Written:
    return written(service.merge(key, actor(info)))


@router.post("/v1/proposals/{key}/reject", response_model=models.Written, tags=["review"])
def reject(
    service: Service, key: str, body: models.Rejection, info: TokenInfo = write
) -> models.Written:
    return written(service.reject(key, body.reason, actor(info)))


@router.get("/v1/loops", response_model=models.Loops, tags=["read"])
def loops(service: Service, _: TokenInfo = read) -> dict[str, Any]:
    views = service.records("loop")
    return {"loops": [v.as_dict() for v in views]}


@router.post("/v1/loops", response_model=models.Written, tags=["write"])
def add_loop(service: Service, body: models.NewLoop, info: TokenInfo = write) -> models.Written:
    result = service.add_loop(body.title, actor(info), body.summary, body.next_step, body.source)
    return written(result)


@router.post("/v1/loops/{key}/resolve", response_model=models.Written, tags=["review"])
def resolve_loop(
    service: Service, key: str, body: models.Resolution | None = None, info: TokenInfo = write
) -> models.Written:
    note = body.note if body is not None else ""
    return written(service.resolve_loop(key, actor(info), note))


@router.get("/v1/history/{path:path}", response_model=models.History, tags=["read"])
def history(
    service: Service,
    path: str,
    limit: Annotated[int, Query(ge=1, le=1000)] = 20,
    _: TokenInfo = read,
) -> dict[str, Any]:
    commits = service.history(path, limit)
    return {"path": path, "commits": [c.as_dict() for c in commits]}


@router.get("/v1/diff", response_model=models.Diff, tags=["read"])
def diff(
    service: Service,
    path: Annotated[str, Query(max_length=1024)],
    rev_from: Annotated[str | None, Query(alias="from", max_length=200)] = None,
    rev_to: Annotated[str | None, Query(alias="to", max_length=200)] = None,
    _: TokenInfo = read,
) -> Diff:
    return service.diff(path, rev_from, rev_to)


@router.get("/v1/memory/{file:path}/entries", response_model=models.EntryList, tags=["memory"])
def memory_entries(service: Service, file: str, _: TokenInfo = read) -> dict[str, Any]:
    found = service.entry_list(file)
    return {"path": normalize(file), "entries": [e.as_dict() for e in found]}


@router.post("/v1/memory/{file:path}/entries", response_model=models.Written, tags=["memory"])
def memory_add(
    service: Service, file: str, body: models.NewEntry, info: TokenInfo = write
) -> models.Written:
    return written(service.entry_add(file, body.entry, actor(info)))


@router.put("/v1/memory/{file:path}/entries", response_model=models.Written, tags=["memory"])
def memory_replace(
    service: Service, file: str, body: models.EntryReplacement, info: TokenInfo = write
) -> models.Written:
    return written(service.entry_replace(file, body.old, body.new, actor(info)))


@router.delete("/v1/memory/{file:path}/entries", response_model=models.Written, tags=["memory"])
def memory_remove(
    service: Service,
    file: str,
    entry: Annotated[str, Query(min_length=1, max_length=2000)],
    info: TokenInfo = write,
) -> models.Written:
    return written(service.entry_remove(file, entry, actor(info)))


@router.post("/v1/reconcile", response_model=models.PassResult, tags=["admin"])
def reconcile(service: Service, full: bool = False, _: TokenInfo = admin) -> dict[str, object]:
    return service.reconcile(full).as_dict()


@router.post("/v1/sync", tags=["admin"])
def sync(service: Service, _: TokenInfo = admin) -> dict[str, object]:
    return service.sync().as_dict()
