"""A key term typed with one letter too many, too few, wrong or swapped is read as the index's term, so a
passage that holds the word is not graded as missing it; a word the index holds, a code and a short word stay."""

from __future__ import annotations

import numpy as np

from models.analysis import analyze
from serving.answers.relevance import Relevance


def test_a_mistyped_key_term_is_read_as_the_term_the_index_holds(indexed):
    _, retriever = indexed
    relevance = Relevance(retriever.index)
    right = analyze("criptografia", "pt")[0]
    assert relevance.df(right) > 0
    for typo in ("criptogarfia", "criptografai", "criptgrafia", "criptografiia"):
        term = analyze(typo, "pt")[0]
        assert relevance.df(term) == 0 and relevance.spelled(term) == right, typo
    weights = relevance.weights("Qual a regra de criptogarfia dos dados?", "pt")
    assert right in weights and weights[right] > 0
    # a term the index holds, a code, a number and a short word are read as typed
    for kept in (right, "ct-2024-9999", "20249", "cripx"):
        assert relevance.spelled(kept) == kept


def test_a_colloquial_word_weighs_what_the_word_the_index_writes_weighs(indexed):
    """ "avisar" (colloquial) is what the corpus writes "notificar": it is read with it and weighs as it does."""
    _, retriever = indexed
    relevance = Relevance(retriever.index)
    avisar, notificar = analyze("avisar", "pt")[0], analyze("notificar", "pt")[0]
    assert relevance.df(avisar) == 0 < relevance.df(notificar)
    question = "em qto tempo o fornecedor tem q avisar um incidente?"
    assert notificar in relevance.synonyms(question, "pt")[avisar]
    assert relevance.weights(question, "pt")[avisar] == relevance.weights("notificar", "pt")[notificar]
    # a word the index holds at least as often as its synonyms keeps its own weight and has none
    assert relevance.synonyms("em qto tempo o fornecedor deve notificar um incidente?", "pt") == {}


def test_a_proper_name_typed_one_letter_off_is_not_a_missing_name(indexed):
    """A capitalised name one letter off ("Criptogarfia") names what the index holds ("Clostridiodes" for the
    sample corpus's Clostridioides); a name it holds nothing near is missing."""
    _, retriever = indexed
    relevance = Relevance(retriever.index)

    def everything():
        return np.ones(len(retriever.index), dtype=bool)
    question = "Qual a regra da Criptogarfia AES?"
    assert relevance.df(analyze("Criptogarfia", "pt")[0]) == 0
    assert relevance.missing_codes(relevance.weights(question, "pt"), everything, question, "pt") == []
    # a name whose stem is too short to respell ("Nuvme" is read as nuvm) is respelled as the word written
    short = "Qual o contrato de Hospedagem em Nuvme?"
    assert relevance.missing_codes(relevance.weights(short, "pt"), everything, short, "pt") == []
    made_up = "Qual o valor pago à Limpamax Serviços?"
    assert relevance.missing_codes(relevance.weights(made_up, "pt"), everything, made_up, "pt") == ["Limpamax"]


def test_a_word_of_the_glossary_is_no_typo_of_a_word_one_letter_away(indexed):
    """An English word the Portuguese documents write in Portuguese ("uptime": disponibilidade, not "último" one
    letter away) is not read as the index's term one edit from it; a word outside the glossary still is."""
    from serving.graph import bilingual

    _, retriever = indexed
    relevance = Relevance(retriever.index)
    cases = []
    for _, en in bilingual.PAIRS:
        for word in en.split():
            term = next(iter(analyze(word, "en")), "")
            if len(term) >= 5 and term.isalpha() and relevance.df(term) == 0 and any(
                    relevance.df(term[:i] + c + term[i + 1:]) > 0 for i in range(len(term)) for c in "aeiou"):
                cases.append(term)  # one vowel away from a term the (Portuguese) index holds
    assert cases
    for term in cases:
        assert bilingual.known(term) and relevance.spelled(term) == term, term
    assert relevance.spelled(analyze("criptogarfia", "pt")[0]) == analyze("criptografia", "pt")[0]
