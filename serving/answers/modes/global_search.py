"""``global``: the caller's fully readable community reports of one level, ranked against the question and
summarised (map-reduce with 0-100 ratings when an LLM is configured)."""

from __future__ import annotations

from serving.answers.modes.base import GraphMode, ModeRequest, Retrieved
from serving.graph import GraphSearcher, SearchResult


class Global(GraphMode):
    name = "global"

    def search(self, searcher: GraphSearcher, request: ModeRequest) -> SearchResult:
        return searcher.global_search(request.question, request.groups, level=request.level,
                                      query_vector=request.vector)

    def finish(self, out: Retrieved, request: ModeRequest, result: SearchResult) -> None:
        if request.filters is not None and not request.filters.is_empty():
            out.warnings.append("filters do not apply to global search (community reports span documents)")
        if result.answer and result.evidence:
            out.graph_answer = result.answer
