"""Erasure requests for the admin key group. The API never erases itself: it sits on the query floor and may
not run the index stages (ADR 0007), and the snapshot it serves is immutable. It records the request in the
lakehouse (``lakehouse.erasures``); the index side carries it out (``lakerag erase --pending``, or the
``lakerag_maintenance`` DAG) and appends the receipt, which ``GET /v1/admin/erasures`` lists (ADR 0008)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, get, post
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency
from litestar.exceptions import NotAuthorizedException, PermissionDeniedException
from litestar.handlers.base import BaseRouteHandler

from lakehouse.erasures import pending_requests, queue_request, receipts
from lakehouse.paths import LakePaths
from serving.answers import Caller
from serving.answers.access import ANONYMOUS
from serving.answers.errors import InvalidRequest
from serving.api.errors import documented

ADMIN = "admin"
Target = Annotated[str, msgspec.Meta(min_length=1, max_length=300)]
Who = NamedDependency[Caller]


class ErasureRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Exactly one of: ``subject`` (a person's name, CPF or e-mail; case and accents ignored) or
    ``document_id`` (every version of one document)."""

    subject: Target | None = None
    document_id: Target | None = None


class ErasureQueued(msgspec.Struct):
    request_id: str
    status: Literal["queued"]
    pending: int


class ErasureLog(msgspec.Struct):
    pending: int
    receipts: list[dict[str, Any]]


def admin_only(connection: ASGIConnection, _: BaseRouteHandler) -> None:
    """Only a caller presenting a key of the admin group; a gateway header never grants it (whatever a key is
    named). A guard, so the caller is known before the body is read: no key and a bad body is 401, not 400."""
    caller = connection.app.state.access.caller(connection.headers)
    if caller == ANONYMOUS:
        raise NotAuthorizedException("an API key of the admin group is required")
    if ADMIN not in caller.groups or caller.via_gateway:
        raise PermissionDeniedException("erasure is reserved to API keys of the admin group")


class AdminController(Controller):
    path = "/v1/admin"
    tags = ["admin"]
    guards = [admin_only]

    @post("/erasures", operation_id="requestErasure", status_code=202, sync_to_thread=True,
          responses=documented(400, 401, 403),
          summary="Queue the erasure of a person or a document (admin keys only); carried out by the index side")
    def request_erasure(self, data: ErasureRequest, caller: Who, request: Request) -> ErasureQueued:
        if (data.subject is None) == (data.document_id is None):
            raise InvalidRequest("give exactly one of subject and document_id", field="subject")
        paths = LakePaths(request.app.state.home)
        kind, target = ("subject", data.subject) if data.subject is not None else ("document", data.document_id)
        queued = queue_request(paths, kind, str(target).strip(), caller.name)
        return ErasureQueued(queued["id"], "queued", len(pending_requests(paths)))

    @get("/erasures", operation_id="listErasures", sync_to_thread=True, responses=documented(401, 403),
         summary="Receipts of past erasures and gc runs (no erased content) and the number still queued")
    def list_erasures(self, request: Request) -> ErasureLog:
        paths = LakePaths(request.app.state.home)
        return ErasureLog(len(pending_requests(paths)), receipts(paths))
