"""Rule-based extraction in Portuguese and English: names, organisations, people, codes, norms, noun phrases,
acronym definitions and normalised keys."""

from __future__ import annotations

from graph_index.extraction import extract_rules
from graph_index.keys import entity_key

PT = """[Contrato CT-2024-0187 — 7. Segurança]
## 7. Segurança

A NuvemSul Tecnologia e Dados S.A. seguirá a Lei Geral de Proteção de Dados (LGPD), a Lei nº 13.709/2018 e a
ISO/IEC 27001:2022. Conforme o Art. 7º da LGPD e a cláusula 7.2, a notificação de incidentes à Secretaria de
Estado da Saúde ocorre em 24 horas. A gestora Dra. Helena Prado Vasconcelos revisa os controles de
criptografia e o POP-QUA-001 com Eduardo Vieira Gomes.
"""

EN = """[Incident Response Playbook — 2. Roles]
## 2. Roles

The incident response team of Acme Corp. follows ISO 27001 and the Third-Party Information Security Policy.
Dr. John Carter leads the incident response team and reports to the Data Protection Officer (DPO).
"""


def _found(text: str, title: str = "") -> dict[str, str]:
    graph = extract_rules(text, title)
    return {m.text: m.type for m in graph.mentions if not m.context}


def test_portuguese_names_organisations_people_codes_and_norms():
    found = _found(PT, "Contrato CT-2024-0187 — Hospedagem")
    assert found["NuvemSul Tecnologia e Dados S.A."] == "ORGANIZATION"
    assert found["Secretaria de Estado da Saúde"] == "ORGANIZATION"
    assert found["Helena Prado Vasconcelos"] == "PERSON"  # the honorific is not part of the name
    assert found["Eduardo Vieira Gomes"] == "PERSON"
    assert found["POP-QUA-001"] == "CODE"
    assert found["Lei Geral de Proteção de Dados"] == "NORM"
    assert found["Lei 13.709/2018"] == "NORM"
    assert found["ISO/IEC 27001"] == "NORM"
    assert found["Art. 7º da LGPD"] == "NORM"
    assert found["Cláusula 7.2 (CT-2024-0187)"] == "NORM"  # a clause is local to its document
    assert found["LGPD"] == "OTHER"


def test_portuguese_noun_phrases_across_wrapped_lines():
    found = _found(PT)
    assert found["notificação de incidentes"] == "CONCEPT"
    assert found["controles de criptografia"] == "CONCEPT"  # "controles de\ncriptografia" in the source
    assert "Conforme" not in {k for k, v in found.items() if v != "OTHER"}


def test_acronym_definitions_and_language():
    graph = extract_rules(PT)
    assert graph.language == "pt"
    assert [(d.short, d.long) for d in graph.definitions] == [("LGPD", "Lei Geral de Proteção de Dados")]
    english = extract_rules(EN)
    assert english.language == "en"
    assert [(d.short, d.long) for d in english.definitions] == [("DPO", "Data Protection Officer")]


def test_english_names_norms_and_phrases():
    found = _found(EN)
    assert found["Acme Corp."] == "ORGANIZATION"
    assert found["John Carter"] == "PERSON"
    assert found["ISO 27001"] == "NORM"
    assert found["Third-Party Information Security Policy"] == "NORM"
    assert found["incident response team"] == "CONCEPT"


def test_context_line_gives_names_but_no_phrases():
    graph = extract_rules(PT)
    context = {m.text for m in graph.mentions if m.context}
    assert "CT-2024-0187" in context
    assert all(m.type != "CONCEPT" for m in graph.mentions if m.context)


def test_shouting_lines_and_sentence_starts():
    graph = extract_rules("| ELABORADO POR | APROVADO POR |\n|---|---|\n| Ana Lima Souza | Paulo Reis |\n\n"
                          "Registros são guardados. O Hospital Vale do Ipê guarda os Registros.")
    by_text = {m.text: m for m in graph.mentions}
    assert "ELABORADO" not in by_text and "APROVADO" not in by_text
    assert by_text["Ana Lima Souza"].type == "PERSON"
    assert by_text["Hospital Vale do Ipê"].type == "ORGANIZATION"
    assert [m.initial for m in graph.mentions if m.text == "Registros"] == [True, False]


def test_keys_normalise_case_accents_plurals_articles_and_suffixes():
    key = entity_key
    assert key("Os Controles de Criptografia", "OTHER") == key("controle de criptografia", "CONCEPT")
    assert key("notificação dos incidentes", "CONCEPT") == key("Notificação de Incidente", "OTHER")
    assert entity_key("NuvemSul Tecnologia e Dados S.A.", "ORGANIZATION") == entity_key(
        "NuvemSul Tecnologia e Dados", "ORGANIZATION")
    assert key("Lei nº 13.709/2018", "NORM") == key("Lei 13.709/2018", "NORM") == "lei 13709/2018"
    assert entity_key("ISO/IEC 27001", "NORM") == entity_key("ISO 27001", "NORM")
    assert entity_key("Data Protection Policies", "NORM") == entity_key("data protection policy", "CONCEPT")
    assert entity_key("SUS", "OTHER") == "sus"  # an acronym is not a plural
    assert entity_key("CT-2024-0187", "CODE") == "ct-2024-0187"
