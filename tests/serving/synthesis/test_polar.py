"""Yes or no to a question that compares names: the verdict line before the quoted evidence, and no verdict
where the evidence does not decide one (``serving.answers.synthesis.polar``)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from serving.answers import synthesis
from serving.answers.compose import Draft
from serving.answers.modes import Retrieved
from serving.answers.synthesis.polar import Polar, parse
from serving.answers.types import EvidenceItem


@dataclass
class _Quoted:
    """An inner synthesizer that quotes the first source (or refuses)."""

    status: str = "answered"
    name: str = "quoted"

    def draft(self, evidence: synthesis.Graded) -> Draft:
        first = evidence.retrieved.evidence[0]
        return Draft(f"{first.text} [{first.n}]", [first.n], self.status, "test")


def _evidence(question: str, items: list[tuple[str, str]], language: str = "en") -> synthesis.Graded:
    retrieved = Retrieved("basic")
    for n, (title, text) in enumerate(items, start=1):
        retrieved.evidence.append(EvidenceItem(kind="chunk", id=f"c{n}", score=1.0 / n, text=text, n=n,
                                               document_id=f"d{n}", title=title))
    return synthesis.Graded(question, language, "basic", retrieved, {}, None, None)


def _first_line(question: str, items: list[tuple[str, str]], language: str = "en", status: str = "answered"):
    draft = Polar(_Quoted(status)).draft(_evidence(question, items, language))
    return draft.text.split("\n")[0], draft


@pytest.mark.parametrize("question,kind,names", [
    ("Are Lisbon and Porto both coastal cities?", "both", ("Lisbon", "Porto")),
    ("Are both bands, the Kinks and Blur, English rock bands?", "both", ("Kinks", "Blur")),
    ("Are Escape from the Dark and Bambi both animated films?", "both", ("Escape from the Dark", "Bambi")),
    ("Is Ana Souza also a nurse?", "also", ("Ana Souza",)),
    ("Are Recife and Natal in the same state?", "same", ("Recife", "Natal")),
    ("O POP-ENF-014 e o POP-HIG-002 são ambos do setor de enfermagem?", "both", ("POP-ENF-014", "POP-HIG-002")),
])
def test_a_comparing_yes_or_no_question_is_read_with_its_names(question, kind, names):
    language = "pt" if "são" in question else "en"
    ask = parse(question, language)
    assert ask is not None and ask.kind == kind and ask.names == names


@pytest.mark.parametrize("question,language", [
    ("Which band was formed first, the Kinks or Blur?", "en"),
    ("What do Lisbon and Porto have in common?", "en"),
    ("Qual o prazo do CT-2024-0187 e também o valor?", "pt"),
    ("Quem aprovou a Política de Segurança?", "pt"),
])
def test_other_questions_are_not_read_as_comparisons(question, language):
    assert parse(question, language) is None


def test_both_names_stating_the_predicate_is_a_yes_citing_each():
    line, draft = _first_line("Are Medici and Senet both board games?", [
        ("Medici (game)", "Medici is a German-style board game by Reiner Knizia."),
        ("Senet", "Senet is a board game from ancient Egypt.")])
    assert line == "Yes: the documents say “board games” of Medici [1] and Senet [2]."
    assert draft.cited == [1, 2] and draft.status == "answered"
    assert "German-style board game by Reiner Knizia. [1]" in draft.text  # the inner answer follows


def test_a_predicate_stated_of_one_name_only_is_a_no_naming_both():
    line, draft = _first_line("Are King Vidor and Géza von Cziffra both American directors?", [
        ("Géza von Cziffra", "Géza von Cziffra was a Hungarian and Austrian film director."),
        ("King Vidor", "King Vidor was an American film director.")])
    assert line == "No: the documents say “American” of King Vidor [2] but not of Géza von Cziffra [1]."
    assert draft.cited[:2] == [2, 1]


def test_a_name_named_inside_another_documents_units_counts_too():
    line, _ = _first_line("O POP-ENF-014 e o POP-HIG-002 são ambos do setor de enfermagem?", [
        ("Lista de POPs", "O POP-ENF-014 pertence ao setor de enfermagem. O POP-HIG-002 pertence à hotelaria."),
    ], language="pt")
    assert line == "Não: os documentos dizem “setor enfermagem” de POP-ENF-014 [1], mas não de POP-HIG-002 [1]."


def test_also_with_a_pronoun_reads_the_object_of_the_sentence_before():
    line, _ = _first_line("The director Ana Lima has an OBE. Does the director Rui Costa also have one?", [
        ("Rui Costa", "Rui Costa (born 1967) is a British film director and producer.")])
    assert line == "No, not according to the documents: they do not say “OBE” of Rui Costa [1]."


def test_same_attribute_compares_the_names_written_beside_it():
    line, _ = _first_line("Are Nantong and Jingdezhen situated in the same province?", [
        ("Nantong", "Nantong is a prefecture-level city in Jiangsu province, China."),
        ("Jingdezhen", "Jingdezhen is a city in northeastern Jiangxi province, China.")])
    assert line == "No: Jiangsu for Nantong [1] and Jiangxi for Jingdezhen [2]."


def test_an_attribute_word_ending_a_name_is_no_value():
    line, draft = _first_line("Are Watertown Airport and Alexandria Airport in the same state?", [
        ("Watertown Airport", "Watertown Airport is located in Jefferson County, New York, United States."),
        ("Alexandria Airport", "Alexandria Airport is in Rapides Parish, Louisiana, United States.")])
    assert not line.startswith(("Yes", "No")) and draft.cited == [1]  # no "United" state: no verdict


def test_no_verdict_when_a_name_is_missing_from_the_evidence_or_the_inner_answer_refuses():
    line, _ = _first_line("Are Medici and Senet both board games?", [
        ("Medici (game)", "Medici is a German-style board game by Reiner Knizia.")])
    assert line.startswith("Medici is")
    line, draft = _first_line("Are Medici and Senet both board games?", [
        ("Medici (game)", "Medici is a board game."), ("Senet", "Senet is a board game.")], status="not_found")
    assert line == "Medici is a board game. [1]" and draft.status == "not_found"


def test_evidence_in_another_language_decides_nothing():
    line, _ = _first_line("Are POP-ENF-014 and POP-HIG-002 both nursing procedures?", [
        ("POP-ENF-014 - Higienização das Mãos", "Este procedimento operacional padrão da enfermagem descreve a "
         "higienização das mãos."),
        ("POP-HIG-002 - Limpeza Terminal", "Este procedimento descreve a limpeza terminal dos leitos e unidades.")])
    assert not line.startswith(("Yes", "No"))


def test_the_default_synthesizer_puts_the_verdict_first():
    chain = synthesis.build("rules")
    assert any(isinstance(m, Polar) for m in chain.members)


def test_a_title_after_a_period_does_not_end_the_sentence():
    ask = parse("Are the IT Policy and the Retention Standard both approved by Dr. Roberto Queiroz?", "en")
    assert ask is not None and ask.names == ("IT Policy", "Retention Standard")
    assert set(ask.terms) >= {"approv", "roberto", "queiroz"}


def test_a_single_name_with_part_of_the_predicate_stated_gets_no_verdict():
    line, _ = _first_line("Is the Supplier Manual also owned by Compliance?", [
        ("Supplier Manual", "Suppliers send the integrity questionnaire, reviewed by Compliance.")])
    assert not line.startswith(("Yes", "No"))


def test_two_names_without_both_are_not_a_comparison():
    # a compliance question joins two names too: it is not asking whether each one is something
    assert parse("Are the PEP Vita RPO and RTO in the backup SOP consistent with the provider's contract?",
                 "en") is None
