"""Query-time graph search: ``local``, ``global`` and ``hybrid`` modes (and ``basic`` chunk retrieval) over a
SearchIndex and the graph tables, with permission filtering before ranking and one ``SearchResult`` type."""

from serving.graph.errors import GraphNotReady, GraphSearchError
from serving.graph.graph_store import GraphStore
from serving.graph.searcher import GraphSearcher
from serving.graph.types import NOT_FOUND, Evidence, SearchResult

__all__ = ["NOT_FOUND", "Evidence", "GraphNotReady", "GraphSearchError", "GraphSearcher", "GraphStore",
           "SearchResult"]
