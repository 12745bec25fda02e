"""Retrieval over a built index: dense + BM25 candidates, fusion, optional reranking, filters and
permissions applied before ranking. No web framework here; the API and `lakerag search` call it."""

from serving.search.index import SearchIndex
from serving.search.retriever import Filters, Hit, RetrievalConfig, Retriever, SearchTrace

__all__ = ["Filters", "Hit", "RetrievalConfig", "Retriever", "SearchIndex", "SearchTrace"]
