"""The HTTP API (Litestar): ``create_app`` builds it, ``serve`` runs it under uvicorn on 127.0.0.1."""

from serving.api.app import create_app
from serving.api.server import serve

__all__ = ["create_app", "serve"]
