"""The OpenAPI document says what the server enforces: request bodies are msgspec Structs with
``forbid_unknown_fields``, so their schemas get ``additionalProperties: false`` (Litestar does not derive it)."""

from __future__ import annotations

import msgspec
from litestar.openapi.spec import OpenAPI


def _strict_structs() -> set[str]:
    found: set[str] = set()
    todo = list(msgspec.Struct.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__struct_config__.forbid_unknown_fields:
            found.add(cls.__name__)
    return found


def reject_unknown_fields(document: OpenAPI) -> OpenAPI:
    """Mark every component schema of a Struct that refuses unknown fields (before the document is served)."""
    strict = _strict_structs()
    for name, schema in (document.components.schemas or {}).items() if document.components else []:
        if name in strict and hasattr(schema, "additional_properties"):
            schema.additional_properties = False
    return document
