"""Errors as HTTP responses: one table, and every response a JSON error body.

``{"error": {"code", "message", "detail"}}`` with 400, 401, 403, 404, 409,
413 or 422 for anything a client did; 500 only when git or the disk failed
in a way the client could not cause. This module and the ``cli`` package's ``_run`` are
the only places that turn errors into statuses; the body is ``errors.error_body``.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from hearth.errors import (
    ApiError,
    Busy,
    Conflict,
    Forbidden,
    HearthError,
    InvalidInput,
    NotAHome,
    NotFound,
    PathRefused,
    TooLarge,
    ValidationFailed,
    error_body,
)

#: The most specific class wins (checked in this order).
STATUS: tuple[tuple[type[HearthError], int], ...] = (
    (PathRefused, 400),
    (NotFound, 404),
    (NotAHome, 404),
    (Forbidden, 403),
    (Conflict, 409),
    (TooLarge, 413),
    (ValidationFailed, 422),
    (InvalidInput, 422),
)

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    500: "internal_error",
}


#: Seconds a client is told to wait after contention outlasted hearth's own retries.
RETRY_AFTER_SECONDS = 1

log = logging.getLogger("hearth.api")


def error_response(
    status: int,
    code: str,
    message: str,
    detail: Any = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    sent = dict(headers or {})
    if status == 401:
        sent["WWW-Authenticate"] = "Bearer"
    return JSONResponse(error_body(code, message, detail), status_code=status, headers=sent or None)


def headers_of(exc: HearthError) -> dict[str, str]:
    """Headers that go with ``exc``'s answer: contention says when to come back."""
    return {"Retry-After": str(RETRY_AFTER_SECONDS)} if isinstance(exc, Busy) else {}


def log_server_error(request: Request, exc: BaseException) -> None:
    """Every 5xx is a bug or a broken disk: it goes to the log with its traceback."""
    log.error(
        "%s %s answered 5xx: %s: %s",
        request.method,
        request.url.path,
        type(exc).__name__,
        exc,
        exc_info=(type(exc), exc, exc.__traceback__),
    )


def status_of(exc: HearthError) -> int:
    for cls, status in STATUS:
        if isinstance(exc, cls):
            return status
    return 500


#: The methods a 405's ``Allow`` may name (TRACE and CONNECT no route takes).
_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def allowed_methods(request: Request) -> list[str]:
    """The methods some route answers at ``request``'s path: each asked of the app's
    routes as routing asks (an included router answers for its own routes)."""
    routes = request.app.router.routes
    return [
        method
        for method in _METHODS
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes
        )
    ]


def install(app: FastAPI) -> None:
    @app.exception_handler(HearthError)
    async def hearth_error(request: Request, exc: HearthError) -> JSONResponse:
        status = status_of(exc)
        if status >= 500:
            log_server_error(request, exc)
        return error_response(status, exc.code, exc.message, exc.detail, headers_of(exc))

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, _HTTP_CODES.get(exc.status, "error"), exc.message)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        body_problem = _body_problem(request, exc.errors())
        if body_problem is not None:
            return error_response(422, "invalid_input", body_problem)
        problems = [
            {
                "where": ".".join(str(p) for p in e.get("loc", ())),
                "problem": str(e.get("msg", "")),
            }
            for e in exc.errors()
        ]
        summary = "; ".join(f"{p['where']}: {p['problem']}" for p in problems[:5])
        return error_response(422, "invalid_input", f"invalid request: {summary}", problems)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        headers = dict(exc.headers or {})
        if status == 405:
            # RFC 9110 §15.5.6: a 405 names the methods the resource supports.
            # Starlette names those of the one route it tried; a path served by
            # several routes (GET and PUT of /v1/files/{path}) supports them all.
            headers["Allow"] = ", ".join(allowed_methods(request))
        return error_response(status, _HTTP_CODES.get(status, "error"), message, headers=headers)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        log_server_error(request, exc)
        return error_response(500, "internal_error", f"hearth failed: {type(exc).__name__}: {exc}")


def _body_problem(request: Request, errors: Any) -> str | None:
    """What is wrong with the body as a whole, in words a person acts on: not JSON
    at all (where, and why), or not sent as JSON (the Content-Type it lacked);
    None when the body parsed and the problems are in its fields."""
    for error in errors:
        where = tuple(error.get("loc", ()))
        if error.get("type") == "json_invalid":
            why = (error.get("ctx") or {}).get("error") or "it does not parse"
            at = where[1] if len(where) > 1 and isinstance(where[1], int) else None
            return (
                "the body is not valid JSON: "
                + str(why)
                + (f" at character {at}" if at is not None else "")
            )
        if where == ("body",) and error.get("type") in ("model_attributes_type", "dict_type"):
            sent = request.headers.get("content-type")
            if sent is None or "json" not in sent.lower():
                return (
                    "the body must be a JSON object sent with 'Content-Type: "
                    "application/json' (this request said "
                    + (f"'Content-Type: {sent}'" if sent else "no Content-Type")
                    + "); with curl: -H 'Content-Type: application/json'"
                )
            return "the body must be a JSON object ({...}), not another JSON value"
    return None
