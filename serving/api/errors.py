"""One exception handler: domain errors become 4xx with a clear message; anything else is a logged 500."""

from __future__ import annotations

import logging
from typing import Any

import msgspec
from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.openapi.datastructures import ResponseSpec

from lakehouse.errors import LakeragError
from serving.answers.errors import InvalidRequest, ModeUnavailable, NotFound, NotReady, Unauthorized
from serving.search.index import IndexNotReady
from serving.search.retriever import SearchError

log = logging.getLogger(__name__)

STATUS = ((Unauthorized, 401, "unauthorized"), (NotFound, 404, "not_found"), (InvalidRequest, 400, "invalid_request"),
          (SearchError, 400, "invalid_request"), (ModeUnavailable, 409, "mode_unavailable"),
          (NotReady, 503, "not_ready"), (IndexNotReady, 503, "not_ready"))


class ErrorBody(msgspec.Struct):
    """Every error response: an error code, a readable detail, the request id, and the field at fault."""

    status_code: int
    error: str
    detail: str
    request_id: str | None = None
    field: str | None = None
    fields: list[dict[str, Any]] | None = None


_DESCRIBED = {400: "invalid request (the detail names the field)", 401: "unknown API key",
             403: "the key is not in the group this operation needs",
              404: "not found, or not readable with this key", 409: "the mode needs an artefact this snapshot lacks",
              503: "no snapshot loaded yet"}


def documented(*codes: int) -> dict[int, ResponseSpec]:
    """OpenAPI responses for the error codes a handler can return."""
    return {code: ResponseSpec(data_container=ErrorBody, description=_DESCRIBED[code]) for code in codes}


def _body(request: Request, status: int, error: str, detail: str, headers: dict[str, str] | None = None,
          **extra) -> Response:
    content = {"status_code": status, "error": error, "detail": detail,
               "request_id": request.scope.get("state", {}).get("request_id"), **extra}
    headers = dict(headers or {})
    if status == 401:
        headers["www-authenticate"] = 'ApiKey header="X-API-Key"'
    return Response(content, status_code=status, media_type=MediaType.JSON, headers=headers or None)


def handle(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException):  # routing, validation and body errors from Litestar itself
        extra = {"fields": exc.extra} if exc.extra else {}
        error = "invalid_request" if exc.status_code == 400 else "http_error"
        # the exception's headers carry what the status needs, e.g. Allow on a 405
        return _body(request, exc.status_code, error, str(exc.detail), headers=exc.headers, **extra)
    if isinstance(exc, RecursionError) and "deserializ" in str(exc):  # msgspec refusing a pathological body
        return _body(request, 400, "invalid_request", "request body is nested too deeply to be read")
    for kind, status, error in STATUS:
        if isinstance(exc, kind):
            field = getattr(exc, "field", None)
            return _body(request, status, error, str(exc), **({"field": field} if field else {}))
    if isinstance(exc, LakeragError):
        log.error("request failed: %s", exc)
        return _body(request, 503, "unavailable", str(exc))
    log.exception("unexpected error")
    return _body(request, 500, "internal_error", "internal error; see the server log for the request id")


JSON_TYPES = ("application/json", "application/problem+json")


def require_json(request: Request) -> None:
    """Before any handler: a request body that is not declared JSON is refused (415), not guessed at."""
    if request.method in ("POST", "PUT", "PATCH") and int(request.headers.get("content-length") or 0) > 0:
        declared = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if declared not in JSON_TYPES:
            raise HTTPException(status_code=415,
                                detail=f"send the body as application/json, not {declared or 'untyped'}")
