"""Thin controllers: each handler calls the answer service and notes what it did for the request log."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import date
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.concurrency import sync_to_thread
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage

from serving.answers import AnswerService, Caller, CatalogQuery
from serving.answers.errors import InvalidRequest
from serving.answers.intent import catalog_query
from serving.answers.types import (
    Answer,
    CatalogPage,
    Document,
    QueryRequest,
    SearchRequest,
    SearchResults,
    Section,
    SectionList,
)
from serving.api.encoding import DENSE_MODES, encode_first
from serving.api.errors import documented

log = logging.getLogger(__name__)
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
PageNumber = Annotated[int, msgspec.Meta(ge=1, le=100_000)]
Service = NamedDependency[AnswerService]
Who = NamedDependency[Caller]


def _note(request: Request, **values: Any) -> None:
    request.scope.setdefault("state", {}).update({k: v for k, v in values.items() if v is not None})


def _grades(evidence: list) -> list[dict] | None:
    """Each graded evidence item's grade and reason, for the request log."""
    items = [e if isinstance(e, dict) else msgspec.to_builtins(e) for e in evidence]
    graded = [{"n": e["n"], "id": e["id"], "grade": e["grade"], "reason": e.get("grade_reason")}
              for e in items if e.get("grade")]
    return graded or None


def _request_id(request: Request) -> str:
    return str(request.scope.get("state", {}).get("request_id", ""))


class QueryController(Controller):
    path = "/v1"
    tags = ["answers"]

    @post("/query", operation_id="query", status_code=200, responses=documented(400, 401, 404, 409, 503),
          summary="Answer a question with validated citations (basic, local, global, hybrid, catalog or auto); "
                  "with Accept: text/event-stream, the same events as /v1/query/stream")
    async def query(self, data: JSONBody[QueryRequest], service: Service, caller: Who, request: Request) -> Answer:
        if data.mode in DENSE_MODES and not data.history and data.conversation_id is None:
            await encode_first(service, data.question)  # on the event loop: see serving.api.encoding
        return await sync_to_thread(_query, data, service, caller, request)

    @post("/query/stream", operation_id="queryStream", status_code=200, sync_to_thread=True,
          media_type="text/event-stream", responses=documented(400, 401, 404, 409, 503),
          summary="The same answer as server-sent events: meta, token, citation, warning, done")
    def query_stream(self, data: JSONBody[QueryRequest], service: Service, caller: Who,
                     request: Request) -> ServerSentEvent:
        events = service.query_stream(data, caller, _request_id(request))
        return ServerSentEvent(_sse(events, request))

    @post("/search", operation_id="search", status_code=200, responses=documented(400, 401, 503),
          summary="Ranked chunks for a question, permission-filtered (retrieval only)")
    async def search(self, data: JSONBody[SearchRequest], service: Service, caller: Who,
                     request: Request) -> SearchResults:
        if data.method != "bm25":
            await encode_first(service, data.question)
        results = await sync_to_thread(service.search, data, caller)
        _note(request, mode="search", snapshot_id=results.snapshot_id)
        return results


def _query(data: QueryRequest, service: AnswerService, caller: Caller, request: Request) -> Answer:
    """The answer (or its events, when asked for), in a worker thread."""
    if _wants_events(request):
        return ServerSentEvent(_sse(service.query_stream(data, caller, _request_id(request)), request),
                               headers={"content-type": "text/event-stream; charset=utf-8"})
    answer = service.query(data, caller, _request_id(request))
    _note(request, mode=answer.mode_used, answer_status=answer.status, snapshot_id=answer.snapshot_id,
          grades=_grades(answer.evidence))
    return answer


def _wants_events(request: Request) -> bool:
    """The client asked for server-sent events (and did not prefer JSON)."""
    accept = request.headers.get("accept", "")
    return "text/event-stream" in accept and not accept.strip().lower().startswith("application/json")


def _sse(events: Iterator[tuple[str, Any]], request: Request) -> Iterator[ServerSentEventMessage]:
    """Events as SSE messages; a failure after the response started ends the stream with an ``error`` event."""
    try:
        for name, data in events:
            if name == "done":
                _note(request, mode=data["mode_used"], answer_status=data["status"],
                      snapshot_id=data["snapshot_id"], grades=_grades(data["evidence"]))
            yield ServerSentEventMessage(data=msgspec.json.encode(data).decode(), event=name)
    except Exception:
        log.exception("stream failed")
        _note(request, answer_status="error")
        yield ServerSentEventMessage(data='{"detail": "internal error; see the server log"}', event="error")


class DocumentController(Controller):
    path = "/v1/documents"
    tags = ["documents"]

    @get("/{document_id:str}", operation_id="getDocument", sync_to_thread=False,
         responses=documented(400, 401, 404, 503),
         summary="A document's metadata and its sections (404 when it does not exist or is not readable)")
    def document(self, document_id: FromPath[Id], service: Service, caller: Who) -> Document:
        return service.document(document_id, caller)

    @get("/{document_id:str}/sections", operation_id="listDocumentSections", sync_to_thread=False,
         responses=documented(400, 401, 404, 503),
         summary="Every section of a document, with its text")
    def sections(self, document_id: FromPath[Id], service: Service, caller: Who) -> SectionList:
        return service.sections(document_id, caller)

    @get("/{document_id:str}/sections/{chunk_id:str}", operation_id="getDocumentSection",
         sync_to_thread=False, responses=documented(400, 401, 404, 503),
         summary="The section (chunk) a citation points to")
    def section(self, document_id: FromPath[Id], chunk_id: FromPath[Id], service: Service, caller: Who) -> Section:
        return service.section(document_id, chunk_id, caller)

    @get("/{document_id:str}/pages/{page:int}/image", operation_id="getDocumentPageImage", sync_to_thread=True,
         media_type="image/png", responses=documented(400, 401, 404, 503),
         summary="The image of a PDF page a page citation names (404 when absent or not readable)")
    def page_image(self, document_id: FromPath[Id], page: FromPath[PageNumber], service: Service,
                   caller: Who) -> Response[bytes]:
        return Response(service.page_image(document_id, page, caller), media_type="image/png")


Text = Annotated[str | None, QueryParameter(max_length=200)]


class CatalogController(Controller):
    path = "/v1/catalog"
    tags = ["catalog"]

    @get("/", operation_id="getCatalog", sync_to_thread=True, responses=documented(400, 401, 503),
         summary="Governance metadata from the catalog alone: types, departments, owners, review dates")
    def catalog(
        self, service: Service, caller: Who, request: Request,
        question: Annotated[str | None, QueryParameter(max_length=2000, description=(
            "a listing question, e.g. 'quais documentos vencem nos próximos 30 dias?', or one document's governance "
            "fields, e.g. 'quem aprovou o POP de higienização das mãos?'"))] = None,
        q: Annotated[str | None, QueryParameter(max_length=500, description=(
            "search words, ranked by BM25 over title, summary and tags within the filters; people, departments "
            "and types named in it filter; with no content words left, the filtered list in review-date order"))]
        = None,
        doc_type: Annotated[list[str] | None, QueryParameter(max_items=20)] = None,
        department: Annotated[list[str] | None, QueryParameter(max_items=20)] = None,
        responsible: Text = None, approver: Text = None, title: Text = None,
        due_within_days: Annotated[int | None, QueryParameter(ge=0, le=3650)] = None,
        due_year: Annotated[int | None, QueryParameter(ge=1900, le=2199, description=(
            "review due within that calendar year"))] = None,
        outdated: Annotated[bool | None, QueryParameter()] = None,
        as_of: Annotated[date | None, QueryParameter(description="reference date (default: today)")] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 100,
        offset: Annotated[int, QueryParameter(ge=0, le=1_000_000)] = 0,
    ) -> CatalogPage:
        base = CatalogQuery()
        if question:
            names = service.catalog_names()
            base = catalog_query(question, *names) or service.card_query(question, caller) or _not_a_listing()
        query = CatalogQuery(doc_types=tuple(doc_type or base.doc_types),
                             departments=tuple(department or base.departments),
                             responsible=responsible or base.responsible, approver=approver or base.approver,
                             title=title, document_id=base.document_id,
                             outdated=base.outdated if outdated is None else outdated,
                             due_within_days=base.due_within_days if due_within_days is None else due_within_days,
                             due_by=base.due_by, due_year=base.due_year if due_year is None else due_year,
                             as_of=as_of, limit=limit, offset=offset)
        page = service.catalog(query, caller, q)
        _note(request, mode="catalog", snapshot_id=page.snapshot_id)
        return page


def _not_a_listing() -> CatalogQuery:
    raise InvalidRequest("question is not a catalog listing question (ask for documents by review date, owner, "
                         "department or type), or use the filter parameters", "question")


class OpsController(Controller):
    tags = ["operations"]

    @get("/health", operation_id="health", sync_to_thread=False, summary="Liveness: the process answers")
    def health(self) -> dict[str, str]:
        return {"status": "ok"}

    @get("/ready", operation_id="ready", sync_to_thread=False, responses={503: ResponseSpec(
             data_container=dict[str, Any], description="no snapshot loaded yet")},
         summary="Readiness: a snapshot is loaded (503 otherwise)")
    def ready(self, service: Service) -> Response[dict[str, Any]]:
        body = service.readiness()
        return Response(body, status_code=200 if body["ready"] else 503)

    @get("/metrics", operation_id="metrics", sync_to_thread=False, media_type="text/plain; version=0.0.4",
         summary="Prometheus metrics: requests, latencies, answers by status, snapshot id")
    def metrics(self, service: Service, request: Request) -> str:
        state = service.readiness()
        return request.app.state.metrics.render(state.get("snapshot_id"), state["ready"],
                                                service.holder.reloads)

