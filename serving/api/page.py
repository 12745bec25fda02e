"""``GET /``: the analysts' page (question box, mode selector, cited answers, catalog), local assets only."""

from __future__ import annotations

from pathlib import Path

from litestar import MediaType, Router, get
from litestar.static_files import create_static_files_router

STATIC = Path(__file__).resolve().parent / "static"


@get("/", operation_id="page", include_in_schema=False, media_type=MediaType.HTML, sync_to_thread=False)
def page() -> str:
    return (STATIC / "index.html").read_text(encoding="utf-8")


def static_router() -> Router:
    return create_static_files_router(path="/static", directories=[STATIC], include_in_schema=False)
