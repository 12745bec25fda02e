"""Query-time global themes on the sample corpus over HTTP: a question that names a document type is answered
from that type, a question whose themes quote fewer than three documents gets the best other ones, and a
question about a kind of value quotes it without the other values of the same sentence."""

from __future__ import annotations


def _ask(api, question, key="k-all"):
    response = api.client.post("/v1/query", json={"question": question, "mode": "global"}, headers=api.key(key))
    assert response.status_code == 200, response.text
    return response.json()


def test_a_named_document_type_keeps_the_themes_to_it(api):
    body = _ask(api, "Que metas acompanham os protocolos clínicos?")
    types = {c["doc_type"] for c in body["citations"]}
    assert types == {"protocolo"} and len({c["document_id"] for c in body["citations"]}) >= 3


def test_an_english_question_about_suppliers_quotes_three_documents_or_more(api):
    body = _ask(api, "Which security rules must suppliers follow according to the organisation's documents?")
    cited = [c["document_id"] for c in body["citations"]]
    assert len(set(cited)) >= 3 and None not in cited


def test_a_question_about_monthly_values_quotes_the_value_not_the_total(api):
    body = _ask(api, "Que valores mensais os contratos estabelecem?", key="k-juridico")
    assert "R$ 104.000,00" in body["answer"] and "R$ 3.744.000,00" not in body["answer"]
