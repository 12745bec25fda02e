"""The image of a cited page, for the analysts' page: served only when the caller may read that page (its groups
in the snapshot's ``pages`` table), rendered from the document's stored bytes as the pages stage saw it."""

from __future__ import annotations

from lakehouse.paths import LakePaths
from models.page_images import PageRenderError, render_page_png
from serving.answers.access import Caller
from serving.answers.engine import Engine
from serving.answers.errors import NotFound

_NOT_FOUND = "page not found (or not readable with this key)"


def page_image(engine: Engine, paths: LakePaths, document_id: str, page: int, caller: Caller) -> bytes:
    """PNG bytes of page ``page`` (1-based) of ``document_id``; NotFound when the snapshot has no such page
    image or the caller may not read it (the two look the same)."""
    index = engine.pages.index if engine.pages is not None else None
    row = index.find(document_id, page) if index is not None else None
    if index is None or row is None or not index.group_sets[row] & caller.effective:
        raise NotFound(_NOT_FOUND)
    blob = paths.blob(index.content_hashes[row])
    if not blob.exists():
        raise NotFound(_NOT_FOUND)
    try:
        return render_page_png(blob, page, index.dpi)
    except PageRenderError as exc:
        raise NotFound(_NOT_FOUND) from exc
