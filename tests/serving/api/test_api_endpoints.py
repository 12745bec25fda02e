"""Every endpoint over HTTP: answers, search, documents, catalog, operations, OpenAPI, malformed input."""

from __future__ import annotations

import logging

import pytest

from tests.fixtures.api import AS_OF, TRAVEL, sse_events


def test_health_ready_and_metrics(api):
    assert api.client.get("/health").json() == {"status": "ok"}
    ready = api.client.get("/ready").json()
    assert ready["ready"] and ready["snapshot_id"].startswith("snap_") and ready["chunks"] > 100
    api.client.post("/v1/query", json={"question": TRAVEL})
    metrics = api.client.get("/metrics")
    assert metrics.headers["content-type"].startswith("text/plain")
    text = metrics.text
    assert 'lakerag_requests_total{method="POST",route="/v1/query",status="200"}' in text
    assert 'lakerag_request_duration_seconds_bucket{route="/v1/query",le="+Inf"}' in text
    assert 'lakerag_answers_total{mode="basic",status="answered"}' in text
    assert f'lakerag_snapshot_info{{snapshot_id="{ready["snapshot_id"]}"}} 1' in text
    assert "lakerag_ready 1" in text


def test_openapi_has_explicit_operation_ids(api):
    schema = api.client.get("/schema/openapi.json").json()
    ids = {op["operationId"] for path in schema["paths"].values() for op in path.values() if "operationId" in op}
    assert {"query", "queryStream", "search", "getDocument", "listDocumentSections", "getDocumentSection",
            "getCatalog", "health", "ready", "metrics"} <= ids
    assert "/" not in schema["paths"]  # the page is not part of the API
    assert schema["components"]["securitySchemes"]["apiKey"]["name"] == "X-API-Key"


def test_basic_answer_cites_the_right_passage(api):
    body = api.client.post("/v1/query", json={"question": TRAVEL, "mode": "basic"}).json()
    assert body["status"] == "answered" and body["mode_used"] == "basic" and body["generator"] == "extractive"
    assert "10" in body["answer"] and "dias úteis" in body["answer"]
    assert body["citations"], body
    numbered = {e["n"]: e for e in body["evidence"] if e["n"] is not None}
    for c in body["citations"]:
        assert f"[{c['n']}]" in body["answer"]
        assert numbered[c["n"]]["id"] == c["id"] and c["kind"] == "chunk" and c["path"] and c["title"]
    assert any(c["document_id"] == "doc_38308c17692dfe73" for c in body["citations"])  # the current policy
    assert body["timings"]["total_ms"] > 0 and body["snapshot_id"].startswith("snap_")
    for line in body["answer"].splitlines():  # every extractive sentence is followed by its citation
        assert line.rstrip().endswith("]")


def test_citation_metadata_includes_owners(api):
    body = api.client.post("/v1/query", json={"question": TRAVEL,
                                              "filters": {"departments": ["Financeiro"]}}).json()
    assert body["status"] == "answered"
    assert body["answer"].startswith("Filtros aplicados: departamento = Financeiro.")
    meta = [c["metadata"] for c in body["citations"]]
    assert all(m["department"] == "Financeiro" and m["responsible"] for m in meta)


def test_refusal_is_fixed_and_suggests_owners(api):
    body = api.client.post("/v1/query",
                           json={"question": "Quantos leitos de UTI pediátrica o hospital possui?"}).json()
    assert body["status"] == "not_found"
    assert body["answer"] == "Não encontrei essa informação nos documentos disponíveis."
    assert body["citations"] == [] and body["suggestions"]
    assert all(s["title"] and s["path"] for s in body["suggestions"])
    english = api.client.post("/v1/query", json={
        "question": "What is the hospital's policy on staff use of generative AI tools such as chatbots?"}).json()
    assert english["status"] == "not_found" and english["language"] == "en"
    assert english["answer"] == "I could not find this information in the available documents."


def test_unknown_code_is_refused(api):
    body = api.client.post("/v1/query", json={
        "question": "Qual o prazo de notificação de incidentes previsto no contrato CT-2024-0817?"},
        headers=api.key("k-juridico")).json()
    assert body["status"] == "not_found"
    assert any("CT-2024-0817" in w for w in body["warnings"])


def test_a_version_the_policy_does_not_have_is_refused_with_the_versions_there_are(api):
    body = api.client.post("/v1/query", json={
        "question": "Na versão 5 da política de reembolso de despesas de viagem, qual era o prazo para prestar "
                    "contas?"}).json()
    assert body["status"] == "not_found" and "10 (dez) dias" not in body["answer"]
    assert "Versões disponíveis:" in body["answer"]
    assert "Viagem v2" in body["answer"] and "Viagem v3" in body["answer"]
    # a version it has is answered from that version
    v2 = api.client.post("/v1/query", json={
        "question": "Na versão 2 da política de reembolso de despesas de viagem, qual era o prazo para prestar "
                    "contas?"}).json()
    assert v2["status"] == "answered" and "30 (trinta) dias" in v2["answer"]


def test_auto_routes_catalog_questions(api):
    body = api.client.post("/v1/query", json={"question": "Quais documentos vencem nos próximos 30 dias?",
                                              "as_of": AS_OF}).json()
    assert body["mode_used"] == "catalog" and body["status"] == "answered" and body["generator"] == "catalog"
    titles = [c["title"] for c in body["citations"]]
    assert len(titles) == 5 and titles[0].startswith("POP-ENF-014")
    assert all(c["kind"] == "document" for c in body["citations"])
    assert "Enf. Juliana Mendes Carvalho" in body["answer"]  # owners shown in the listing


@pytest.mark.parametrize("question, said, unsaid", [
    ("quem fez e quem aprovou o POP de higiene das mãos? e qdo vence a revisao?",
     ["Enf. Patrícia Souza Ramos", "Enf. Juliana Mendes Carvalho", "05/12/2026"], ["05/12/2024"]),
    # a Portuguese question, with a typo, about an English document
    ("Quando vence a revisão do Data Retention Standart e quem elaborou?", ["01/03/2027", "Vanessa Duarte Lins"],
     ["2025"]),
    ("What is the current version of the Third-Party Information Security Policy and when was it last revised?",
     ["version: 3", "2025-05-22"], ["2027"]),
    # what a document is about: its title and summary
    ("oq é o IT-TI-021?", ["Acessos a Sistemas", "menor privilégio"], ["próxima revisão"]),
    # of two versions, the current one answers
    ("quem aprovou a política de reembolso de despesas de viagem?", ["Eduardo Vieira Gomes"],
     ["Marcos Antônio Ribeiro"]),
])
def test_a_named_documents_governance_fields_come_from_its_catalog_row(api, question, said, unsaid):
    body = api.client.post("/v1/query", json={"question": question, "as_of": AS_OF}).json()
    assert body["mode_used"] == "catalog" and body["status"] == "answered"
    assert len(body["citations"]) == 1 and body["citations"][0]["kind"] == "document"
    assert all(s in body["answer"] for s in said) and not any(u in body["answer"] for u in unsaid)


def test_a_card_is_only_about_documents_the_caller_may_read(api):
    question = {"question": "quem aprovou a política de banco de horas?", "as_of": AS_OF}
    anonymous = api.client.post("/v1/query", json=question).json()
    assert anonymous["mode_used"] != "catalog"
    assert not any("Banco de Horas" in c["title"] for c in anonymous["citations"])
    rh = api.client.post("/v1/query", json=question, headers=api.key("k-rh")).json()
    assert rh["mode_used"] == "catalog" and "Eduardo Vieira Gomes" in rh["answer"]
    assert [c["title"] for c in rh["citations"]] == ["Política de Banco de Horas"]


def test_catalog_endpoint(api):
    page = api.client.get("/v1/catalog", params={"due_within_days": 30, "as_of": AS_OF}).json()
    assert page["total"] == 5 and {i["review_status"] for i in page["items"]} == {"due_soon"}
    overdue = api.client.get("/v1/catalog", params={"outdated": "true", "as_of": AS_OF}).json()
    assert all(i["review_status"] == "overdue" for i in overdue["items"]) and overdue["total"] >= 6
    by_question = api.client.get("/v1/catalog", params={
        "question": "Quais documentos foram aprovados pela Dra. Helena Prado Vasconcelos?", "as_of": AS_OF}).json()
    assert by_question["total"] == 9
    assert {i["approver"] for i in by_question["items"]} == {"Dra. Helena Prado Vasconcelos"}
    dept = api.client.get("/v1/catalog", params={"department": "tecnologia da informacao"}).json()
    assert dept["total"] == 3
    assert api.client.get("/v1/catalog", params={"question": "qual a capital da França?"}).status_code == 400
    # a month's window and one document's card, asked as questions, filter as they do in /v1/query
    year = api.client.get("/v1/catalog", params={"question": "quais documentos vencem este ano?",
                                                 "as_of": AS_OF}).json()
    assert year["total"] == 5 and all(AS_OF <= i["next_review_date"] <= "2026-12-31" for i in year["items"])
    card = api.client.get("/v1/catalog", params={"question": "quem aprovou o POP de higiene das mãos?"}).json()
    assert [i["title"] for i in card["items"]] == ["POP-ENF-014 - Higienização das Mãos"]
    # a calendar year, as a parameter or in a question; a year out of range is the client's mistake
    in_2027 = api.client.get("/v1/catalog", params={"due_year": 2027}).json()
    assert in_2027["total"] >= 1 and all(i["next_review_date"].startswith("2027-") for i in in_2027["items"])
    asked = api.client.get("/v1/catalog", params={"question": "quais políticas vencem em 2027?"}).json()
    assert 1 <= asked["total"] <= in_2027["total"]
    assert all(i["next_review_date"].startswith("2027-") and i["doc_type"] == "politica" for i in asked["items"])
    bad = api.client.get("/v1/catalog", params={"due_year": 3000})
    assert bad.status_code == 400 and "due_year" in bad.text


def test_a_plain_listing_of_a_type_or_a_department_is_a_catalog_listing(api):
    # asked as employees ask it, with nothing else to search for: the router alone sent these to the themes
    pops = api.client.get("/v1/catalog", params={"doc_type": "pop"}).json()
    listed = api.client.post("/v1/query", json={"question": "lista de todos os POPs"}).json()
    assert listed["mode_used"] == "catalog" and pops["total"] >= 2
    assert {c["title"] for c in listed["citations"]} == {i["title"] for i in pops["items"]}
    nursing = api.client.post("/v1/query", json={"question": "quais são os POPs da enfermagem?"}).json()
    assert nursing["mode_used"] == "catalog" and nursing["citations"]
    assert all(c["title"].startswith("POP-ENF") for c in nursing["citations"])
    english = api.client.post("/v1/query", json={"question": "list all the policies"}).json()
    assert english["mode_used"] == "catalog" and english["citations"]
    # a listing that names something to look for is a search
    sepsis = api.client.post("/v1/query", json={"question": "quais são os protocolos de sepse?"}).json()
    assert sepsis["mode_used"] != "catalog"


def test_a_yes_or_no_comparison_gets_its_verdict_first(api):
    # the Data Retention Standard was approved by Eduardo Vieira Gomes: its whole document says so
    body = api.client.post("/v1/query", json={
        "question": "Are the IT Acceptable Use Policy and the Data Retention Standard both approved by Dr. Roberto "
                    "Almeida Queiroz?", "mode": "basic"}).json()
    first = body["answer"].split("\n")[0]
    assert first.startswith("No: the documents say") and "of IT Acceptable Use Policy [" in first
    assert "but not of Data Retention Standard [" in first
    cited = {c["title"] for c in body["citations"]}
    assert {"IT Acceptable Use Policy", "Data Retention Standard"} <= cited


def test_an_english_question_is_answered_from_a_portuguese_document(api):
    # the number of beds is written only in the Portuguese employee handbook ("com 280 leitos"): the question's
    # words reach it through the pt-en glossary, in retrieval (the English documents' BM25 matches fill the
    # ranking) and in grading
    body = api.client.post("/v1/query", json={"question": "How many beds does the hospital have?",
                                              "mode": "basic"}).json()
    assert body["status"] == "answered" and "280 leitos" in body["answer"], body["answer"]
    assert "Manual do Colaborador" in {c["title"] for c in body["citations"]}


def test_search_endpoint(api):
    body = api.client.post("/v1/search", json={"question": "contrato CT-2024-0203 valor mensal", "top_k": 3},
                           headers=api.key("k-juridico")).json()
    assert len(body["hits"]) == 3 and any(h["path"].startswith("Contratos/CT-2024-0203") for h in body["hits"])
    public = api.client.post("/v1/search", json={"question": "contrato CT-2024-0203 valor mensal"}).json()
    assert all(not h["path"].startswith("Contratos/") for h in public["hits"])
    bm25 = api.client.post("/v1/search", json={"question": "higienização das mãos", "method": "bm25"}).json()
    assert bm25["hits"][0]["scores"]["bm25"] > 0
    assert bm25["analysis_languages"] == ["pt"]  # the language BM25 read the query in
    dense = api.client.post("/v1/search", json={"question": "higienização das mãos", "method": "dense"}).json()
    assert dense["analysis_languages"] == []


def test_documents_and_sections(api):
    answer = api.client.post("/v1/query", json={"question": TRAVEL}).json()
    cited = answer["citations"][0]
    doc = api.client.get(f"/v1/documents/{cited['document_id']}").json()
    assert doc["title"] and doc["sections"] and isinstance(doc["metadata"], dict)
    section = api.client.get(f"/v1/documents/{cited['document_id']}/sections/{cited['id']}").json()
    assert section["chunk_id"] == cited["id"] and section["text"]
    sections = api.client.get(f"/v1/documents/{cited['document_id']}/sections").json()
    assert [s["chunk_id"] for s in sections["sections"]] == [s["chunk_id"] for s in doc["sections"]]
    assert api.client.get("/v1/documents/doc_does_not_exist").status_code == 404
    assert api.client.get(f"/v1/documents/{cited['document_id']}/sections/chk_nope").status_code == 404


def test_restricted_documents_look_absent(api):
    salary = "doc_5afb4061de9115b1"  # RH/Tabela de Faixas Salariais 2025.pdf
    hidden = api.client.get(f"/v1/documents/{salary}")
    missing = api.client.get("/v1/documents/doc_0000000000000000")
    assert hidden.status_code == missing.status_code == 404 and hidden.json()["detail"] == missing.json()["detail"]
    assert api.client.get(f"/v1/documents/{salary}", headers=api.key("k-rh")).status_code == 200


@pytest.mark.parametrize("body, field", [
    ({"question": ""}, "question"),
    ({"question": "   "}, "question"),
    ({}, "question"),
    ({"question": "x" * 2001}, "question"),
    ({"question": "ok", "mode": "magic"}, "mode"),
    ({"question": "ok", "top_k": 0}, "top_k"),
    ({"question": "ok", "top_k": "many"}, "top_k"),
    ({"question": "ok", "unknown": 1}, "unknown"),
    ({"question": "ok", "filters": {"issued_from": "2025-02-01", "issued_to": "2024-01-01"}}, "filters"),
    ({"question": "ok", "filters": {"issued_from": "yesterday"}}, "issued_from"),
    ({"question": "ok", "community_level": -1}, "community_level"),
    ({"question": "quem é o presidente?", "mode": "catalog"}, "mode"),
])
def test_malformed_queries_are_clear_400s(api, body, field):
    response = api.client.post("/v1/query", json=body)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["error"] == "invalid_request" and error["detail"]
    assert field in response.text


def test_malformed_bodies_and_paths(api):
    assert api.client.post("/v1/query", content=b"not json",
                           headers={"content-type": "application/json"}).status_code == 400
    assert api.client.post("/v1/query", content=b"[1, 2]",
                           headers={"content-type": "application/json"}).status_code == 400
    assert api.client.get("/v1/catalog", params={"limit": 0}).status_code == 400
    assert api.client.get("/v1/catalog", params={"as_of": "29/11/2026"}).status_code == 400
    assert api.client.get("/v1/documents/" + "x" * 300).status_code in (400, 404)
    assert api.client.get("/v1/nothing-here").status_code == 404
    assert api.client.delete("/v1/query").status_code == 405


@pytest.mark.parametrize("depth", [999, 20_000])
def test_deeply_nested_bodies_are_a_clear_400(api, depth):
    body = '{"question": ' + "[" * depth + "]" * depth + "}"
    response = api.client.post("/v1/query", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


def test_query_streams_when_the_client_accepts_event_streams(api):
    with api.client.stream("POST", "/v1/query", json={"question": TRAVEL},
                           headers={"accept": "text/event-stream"}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_lines())
    assert events[0][0] == "meta" and events[-1][0] == "done" and events[-1][1]["citations"]
    plain = api.client.post("/v1/query", json={"question": TRAVEL}, headers={"accept": "application/json"})
    assert plain.headers["content-type"].startswith("application/json") and plain.json()["citations"]


def test_protocol_details_a_client_relies_on(api):
    plain = api.client.post("/v1/query", content='{"question": "prazo de viagem"}',
                            headers={"content-type": "text/plain"})
    assert plain.status_code == 415 and "application/json" in plain.json()["detail"]
    wrong_method = api.client.delete("/v1/query")
    assert wrong_method.status_code == 405 and "POST" in wrong_method.headers["allow"]
    far = api.client.get("/v1/catalog", params={"due_within_days": 1, "as_of": "9999-12-31"})
    assert far.status_code == 200 and far.json()["total"] == 0  # date arithmetic cannot overflow into a 500


def test_keys_and_gateway_header(api, sample_home):
    unknown = api.client.post("/v1/query", json={"question": TRAVEL}, headers={"x-api-key": "wrong"})
    assert unknown.status_code == 401 and unknown.json()["error"] == "unauthorized"
    bearer = api.client.get("/v1/documents/doc_5afb4061de9115b1", headers={"authorization": "Bearer k-rh"})
    assert bearer.status_code == 200
    # the gateway header is ignored unless the gateway is trusted
    spoofed = api.client.get("/v1/documents/doc_5afb4061de9115b1", headers={"x-lakerag-groups": "rh"})
    assert spoofed.status_code == 404
    from tests.fixtures.api import serve, settings_for

    with serve(settings_for(sample_home), trust_gateway=True) as gated:
        assert gated.client.get("/v1/documents/doc_5afb4061de9115b1",
                                headers={"x-lakerag-groups": "rh"}).status_code == 200
        assert gated.client.get("/v1/documents/doc_5afb4061de9115b1").status_code == 404


def test_one_log_line_per_request_without_the_key(api):
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("lakerag.api")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        response = api.client.post("/v1/query", json={"question": TRAVEL}, headers={"x-api-key": "k-juridico",
                                                                                   "x-request-id": "req-42"})
    finally:
        logger.removeHandler(handler)
    assert response.headers["x-request-id"] == "req-42" and response.json()["request_id"] == "req-42"
    lines = [r.getMessage() for r in records if "req-42" in r.getMessage()]
    assert len(lines) == 1
    import json

    line = json.loads(lines[0])
    assert line["request_id"] == "req-42" and line["mode"] == "basic" and line["status"] == 200
    assert line["answer_status"] == "answered" and line["snapshot_id"].startswith("snap_")
    assert line["latency_ms"] > 0 and line["caller"] == "key1"
    assert "k-juridico" not in lines[0]


def test_stream_carries_citations(api):
    with api.client.stream("POST", "/v1/query/stream", json={"question": TRAVEL}) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_lines())
    names = [name for name, _ in events]
    assert names[0] == "meta" and names[-1] == "done" and "token" in names and "citation" in names
    done = events[-1][1]
    streamed = "".join(data["text"] for name, data in events if name == "token")
    assert " ".join(streamed.split()) == " ".join(done["answer"].split())
    assert {d["n"] for name, d in events if name == "citation"} == {c["n"] for c in done["citations"]}


def test_page_is_served_with_local_assets(api):
    page = api.client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/app.js" in page.text and "http" not in page.text.replace("http-equiv", "")
    assert api.client.get("/static/app.js").status_code == 200
