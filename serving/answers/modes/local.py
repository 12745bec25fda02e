"""``local``: the entities named in (or closest to) the question, their neighbourhood, relations and source chunks."""

from __future__ import annotations

from serving.answers.modes.base import GraphMode, ModeRequest, retrieval_filters
from serving.graph import GraphSearcher, SearchResult


class Local(GraphMode):
    name = "local"

    def search(self, searcher: GraphSearcher, request: ModeRequest) -> SearchResult:
        return searcher.local(request.question, request.groups, retrieval_filters(request.filters), request.top_k,
                              query_vector=request.vector)
