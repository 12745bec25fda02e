"""Answers with validated citations over a published snapshot: retrieval in every mode, catalog questions,
extractive or LLM answers, built-in refusals, API-key access and hot snapshot reload. No web framework here;
``serving.api`` serves it over HTTP and ``lakerag query`` from the shell."""

from serving.answers.access import Access, Caller
from serving.answers.catalog import Catalog, CatalogQuery
from serving.answers.engine import Engine, SnapshotRefused, load_engine
from serving.answers.errors import (
    AnswerError,
    InvalidRequest,
    ModeUnavailable,
    NotFound,
    NotReady,
    Unauthorized,
)
from serving.answers.reloader import SnapshotHolder
from serving.answers.service import AnswerService
from serving.answers.types import Answer, QueryRequest, SearchRequest

__all__ = ["Access", "Answer", "AnswerError", "AnswerService", "Caller", "Catalog", "CatalogQuery", "Engine",
           "InvalidRequest", "ModeUnavailable", "NotFound", "NotReady", "QueryRequest", "SearchRequest",
           "SnapshotHolder", "SnapshotRefused", "Unauthorized", "load_engine"]
