"""Catalog search over HTTP and as the plain function the multi-step mode calls: BM25 over title, summary and
tags within the filters, the metadata-only question in a stable order, and filters said in the answer."""

from __future__ import annotations

from tests.fixtures.api import AS_OF


def _catalog(api, key: str | None = None, **params) -> dict:
    response = api.client.get("/v1/catalog", params={"as_of": AS_OF, **params}, headers=api.key(key))
    assert response.status_code == 200, response.text
    return response.json()


def test_search_ranks_by_title_summary_and_tags(api):
    page = _catalog(api, q="higienização das mãos")
    top = page["items"][0]
    assert top["title"].startswith("POP-ENF-014") and top["score"] > 0
    assert top["summary"].startswith("Padronizar a técnica") and top["tags"] and "mãos" in top["tags"]
    assert "POP-ENF-014" in top["entities"] and top["metadata_source"] == "rules"
    assert [i["score"] for i in page["items"]] == sorted((i["score"] for i in page["items"]), reverse=True)


def test_metadata_only_question_returns_the_filtered_list_in_a_stable_order(api):
    plain = _catalog(api)
    for q in ("", "quais documentos?", "?!"):
        page = _catalog(api, q=q)
        assert [i["document_id"] for i in page["items"]] == [i["document_id"] for i in plain["items"]]
        assert page["total"] == plain["total"] and all(i["score"] is None for i in page["items"])
    owner = _catalog(api, q="documentos da Dra. Helena Prado Vasconcelos")
    assert owner["query"]["approver"] == "Dra. Helena Prado Vasconcelos" and owner["total"] >= 2
    assert all(i["approver"] == "Dra. Helena Prado Vasconcelos" and i["score"] is None for i in owner["items"])
    assert owner == _catalog(api, q="documentos da Dra. Helena Prado Vasconcelos")


def test_search_keeps_filters_and_permissions(api):
    pops = _catalog(api, q="limpeza", doc_type=["pop"])
    assert pops["items"] and all(i["doc_type"] == "pop" for i in pops["items"])
    assert not any("Faixas Salariais" in i["title"] for i in _catalog(api, q="faixas salariais")["items"])
    assert "Faixas Salariais" in _catalog(api, "k-rh", q="faixas salariais")["items"][0]["title"]


def test_search_function_for_the_agentic_mode_says_the_owner(api):
    from serving.answers.catalog import CatalogQuery
    from serving.answers.catalog_search import item_text, search_catalog

    catalog = api.holder.require().catalog
    items, total, query = search_catalog(catalog, "higienização", frozenset({"public"}),
                                         CatalogQuery(responsible="Patrícia Souza Ramos"))
    assert total == len(items) == 1 and query.responsible == "Patrícia Souza Ramos"
    text = item_text(items[0])
    assert "responsável: Enf. Patrícia Souza Ramos" in text and "tipo: pop" in text and "Padronizar" in text


def test_a_listing_filtered_by_type_says_the_type(api):
    body = api.client.post("/v1/query", json={"question": "Quais instruções de trabalho existem?",
                                              "as_of": AS_OF}, headers=api.key("k-juridico")).json()
    assert body["mode_used"] == "catalog" and body["status"] == "answered"
    assert body["answer"].rstrip().endswith("(Filtros: tipo: instrucao_trabalho)")
