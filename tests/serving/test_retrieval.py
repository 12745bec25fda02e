"""Hybrid retrieval as a caller sees it: exact codes, Portuguese analysis, permissions before ranking, filters."""

from __future__ import annotations

from datetime import date

import pytest

from serving.search import Filters, RetrievalConfig
from serving.search.retriever import SearchError

METHODS = [RetrievalConfig(method="bm25"), RetrievalConfig(method="dense"), RetrievalConfig(fusion="rrf"),
           RetrievalConfig(fusion="weighted", dense_weight=0.5)]
EVERYONE = {"juridico", "rh"}


def _paths(hits) -> list[str]:
    return [h.path for h in hits]


@pytest.mark.parametrize("config", [METHODS[0], METHODS[2], METHODS[3]], ids=["bm25", "rrf", "weighted"])
def test_contract_codes_match_exactly(indexed, config):
    _, retriever = indexed
    for code, other in (("CT-2024-0187", "CT-2024-0178"), ("CT-2024-0178", "CT-2024-0187")):
        hits = retriever.search(f"contrato {code}", EVERYONE, top_k=5, config=config)
        assert hits[0].path == f"Contratos/{code}.md"
        if config.method == "bm25":
            other_hits = [h for h in hits if h.path == f"Contratos/{other}.md"]
            assert not other_hits or other_hits[0].score < 0.6 * hits[0].score  # shares only "ct", "2024"


def test_accents_and_stemming_do_not_matter(indexed):
    _, retriever = indexed
    for query in ("notificacao de incidentes criptografia", "NOTIFICAÇÕES DE INCIDENTE CRIPTOGRÁFICO"):
        hits = retriever.search(query, EVERYONE, top_k=3, config=METHODS[0])
        assert hits[0].path == "Políticas/Política de Segurança.md"


@pytest.mark.parametrize("config", METHODS, ids=["bm25", "dense", "rrf", "weighted"])
def test_restricted_chunks_are_never_candidates(indexed, config):
    _, retriever = indexed
    query = "faixa salarial do analista sênior de segurança da informação R$ 14.000"
    with_group = retriever.search(query, {"rh"}, top_k=3, config=config)
    assert with_group[0].path == "RH/Faixas salariais.md"  # it is the best match for this query
    for groups in (set(), {"public"}, {"juridico"}, None):
        hits = retriever.search(query, groups, top_k=1000, config=config)
        assert all(not h.path.startswith("RH/") for h in hits)
        assert all(not h.path.startswith("Contratos/") for h in hits) or groups == {"juridico"}


def test_chunks_without_groups_are_readable_by_nobody(indexed):
    _, retriever = indexed
    for groups in (set(), {"rh", "juridico", "diretoria", "public"}):
        hits = retriever.search("combinação do cofre segredo operacional", groups, top_k=1000)
        assert "Sem grupo/orfao.md" not in _paths(hits)


def test_metadata_filters_apply_before_ranking(indexed):
    _, retriever = indexed
    query = "notificar incidentes de segurança"
    only_contracts = retriever.search(query, EVERYONE, filters=Filters(doc_types=("contrato",)), top_k=50)
    assert only_contracts and {h.doc_type for h in only_contracts} == {"contrato"}
    by_department = retriever.search(query, EVERYONE, filters=Filters(departments=("financeiro",)), top_k=50)
    assert set(_paths(by_department)) == {"Políticas/Política de Viagens.md"}
    by_prefix = retriever.search(query, EVERYONE, filters=Filters(path_prefix="Políticas/"), top_k=50)
    assert {p.split("/")[0] for p in _paths(by_prefix)} == {"Políticas"}
    due = retriever.search(query, EVERYONE, top_k=50,
                           filters=Filters(review_from=date(2026, 11, 29), review_to=date(2026, 12, 31)))
    assert set(_paths(due)) == {"Políticas/Política de Segurança.md"}
    issued_2024 = retriever.search(query, EVERYONE, top_k=50,
                                   filters=Filters(issued_from=date(2024, 1, 1), issued_to=date(2024, 12, 31)))
    assert set(_paths(issued_2024)) == {"Contratos/CT-2024-0187.md", "Contratos/CT-2024-0178.md"}
    assert retriever.search(query, set(), filters=Filters(doc_types=("contrato",)), top_k=50) == []


def test_hits_carry_what_a_citation_needs(indexed):
    settings, retriever = indexed
    hit = retriever.search("prestação de contas da viagem", EVERYONE, top_k=1)[0]
    assert hit.path == "Políticas/Política de Viagens.md"
    assert hit.title == "Política de Reembolso de Despesas de Viagem"
    assert hit.heading_path[-1] == "6. Prestação de contas"
    assert hit.chunk_id.startswith("chk_") and hit.document_id.startswith("doc_")
    assert set(hit.scores) >= {"dense", "bm25", "fused"}
    assert hit.snapshot_id.startswith("snap_")  # the published snapshot the answer came from
    assert hit.text.startswith("[Política de Reembolso de Despesas de Viagem")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"query": "  "}, "query must not be empty"),
    ({"query": "x", "top_k": 0}, "top_k must be between 1 and 1000"),
])
def test_bad_requests_name_the_parameter(indexed, kwargs, message):
    _, retriever = indexed
    with pytest.raises(SearchError, match=message):
        retriever.search(**kwargs)


def test_bad_configuration_names_the_parameter():
    with pytest.raises(SearchError, match="method must be one of"):
        RetrievalConfig(method="magic")


def test_bm25_weighs_in_proportion_to_the_index_share_of_the_query_language(indexed):
    from serving.search import languages
    _, retriever = indexed
    shares = retriever.index.language_shares
    assert shares.get("pt", 0) > 0.5 > shares.get("en", 0)  # a mostly Portuguese corpus
    config = RetrievalConfig(fusion="weighted", dense_weight=0.5, by_language=True)
    retriever.search("prazo de notificação de incidentes de segurança", EVERYONE, top_k=3, config=config)
    pt = retriever.timings["dense_weight"]
    retriever.search("How quickly must security incidents be reported?", EVERYONE, top_k=3, config=config)
    en = retriever.timings["dense_weight"]
    # BM25 can only meet the few chunks written in English: the encoder, which reads every chunk, weighs more
    assert 0.5 <= pt < en <= 1.0
    assert en == pytest.approx(languages.dense_weight(0.5, shares.get("en", 0.0)))
    retriever.search("How quickly must security incidents be reported?", EVERYONE, top_k=3,
                     config=RetrievalConfig(fusion="weighted", dense_weight=0.5))
    assert "dense_weight" not in retriever.timings  # by default the configured weight, unchanged


def test_language_shares_of_an_index_are_read_from_its_chunks():
    from serving.search import languages
    texts = ["O prazo de notificação é de 24 horas."] * 3 + ["The notice period is 24 hours."]
    assert languages.shares(texts) == {"pt": 0.75, "en": 0.25}
    assert languages.shares([]) == {}
    assert languages.dense_weight(0.5, 1.0) == 0.5 and languages.dense_weight(0.5, 0.0) == 1.0
    # a code is matched by BM25 in any language: the configured weight stays
    assert languages.dense_weight(0.5, 0.0, "Who manages contract CT-2024-0215?") == 0.5
    assert languages.dense_weight(0.5, 0.0, "What does POP-ENF-014 say about gloves?") == 0.5
