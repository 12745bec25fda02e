"""Which strips an extractive answer quotes when two passages hold the same question words."""

from __future__ import annotations

from types import SimpleNamespace

from serving.answers.grading import Strip
from serving.answers.refine import _strips

HELD = frozenset({"anex", "requer"})


def _req(kind, second: str):
    strips = [Strip("O docente deverá anexar o formulário de requerimento de inscrição.", 0, 1.0, HELD),
              Strip(second, 1, 0.95, HELD)]
    return SimpleNamespace(q=SimpleNamespace(kind=kind, parts=False, text=""),
                           grades={1: SimpleNamespace(strips=strips)})


def test_a_close_second_with_the_same_words_is_quoted_when_no_kind_of_fact_is_asked():
    req = _req(None, "A acadêmica deverá entregar o requerimento anexando o laudo médico.")
    assert [s.text for _, s in _strips(req, [1])][-1].endswith("laudo médico.")


def test_a_close_second_is_left_out_when_it_would_state_a_competing_value():
    numbered = _req(None, "O requerimento deve ser anexado em até 5 dias.")
    asked = _req("deadline", "A acadêmica deverá entregar o requerimento anexando o laudo médico.")
    assert len(_strips(numbered, [1])) == 1 and len(_strips(asked, [1])) == 1


def _doc_req(kind, items: dict[int, tuple[str, str]], strips: dict[int, list[Strip]], weights: dict[str, float]):
    """A request over items {n: (document id, text)} whose grades hold ``strips``."""
    evidence = {n: SimpleNamespace(n=n, id=f"c{n}", kind="report", document_id=d, text=t)
                for n, (d, t) in items.items()}
    return SimpleNamespace(q=SimpleNamespace(kind=kind, parts=False, weights=weights, language="en", text="", codes=()),
                           grades={n: SimpleNamespace(strips=s) for n, s in strips.items()},
                           item=lambda n: evidence[n], engine=SimpleNamespace(rows={}, injection=None))


def test_of_two_documents_stating_the_asked_deadline_the_one_covering_more_of_the_question_is_quoted():
    weights = {"quant": 2.0, "temp": 2.0, "hospital": 1.0, "not": 3.0, "fisc": 4.0, "fornecedor": 2.5}
    travel = Strip("A prestação de contas deve ser apresentada em até 10 dias úteis (nota fiscal).", 0, 0.7,
                   frozenset({"quant", "temp", "hospital", "not", "fisc"}), 1)
    suppliers = Strip("O prazo padrão é de 30 dias após o recebimento da nota fiscal.", 0, 0.6,
                      frozenset({"quant", "temp", "not", "fisc", "fornecedor"}), 1)
    req = _doc_req("deadline", {1: ("travel", travel.text), 2: ("faq", suppliers.text)},
                   {1: [travel], 2: [suppliers]}, weights)
    assert [s.text for _, s in _strips(req, [1, 2])] == [suppliers.text]
    one_document = _doc_req("deadline", {1: ("faq", travel.text), 2: ("faq", suppliers.text)},
                            {1: [travel], 2: [suppliers]}, weights)
    assert len(_strips(one_document, [1, 2])) == 2  # one document's two rules are not competing answers


def test_a_numbered_clause_is_quoted_whole_when_its_other_sentences_address_the_question():
    text = ("3.1 Each user receives a personal account.\n\n3.2 Passwords must have at least 12 characters. "
            "Passwords expire every 180 days. Training is yearly.\n\n3.3 MFA is mandatory.")
    first = Strip("3.2 Passwords must have at least 12 characters.", 1, 1.0, frozenset({"password"}))
    req = _doc_req(None, {1: ("policy", text)}, {1: [first]}, {"password": 1.0, "minimum": 1.0})
    assert [s.text for _, s in _strips(req, [1])] == [first.text, "Passwords expire every 180 days."]


def test_the_next_clause_of_a_quoted_one_is_quoted_when_no_kind_of_fact_is_asked():
    held = frozenset({"rescisa", "just", "caus", "avis", "previ"})
    notice = Strip("7.1 O contrato poderá ser rescindido sem justa causa mediante aviso prévio de 90 dias.", 0, 0.8,
                   held)
    fine = Strip("7.2 A rescisão sem justa causa antes de 12 meses implicará multa de 20%.", 1, 0.62,
                 held - {"avis", "previ"})
    other = Strip("8.1 A rescisão por justa causa dispensa a multa.", 1, 0.62, held - {"avis", "previ"})
    req = _doc_req(None, {1: ("contract", f"{notice.text}\n{fine.text}")}, {1: [notice, fine]}, {})
    assert [s.text for _, s in _strips(req, [1])] == [notice.text, fine.text]
    asked = _doc_req("deadline", {1: ("contract", f"{notice.text}\n{fine.text}")}, {1: [notice, fine]}, {})
    assert [s.text for _, s in _strips(asked, [1])] == [notice.text]  # the second would compete with the one asked
    section = _doc_req(None, {1: ("contract", f"{notice.text}\n{other.text}")}, {1: [notice, other]}, {})
    assert [s.text for _, s in _strips(section, [1])] == [notice.text]  # another section states another rule


def test_a_question_of_several_parts_quotes_a_weaker_strip_that_answers_its_other_part():
    dose = Strip("5.2 Alteplase na dose de 0,9 mg/kg.", 1, 0.49, frozenset({"alteplas", "dos", "trombolis"}))
    window = Strip("5.1 Indicada com início dos sintomas há até 4,5 horas.", 0, 0.36, frozenset({"avc", "trombolis"}))
    req = _doc_req(None, {1: ("protocol", f"{window.text}\n{dose.text}")}, {1: [window, dose]}, {})
    assert [s.text for _, s in _strips(req, [1])] == [dose.text]
    req.q.parts = True
    assert [s.text for _, s in _strips(req, [1])] == [window.text, dose.text]


def test_a_question_of_two_things_also_quotes_an_ambiguous_passage_whose_section_names_the_other_one():
    from models.analysis import analyze
    from serving.answers.grading import AMBIGUOUS, CORRECT, Question
    from serving.answers.refine import _other_parts

    text = "Quais limites de valor a política define para presentes e para a diligência prévia?"
    q = Question.of(text, "pt", {t: 1.0 for t in analyze(text, "pt")})
    sections = {1: "Seção II — Da diligência prévia", 2: "Seção I — Dos brindes e presentes",
                3: "Seção III — Das cláusulas contratuais"}
    grades = {1: SimpleNamespace(grade=CORRECT, score=0.64, missing=["presentes"]),
              2: SimpleNamespace(grade=AMBIGUOUS, score=0.57, missing=["diligência", "prévia"]),
              3: SimpleNamespace(grade=AMBIGUOUS, score=0.56, missing=["diligência", "prévia"])}  # uses the word
    req = SimpleNamespace(q=q, grades=grades, item=lambda n: SimpleNamespace(section=sections[n]))
    assert q.parts and _other_parts(req, [1]) == [2]
    req.q = Question.of("Qual o limite de valor para presentes?", "pt", {"limit": 1.0, "valor": 1.0, "present": 1.0})
    assert _other_parts(req, [1]) == []  # one thing asked: the correct passage answers it


def test_a_question_about_a_change_quotes_the_passage_stating_it_from_one_value_to_the_other():
    held = frozenset({"praz", "prestaca", "cont"})
    rule = Strip("6.1 A prestação de contas deve ser apresentada em até 10 dias úteis.", 0, 0.61, held | {"viag"}, 1)
    row = Strip("Versão: 3; Alteração: Prazo de prestação de contas reduzido de 30 dias corridos para 10 dias úteis",
                0, 0.45, held, 2)
    req = _doc_req("deadline", {1: ("policy", rule.text), 2: ("policy", row.text)}, {1: [rule], 2: [row]}, {})
    req.q.text = "Como mudou o prazo de prestação de contas entre a versão 2 e a versão 3?"
    assert [s.text for _, s in _strips(req, [1, 2])] == [rule.text, row.text]
    req.q.text = "Qual o prazo de prestação de contas?"
    assert [s.text for _, s in _strips(req, [1, 2])] == [rule.text]


def test_a_passage_whose_heading_names_the_asking_word_is_quoted():
    held = frozenset({"campanh", "vacin", "grip"})
    dates = Strip("A campanha de vacinação contra a gripe será realizada de 14 de abril a 30 de maio.", 0, 1.0, held)
    hours = Strip("A vacinação acontece no ambulatório, das 7h00 às 19h00.", 0, 0.41, frozenset({"vacin"}))
    goal = Strip("Nossa meta é vacinar 90% dos colaboradores.", 0, 0.5, frozenset({"vacin"}))
    req = _doc_req(None, {1: ("notice", dates.text), 2: ("notice", hours.text), 3: ("notice", goal.text)},
                   {1: [dates], 2: [hours], 3: [goal]}, {})
    sections = {1: "Comunicado", 2: "Onde e quando", 3: "Meta"}
    item = req.item
    req.item = lambda n: SimpleNamespace(**{**vars(item(n)), "section": sections[n]})
    req.q.text = "Quando foi a campanha de vacinação contra a gripe?"
    assert [s.text for _, s in _strips(req, [1, 2, 3])] == [dates.text, hours.text]
    req.q.text = "Qual foi a campanha de vacinação contra a gripe?"
    assert [s.text for _, s in _strips(req, [1, 2, 3])] == [dates.text]
