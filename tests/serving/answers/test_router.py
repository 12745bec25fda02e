"""The fitted router and the document-type names it reads: what a user asking in other words would notice."""

from __future__ import annotations

import json
import os

import pytest

from serving.answers import router
from serving.answers.doctypes import DocTypes
from serving.answers.intent import route

TYPES = ["contrato", "pop", "politica", "protocolo", "protocolo_gerenciado", "instrucao_trabalho", "rh",
         "anexo_contratual", "ata"]
DEPARTMENTS = ["Enfermagem", "Tecnologia da Informação"]
PEOPLE = {"approver": ["Dra. Helena Prado Vasconcelos"], "responsible": ["Rafael Cardoso Dias"]}


def test_document_types_are_named_by_plural_synonym_and_folder():
    types = DocTypes.of(TYPES, {"instrucao_trabalho": ["Instruções de Trabalho"], "pop": ["POPs"]})
    assert types.named("Quais protocolos gerenciados existem?") == ("protocolo_gerenciado",)
    assert types.named("Which SOPs and policies cover hand hygiene?") == ("pop", "politica")
    assert types.named("O que dizem as Instruções de Trabalho?") == ("instrucao_trabalho",)
    assert types.named("O contrato atende a política?") == ("contrato", "politica")
    assert types.named("Qual é o prazo de 15 minutos?") == ()
    assert types.plural_named("nos contratos de 2024") and not types.plural_named("no contrato de 2024")
    assert types.normative[:2] == ("politica", "pop") and "contrato" not in types.normative


def test_a_folder_holding_two_types_names_neither():
    rows = [{"doc_type": "protocolo", "path": "Protocolos/A.pdf"},
            {"doc_type": "protocolo_gerenciado", "path": "Protocolos/B.pdf"},
            {"doc_type": "ata", "path": "Atas/2025/x.md"}]
    types = DocTypes.of_catalog(rows)
    assert types.names["protocolo"] == "protocolo" and types.names["ata"] == "ata"
    assert types.named("o que dizem as atas de 2025?") == ("ata",)


@pytest.mark.parametrize("question, expected", [
    ("Que documentos vencem nos próximos 10 dias?", "catalog"),
    ("quais docs tao com a revisao vencida", "catalog"),
    ("Pelos documentos de RH, quais prazos de férias aparecem?", "global"),
    ("Qual o valor mensal do contrato CT-2024-0215?", "basic"),
])
def test_lexical_routes_of_colloquial_forms(question, expected):
    assert route(question, True, DEPARTMENTS, PEOPLE, TYPES)[0] == expected


@pytest.mark.parametrize("question, agentic", [
    ("Quem fornece os uniformes e qual é o valor mensal do contrato dele?", True),
    ("Who is the records officer in the handbook, and within how many days are requests answered?", True),
    ("O prazo de notificação do Anexo III do CT-2024-0187 está de acordo com a Política de Segurança?", True),
    ("O contrato de hospedagem atende ao item 7.2 da política?", True),
    ("Does contract CT-2024-0187 comply with POL-SI-004?", True),
    ("Que controles o fornecedor que hospeda o prontuário assumiu?", True),
    ("Qual é o valor mensal do contrato de uniformes?", False),
    ("Qual o valor mensal do contrato CT-2024-0187?", False),
    ("Quem é o fornecedor que hospeda o prontuário eletrônico?", False),
    ("Would a supplier that notifies incidents within 72 hours be compliant?", False),
])
def test_compound_questions_go_to_agentic_without_an_encoder(question, agentic):
    """Formerly the compound() rule's cases; now the lexical head's (the BM25-only path)."""
    assert (route(question, True, DEPARTMENTS, PEOPLE, TYPES)[0] == "agentic") is agentic


@pytest.mark.model
@pytest.mark.parametrize("question, expected", [
    ("Which documents are overdue for review?", "catalog"),
    ("Que documentos são do departamento de Enfermagem?", "catalog"),
    ("What recurring risks appear across the 2024 contracts?", "global"),
    ("Does contract CT-2024-0187 meet the third-party information security policy?", "agentic"),
    ("What is the monthly value of contract CT-2024-0215?", "basic"),
])
def test_encoder_routes_english_and_reworded_forms(question, expected):
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from models.embedding import load_embedder

    embedder = load_embedder("e5-small")
    vector = embedder.embed_queries([question])[0]
    assert route(question, True, DEPARTMENTS, PEOPLE, TYPES, vector, embedder.model_id)[0] == expected


def test_a_model_file_fitted_for_other_signals_is_refused(tmp_path):
    data = json.loads(router.MODEL_FILE.read_text(encoding="utf-8"))
    data["signals"] = ["something_else"]
    path = tmp_path / "routing.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="routing_fit"):
        router.load(path)


def test_the_router_reads_the_question_in_the_language_the_answer_layer_read_it():
    # a short English query no word decides ("fava beans") is Portuguese to the detector's last fallback; over
    # an English index the answer layer reads it as English, and the router's signal follows that reading
    names = router.Names(DocTypes.of(TYPES))
    english = router.SIGNALS.index("english")
    assert router.signals("fava beans", names)[english] == 0.0
    assert router.signals("fava beans", names, "en")[english] == 1.0
    assert router.signals("Qual é o prazo?", names, "pt")[english] == 0.0


@pytest.mark.parametrize("question, catalog", [
    ("lista de todos os POPs", True),
    ("quais são os POPs da enfermagem?", True),
    ("quais docs são da TI?", True),
    ("how many managed protocols are there?", True),
    ("list all the policies", True),
    ("quais são os protocolos de sepse?", False),
    ("qual a política de reembolso?", False),
])
def test_a_question_asking_only_for_a_list_of_documents_is_a_listing(question, catalog):
    mode, query = route(question, True, DEPARTMENTS, PEOPLE, TYPES)
    assert (mode == "catalog") is catalog
    if catalog:
        assert query.doc_types or query.departments


def test_documents_of_a_department_due_in_a_period_are_a_listing():
    # a short department name needs no "departamento" when documents are said to be of it
    mode, query = route("tem algum documento da enfermagem vencendo esse mês?", True, DEPARTMENTS, PEOPLE, TYPES)
    assert mode == "catalog" and query.departments == ("Enfermagem",) and query.due_by == "month"


def test_a_department_named_in_the_other_language_names_the_catalogs_value():
    mode, query = route("which SOPs does nursing have?", True, DEPARTMENTS, PEOPLE, TYPES)
    assert mode == "catalog" and query.departments == ("Enfermagem",) and query.doc_types == ("pop",)
    mode, query = route("list the information technology documents", True, DEPARTMENTS, PEOPLE, TYPES)
    assert mode == "catalog" and query.departments == ("Tecnologia da Informação",)


def test_a_department_named_by_its_initials_in_either_language_names_both_languages_values():
    both = [*DEPARTMENTS, "Information Technology"]
    for question in ("quais docs são da TI?", "Which documents belong to the IT department?"):
        mode, query = route(question, True, both, PEOPLE, TYPES)
        assert mode == "catalog" and set(query.departments) == {"Tecnologia da Informação", "Information Technology"}


def test_documents_a_person_approved_or_wrote_are_a_listing_by_part_of_the_name():
    mode, query = route("which policies did Dr. Helena approve?", True, DEPARTMENTS, PEOPLE, TYPES)
    assert mode == "catalog" and query.approver == "Dra. Helena Prado Vasconcelos" and query.doc_types == ("politica",)
    mode, query = route("quais documentos o Rafael elaborou?", True, DEPARTMENTS, PEOPLE, TYPES)
    assert mode == "catalog" and query.responsible == "Rafael Cardoso Dias"
    # something more to look for: not a listing
    assert route("o que a Dra. Helena aprovou sobre quedas?", True, DEPARTMENTS, PEOPLE, TYPES)[0] != "catalog"
