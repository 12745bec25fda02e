"""Reference detection, quantities and the requirement-by-requirement comparison, and the router, on text."""

from __future__ import annotations

import re
from types import SimpleNamespace

import numpy as np

from serving.answers.agentic.compare_read import sides
from serving.answers.agentic.comparison import compare, quantities, render
from serving.answers.agentic.directory import Directory
from serving.answers.agentic.references import find, names, title_key
from serving.answers.agentic.trace import Budget, Trace
from serving.answers.doctypes import DocTypes
from serving.answers.routing import comparison

POLICY = ("7.2 Os dados do Hospital devem ser protegidos por controles de criptografia em repouso e em trânsito, "
          "descritos em anexo contratual. O terceiro deve notificar o Hospital de qualquer incidente de segurança "
          "em até **24 (vinte e quatro) horas** a partir do seu conhecimento.\n\n"
          "5.2 A Segurança da Informação reavalia os terceiros de criticidade alta anualmente.")
ANNEX = ("2.1 Todos os dados armazenados serão criptografados em repouso com o algoritmo **AES-256**.\n\n"
         "5.1 A CONTRATADA notificará a CONTRATANTE sobre qualquer incidente de segurança em até **72 (setenta e "
         "duas) horas** após a confirmação do incidente.\n\n5.2 A notificação será seguida de relatório final em "
         "até 15 dias.")


def test_references_found_in_evidence():
    text = ("Os controles são descritos em anexo contratual, conforme a Política de Privacidade e Proteção de Dados "
            "Pessoais. Ver o item 7.2, a cláusula 5 e o Anexo III do CT-2024-0187; Lei nº 13.709/2018; POP-TI-003.")
    titles = {title_key("Manual do Usuário do PEP Vita"): "Manual do Usuário do PEP Vita"}
    found = {(r.kind, r.key) for r in find(text + " Consulte o Manual do Usuário do PEP Vita.", titles)}
    assert {("annex_generic", "anexo"), ("item", "7.2"), ("item", "5"), ("annex", "III"),
            ("code", "CT-2024-0187"), ("code", "POP-TI-003"), ("law", "13.709/2018"),
            ("title", "manual do usuario do pep vita")} <= found
    assert any(k == "policy" and key.startswith("politica de privacidade") for k, key in found)
    assert not find("[Política de Segurança — 7. Requisitos]\nTexto sem referências.")  # the chunk's own title line


def test_references_only_match_titles_the_caller_may_read():
    text = "Ver o Manual do Usuário do PEP Vita."
    assert not [r for r in find(text, {}) if r.kind == "title"]


def test_quantities_with_bounds_and_units():
    [q] = quantities("em até **24 (vinte e quatro) horas** a partir")
    assert (q.value, q.unit, q.bound, q.hours) == (24, "h", "max", 24)
    assert quantities("por, no mínimo, 12 meses")[0].bound == "min"
    assert quantities("aviso prévio de 10 dias úteis")[0].unit == "dia útil"


def test_comparison_flags_the_conflict_the_match_and_what_is_missing():
    weight = lambda term: 1.0  # noqa: E731
    rows = compare([(1, POLICY)], [(2, ANNEX)], "pt", weight, items=frozenset({"7.2"}))
    verdicts = {r.requirement.split()[1] if r.requirement[0].isdigit() else r.requirement.split()[2]: r
                for r in rows}
    crypto = next(r for r in rows if "criptografia" in r.requirement)
    notify = next(r for r in rows if "notificar" in r.requirement)
    yearly = next(r for r in rows if "anualmente" in r.requirement)
    assert crypto.verdict == "meets" and "AES-256" in crypto.evidence
    assert notify.verdict == "conflict" and "72" in notify.detail and "24" in notify.detail
    assert "5.1" in notify.evidence  # the notification, not the final report's 15 days
    assert yearly.verdict == "not_found" and yearly.evidence is None
    assert rows[0] is crypto and verdicts  # the named item first
    text, cited = render(rows, "Política", "Anexo III", "pt")
    assert "NÃO atende" in text and "não encontrado" in text and "não está de acordo" in text
    assert set(cited) == {1, 2}


def test_comparison_words():
    assert comparison("Isso é compatível com o contrato?") and not comparison("Qual o prazo do contrato?")


def test_budget_limits():
    trace = Trace(Budget(max_steps=2, max_tokens=10_000, max_seconds=60))
    assert trace.exhausted() is None
    trace.record("search", {}, [], 5, trace.started)
    trace.record("read_document", {}, [], 5, trace.started)
    assert trace.exhausted() == "steps"
    tokens = Trace(Budget(max_steps=10, max_tokens=10, max_seconds=60))
    tokens.record("read_document", {}, ["a"], 11, tokens.started)
    assert tokens.exhausted() == "tokens" and tokens.as_list()[0]["ids"] == ["a"]


def test_law_numbers_are_one_key_however_written():
    from serving.answers.agentic.references import law_pattern

    keys = {r.key for r in find("Lei nº 13.709/2018. Lei 13709/2018. Lei Federal nº 13.709/18.") if r.kind == "law"}
    assert keys == {"13.709/2018"}
    assert law_pattern("13.709/2018").search("nos termos da Lei 13709/18") is not None


def test_short_titles_are_references_only_as_written():
    titles = {title_key("Charmed"): "Charmed", title_key("United"): "United (Marian Gold album)"}
    found = find('He is best known for the television series "Charmed". The album United came out in 2002.', titles)
    assert {(r.kind, r.key, r.text) for r in found} == {("title", "charmed", "Charmed"), ("title", "united", "United")}
    assert not find("She was charmed by the band, which toured the United States.", titles)


def test_a_title_is_found_without_its_disambiguation():
    names = ["Bethel University (Minnesota)", "Steve Johnson (American football)", "Steve Johnson (basketball)"]
    index = SimpleNamespace(titles=names, paths=[f"{n}.txt" for n in names], texts=["..."] * 3,
                            doc_types=["article"] * 3)
    engine = SimpleNamespace(index=index, documents={n: [row] for row, n in enumerate(names)},
                             catalog=SimpleNamespace(rows={}))
    directory = Directory(engine, np.ones(3, dtype=bool))
    assert "steve johnson" not in directory.titles  # two documents go by that name
    [ref] = find("He is the head coach at Bethel University in Arden Hills.", directory.title_map())
    assert directory.titles[ref.key] == "Bethel University (Minnesota)"



def test_passages_under_one_title_are_known_as_one_article():
    """A title several passages bear (a Q&A corpus split by paragraph) names no one of them: following it from
    one passage reads nothing new."""
    ids = ["ciencia-p0", "ciencia-p1", "ufms-p0"]
    titles = ["CIENCIA_DA_COMPUTACAO", "CIENCIA_DA_COMPUTACAO", "UFMS"]
    index = SimpleNamespace(titles=titles, paths=[f"{d}.txt" for d in ids], texts=["..."] * 3,
                            doc_types=["article"] * 3)
    engine = SimpleNamespace(index=index, documents={d: [row] for row, d in enumerate(ids)},
                             catalog=SimpleNamespace(rows={}))
    directory = Directory(engine, np.ones(3, dtype=bool))
    assert directory.shared == {"ciencia_da_computacao": {"ciencia-p0", "ciencia-p1"}}
    assert names("Turing is regarded as the father of theoretical computer science.", "Alan Turing") is False
    assert names("Alan Turing was born in Maida Vale.", "Alan Turing (mathematician)")
    assert names("Desde 1979 a UFMS vem participando do ensino.", "UFMS")
    assert not names("A ufms vem participando do ensino.", "UFMS")  # a short title only as written

BACKUP = ("Para o ERP o objetivo de ponto de recuperação (RPO) é de 15 minutos e o objetivo de tempo de recuperação "
          "(RTO) é de 4 horas.\n\nPara os demais sistemas, RPO de 24 horas e RTO de 8 horas.")
HOSTING = ("| Indicador | Nível de serviço |\n| --- | --- |\n| Objetivo de ponto de recuperação (RPO) | 15 minutos |\n"
           "| Disponibilidade mensal | 99,9% |")


def test_a_value_the_question_asks_about_is_compared_even_without_an_obligation_word():
    asked = {"rpo", "rto", "erp"}
    focus = lambda text: float(len(asked & set(re.findall(r"[a-z]+", text.lower()))))  # noqa: E731
    rows = compare([(1, BACKUP)], [(2, HOSTING)], "pt", lambda term: 1.0, focus)
    assert [r.source for r in rows] == [1] and "ERP" in rows[0].requirement  # not "os demais sistemas"
    # the evidence states the RPO only: it meets the RPO, and is not held against the 4-hour RTO
    assert rows[0].verdict == "meets" and "15 minutos" in rows[0].evidence
    assert compare([(1, BACKUP)], [(2, HOSTING)], "pt", lambda term: 1.0) == []  # nothing asked: no obligation


def test_the_requirement_side_is_the_kind_of_document_the_question_names():
    docs = {"pol": SimpleNamespace(doc_type="politica", rows=(0,)), "pop": SimpleNamespace(doc_type="pop", rows=(1,)),
            "ct": SimpleNamespace(doc_type="contrato", rows=(2,))}
    ids = ["pol", "pop", "ct"]
    index = SimpleNamespace(document_ids=ids, texts=["", "", ""])
    flow = SimpleNamespace(question="O RPO definido no POP de backup é compatível com o contrato de nuvem?",
                           box=SimpleNamespace(engine=SimpleNamespace(index=index),
                                               directory=SimpleNamespace(docs=docs, annexes=lambda d, texts: [],
                                                                         types=DocTypes.of(["politica", "pop",
                                                                                            "contrato"]))),
                           out=SimpleNamespace(read=[0, 1, 2], named=[]), depth={0: 0, 1: 0, 2: 1})
    required, others = sides(flow)
    assert required == "pop" and others == ["ct"]
    flow.question = "O RPO é compatível com o contrato de nuvem?"
    assert sides(flow)[0] == "pol"  # no kind named: the most normative document read
