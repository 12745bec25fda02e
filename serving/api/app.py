"""The app factory: settings read once, one service per process, thin controllers, one exception handler,
explicit operation ids, the OpenAPI document at /schema (JSON and YAML, no CDN assets)."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme

from lakehouse import paths as lp
from lakehouse.objectstore import store_of
from lakehouse.paths import LakePaths
from lakehouse.settings import Settings, get_settings
from serving.answers import Access, AnswerService, Caller, SnapshotHolder
from serving.answers.conversations import Conversations
from serving.answers.generation import Generator
from serving.api.admin import AdminController
from serving.api.bucket import BucketFollower
from serving.api.controllers import CatalogController, DocumentController, OpsController, QueryController
from serving.api.errors import handle, require_json
from serving.api.observability import Metrics, ObservedApp
from serving.api.page import page, static_router
from serving.api.schema import reject_unknown_fields
from serving.search.encoder_service import EncoderService, encoder_threads

DESCRIPTION = """Questions over the published document snapshot, answered with validated citations.
Authenticate with `X-API-Key` (or `Authorization: Bearer`); without a key only public documents are visible.
Errors are JSON: `{status_code, error, detail, field?, request_id}`."""


def _caller(request: Any) -> Caller:
    caller = request.app.state.access.caller(request.headers)
    request.scope.setdefault("state", {})["caller"] = caller.name
    return caller


def _service(request: Any) -> AnswerService:
    return request.app.state.service


def create_app(settings: Settings | None = None, holder: SnapshotHolder | None = None, access: Access | None = None,
               watch: bool = True) -> Litestar:
    """The API over ``settings.home``'s published snapshot; ``watch`` follows the pointer for new ones."""
    settings = settings or get_settings()
    api = settings.api
    keys = api.keys.get_secret_value() if api.keys is not None else None
    access = access or Access.from_config(api.keys_file, keys, api.trust_gateway, api.gateway_header)
    holder = holder or SnapshotHolder(settings, catalog_table=api.catalog_table)
    if holder.generator is None:
        holder.generator = Generator.from_settings(settings, LakePaths(settings.home).cache_dir(lp.LLM_ANSWERS),
                                                   api.answer_max_tokens)
    if holder.encoder is None:
        holder.encoder = EncoderService(api.encoder_window_ms, api.encoder_max_batch, api.query_cache_size,
                                        encoder_threads(api.workers, api.encoder_threads))
    service = AnswerService(holder, api.min_relevance, Conversations(api.conversation_ttl, api.conversations_max),
                            api.rewrite_with_llm, api.grade_correct_at, api.grade_with_llm,
                            generate_with_llm=api.generate_with_llm)

    store = store_of(settings)
    follower = BucketFollower(store, LakePaths(settings.home)) if store is not None else None

    def startup() -> None:
        if follower is not None:  # the bucket's published snapshot, copied here before the first load
            follower.sync_logged()
            if watch:
                follower.start(api.store_poll_s)
        if watch:
            holder.start(api.reload_interval)
        else:
            holder.refresh()

    def shutdown() -> None:
        if follower is not None:
            follower.stop()

    openapi = OpenAPIConfig(
        title="lakerag", version="1", description=DESCRIPTION, path="/schema",
        render_plugins=[JsonRenderPlugin(), YamlRenderPlugin()],
        components=Components(security_schemes={"apiKey": SecurityScheme(
            type="apiKey", name="X-API-Key", security_scheme_in="header",
            description="API key mapped to access groups; optional (public documents only without one)")}),
        security=[{}, {"apiKey": []}], use_handler_docstrings=False)
    app = ObservedApp(
        route_handlers=[QueryController, DocumentController, CatalogController, OpsController, AdminController, page,
                        static_router()],
        dependencies={"service": Provide(_service, sync_to_thread=False),
                      "caller": Provide(_caller, sync_to_thread=False)},
        exception_handlers={Exception: handle},
        before_request=require_json,
        openapi_config=openapi,
        on_startup=[startup], on_shutdown=[shutdown, holder.stop, holder.encoder.close],
        state=State({"service": service, "access": access, "metrics": Metrics(), "api": api,
                     "home": settings.home}),
        logging_config=None,  # logging belongs to the process (``lakerag serve`` sets it up)
        debug=False,
    )
    reject_unknown_fields(app.openapi_schema)
    return app
