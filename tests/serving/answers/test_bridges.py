"""Bridge questions: the first quoted passage names another document by its title, and that document holds the
answer ("the film shot in Leland in 1986" -> "Maximum Overdrive" -> who directed it)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from models.analysis import analyze
from serving.answers.grading import Question, grade_item
from serving.answers.modes import Retrieved
from serving.answers.refine import Request, corrective
from serving.answers.types import EvidenceItem

QUESTION = "Who directed the film that was shot in or around Leland, North Carolina in 1986?"
LELAND = ("Leland is a town in Brunswick County, North Carolina. A number of movies, such as \"Maximum Overdrive\" "
          "(1986) and \"We're the Millers\" (2013), have been shot in or around Leland.")
OVERDRIVE = ("Maximum Overdrive is a 1986 American science fiction horror comedy film written and directed by "
             "Stephen King. The film stars Emilio Estevez.")
MILLERS = "We're the Millers is a comedy starring Jennifer Aniston. It premiered in August."
MYRTLE = "The Myrtle Beach area is a metropolitan area in South Carolina. A film festival is directed there every year."
# a stand-in for the snapshot's engine: no vectors, no flagged sentences, no document families or versions, no
# document outside the evidence
ENGINE = SimpleNamespace(families={}, documents={}, rows={}, injection=None, coded={},
                         index=SimpleNamespace(vectors=np.zeros((0, 4)), titles=[], document_ids=[]))


def _answer(*passages: tuple[str, str]):
    evidence = [EvidenceItem(kind="chunk", id=f"c{n}", score=1.0, text=text, n=n, document_id=f"d{n}", title=title)
                for n, (title, text) in enumerate(passages, start=1)]
    q = Question.of(QUESTION, "en", {t: 1.0 for t in dict.fromkeys(analyze(QUESTION, "en"))})
    grades = {e.n: grade_item(ENGINE, q, e) for e in evidence}
    retrieved = Retrieved("basic", evidence=evidence, ids={e.id: e.n for e in evidence})
    draft = corrective(Request(ENGINE, q, retrieved, grades, frozenset(), 0.58, 0.5), "en", None)
    return draft, grades


def test_the_passage_the_first_one_names_is_quoted_with_its_answer():
    draft, grades = _answer(("Leland, North Carolina", LELAND), ("Myrtle Beach metropolitan area", MYRTLE),
                            ("Maximum Overdrive", OVERDRIVE))
    assert grades[3].grade == "incorrect"  # on its own it does not mention Leland: not enough for the question
    assert "Stephen King" in draft.text and draft.cited == [1, 3]
    assert draft.text.index("Leland") < draft.text.index("Stephen King")  # the hop follows the strip naming it


def test_a_passage_the_quoted_strips_do_not_name_is_not_quoted():
    draft, _ = _answer(("Leland, North Carolina", LELAND), ("Myrtle Beach metropolitan area", MYRTLE))
    assert draft.cited == [1] and "Myrtle" not in draft.text


def test_a_named_passage_that_holds_nothing_left_open_is_not_quoted():
    draft, _ = _answer(("Leland, North Carolina", LELAND), ("We're the Millers", MILLERS))
    assert draft.cited == [1] and "Aniston" not in draft.text


def _pt(question: str, text: str):
    item = EvidenceItem(kind="chunk", id="c1", score=1.0, text=text, n=1, document_id="d1", title="Computação")
    rare = set(analyze("possui fita tamanho", "pt"))  # rare words weigh more (idf), as in a real corpus
    q = Question.of(question, "pt", {t: 3.0 if t in rare else 1.0 for t in dict.fromkeys(analyze(question, "pt"))})
    retrieved = Retrieved("basic", evidence=[item], ids={"c1": 1})
    grades = {1: grade_item(ENGINE, q, item)}
    return corrective(Request(ENGINE, q, retrieved, grades, frozenset(), 0.58, 0.5), "pt", None).text


TURING = ("Turing descreveu a Máquina de Turing, que possui uma fita de tamanho infinito e um cabeçote de leitura. "
          "Devido ao seu caráter infinito, tal máquina não pode ser construída. "
          "Turing também trabalhou em criptografia.")


def test_a_why_question_quotes_the_reason_after_the_strip_that_restates_it():
    text = _pt("Por que uma máquina que possui uma fita de tamanho infinito não pode ser construída?", TURING)
    assert "Devido ao seu caráter infinito" in text and "criptografia" not in text
    assert text.index("possui uma fita") < text.index("Devido")


def test_a_question_that_does_not_ask_why_keeps_its_one_strip():
    text = _pt("O que possui a máquina de Turing além de uma fita de tamanho infinito?", TURING)
    assert "Devido" not in text


def test_a_deadline_already_quoted_is_not_joined_by_a_named_document_s_other_deadline():
    question = "Qual é o prazo de entrega das compras urgentes do hospital aprovadas pela diretoria?"
    first = EvidenceItem(kind="chunk", id="c1", score=1.0, n=1, document_id="d1", title="Política de Compras",
                         text="As compras urgentes do hospital têm prazo de entrega de 2 dias, conforme o Manual "
                              "de Fornecedores.")
    named = EvidenceItem(kind="chunk", id="c2", score=1.0, n=2, document_id="d2", title="Manual de Fornecedores",
                         text="O fornecedor tem prazo de 30 dias para entregar os documentos aprovados pela diretoria.")
    q = Question.of(question, "pt", {t: 1.0 for t in dict.fromkeys(analyze(question, "pt"))})
    retrieved = Retrieved("basic", evidence=[first, named], ids={"c1": 1, "c2": 2})
    grades = {e.n: grade_item(ENGINE, q, e) for e in (first, named)}
    draft = corrective(Request(ENGINE, q, retrieved, grades, frozenset(), 0.58, 0.5), "pt", None)
    assert "2 dias" in draft.text and "30 dias" not in draft.text and draft.cited == [1]


def test_a_question_naming_two_documents_quotes_each():
    question = "Which band was formed first, The Exies or Circus Diablo?"
    passages = [("Circus Diablo", "Circus Diablo is an American rock band, formed in early 2006 by Billy Morrison."),
                ("The Exies", "The Exies were an American rock band from Los Angeles, formed in 1997."),
                ("Satin Circus", "Satin Circus is a Finnish pop band founded in 2010.")]
    evidence = [EvidenceItem(kind="chunk", id=f"c{n}", score=1.0, text=text, n=n, document_id=f"d{n}", title=title)
                for n, (title, text) in enumerate(passages, start=1)]
    weights = {t: 0.2 if t == "first" else 1.0 for t in dict.fromkeys(analyze(question, "en"))}  # "first" is common
    q = Question.of(question, "en", weights)
    grades = {e.n: grade_item(ENGINE, q, e) for e in evidence}
    retrieved = Retrieved("basic", evidence=evidence, ids={e.id: e.n for e in evidence})
    draft = corrective(Request(ENGINE, q, retrieved, grades, frozenset(), 0.58, 0.5), "en", None)
    assert "2006" in draft.text and "1997" in draft.text and "Satin" not in draft.text


def test_the_second_hop_is_graded_for_what_is_left_when_a_stated_bound_already_answered_a_word():
    # "maximum" is covered by a strip stating "up to ..." (``Question.covers``): once the quoted strip holds it,
    # the named document is graded for the rest, and a sentence of it stating another bound is no error
    from serving.answers.bridges import narrowed
    from serving.answers.grading import grade

    question = "What is the maximum dose of the drug that the protocol names, and who approved it?"
    q = Question.of(question, "en", {t: 1.0 for t in dict.fromkeys(analyze(question, "en"))})
    bound = {t for said, _ in q.covers for t in said}
    assert bound  # "maximum"
    rest = {t: w for t, w in q.weights.items() if t in set(analyze("approved", "en")) - bound}
    g = grade(narrowed(q, rest), "It was approved by the board. Doses go up to 90 mg.", "Alteplase", None)
    assert g.grade != "incorrect" and all(t in rest for s in g.strips for t in s.held)
