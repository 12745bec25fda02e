"""The sparse stage records the index's language shares, and a search's trace names the language its BM25 side
read the question in: an undecided short question follows the (Portuguese) index, a decided one keeps its own."""

from __future__ import annotations

from serving.search import RetrievalConfig
from serving.search.service import search_home


def test_the_index_records_its_language_shares(indexed) -> None:
    _, retriever = indexed
    assert retriever.index.sparse.languages == {"pt": 1.0}  # every chunk of the fixture corpus is Portuguese


def test_the_trace_names_the_analysis_language(indexed) -> None:
    settings, retriever = indexed
    bm25 = RetrievalConfig(method="bm25")
    retriever.search("backup firewall", {"public"}, config=bm25)  # no marker word, no diacritic
    assert retriever.trace.analysis_languages == ("pt",)
    retriever.search("What is the notice period for security incidents?", {"public"}, config=bm25)
    assert retriever.trace.analysis_languages == ("en",)  # English marker words decide it
    retriever.search("backup firewall", {"public"}, config=RetrievalConfig(method="dense"))
    assert retriever.trace.analysis_languages == ()  # no BM25 side, nothing analysed
    _, _, trace = search_home(settings, "Política de Segurança", {"public"}, method="bm25")
    assert trace.analysis_languages == ("pt",)
