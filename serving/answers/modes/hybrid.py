"""``hybrid``: chunk retrieval fused with the graph's local and bridge (second-hop) chunks."""

from __future__ import annotations

from serving.answers.modes.base import GraphMode, ModeRequest, retrieval_filters
from serving.graph import GraphSearcher, SearchResult


class Hybrid(GraphMode):
    name = "hybrid"

    def search(self, searcher: GraphSearcher, request: ModeRequest) -> SearchResult:
        return searcher.hybrid(request.question, request.groups, retrieval_filters(request.filters), request.top_k,
                              query_vector=request.vector)
