"""Query-time graph search: ``local``, ``global`` and ``hybrid`` modes (and ``basic`` chunk retrieval) over a
SearchIndex and the graph tables, with permission filtering before ranking and one ``SearchResult`` type."""

from graph_index.search.errors import GraphNotReady, GraphSearchError
from graph_index.search.graph_store import GraphStore
from graph_index.search.searcher import GraphSearcher
from graph_index.search.service import build_graph_searcher
from graph_index.search.types import NOT_FOUND, Evidence, SearchResult

__all__ = ["NOT_FOUND", "Evidence", "GraphNotReady", "GraphSearchError", "GraphSearcher", "GraphStore",
           "SearchResult", "build_graph_searcher"]
