"""A colloquial or abbreviated question meets the same index terms as its written-out form; its filler words
are no key terms; documents are read as written."""

from __future__ import annotations

from models.analysis import analyze, analyze_query, written_out
from models.lexicon import lexicon


def test_abbreviations_and_fillers_give_the_terms_of_the_formal_question() -> None:
    assert set(analyze_query("qto tempo leva pra aprovar as férias do funcionário?")) == \
        set(analyze_query("Quanto tempo para aprovar as férias do funcionário?"))
    assert "lev" not in analyze_query("quanto tempo leva o reembolso", "pt")
    assert set(analyze_query("me diz o valor do vale refeição")) == set(analyze("o valor do vale refeição", "pt"))
    assert set(analyze_query("how long does it take to get reimbursed? pls tell me", "en")) == \
        set(analyze("how long reimbursed", "en"))
    assert set(analyze_query("qnts dias uteis pra reembolso cair na conta?")) == \
        set(analyze_query("Quantos dias úteis para o reembolso cair na conta?"))
    assert set(analyze_query("o que acontece se eu nao fizer a prestação de contas")) == \
        set(analyze_query("o que acontece se eu não a prestação de contas"))


def test_the_words_that_frame_an_ask_are_no_key_terms() -> None:
    # "a partir de", "é considerado", "nesse caso" frame the ask; the fact asked is the score, the risk, the product
    assert set(analyze_query("A partir de qual pontuação ele já é considerado de alto risco?", "pt")) == \
        set(analyze_query("Qual pontuação ele já é de alto risco?", "pt"))
    assert set(analyze_query("Qual produto eu tenho que usar nesse caso?", "pt")) == \
        set(analyze_query("Qual produto eu tenho que usar nesse?", "pt"))
    assert "cas" in analyze_query("Quantos casos de KPC houve em agosto?", "pt")  # cases counted are a fact


def test_a_colloquial_question_is_read_as_portuguese() -> None:
    assert written_out("qdo vence o contrato? vc sabe?")[1] == "pt"
    assert written_out("pra quem mando a nf", fillers=True)[0].split()[:1] == ["para"]


def test_a_contraction_is_written_out_and_a_possessive_is_left_as_written() -> None:
    assert written_out("who's the vendor on CT-2024-0203?", "en")[0] == "who is the vendor on CT-2024-0203?"
    assert written_out("what’s the hospital's policy?", "en")[0] == "what is the hospital's policy?"
    assert "hospit" in analyze_query("what's the hospital's policy?", "en")


def test_codes_letters_and_documents_are_left_as_written() -> None:
    assert analyze_query("Anexo C do contrato nº 13", "pt") == analyze("Anexo C do contrato nº 13", "pt")
    assert "ct-2024-0187" in analyze_query("qto custa o CT-2024-0187?", "pt")
    # the document side never drops a filler: "pode" is a word of a rule
    assert "pod" in analyze("O colaborador pode solicitar reembolso.", "pt")


def test_the_lexicons_are_data_files_for_each_language() -> None:
    assert lexicon("pt").abbreviations["vc"] == "voce" and "leva" in lexicon("pt").fillers
    assert lexicon("en").abbreviations["pls"] == "please" and "tell" in lexicon("en").fillers


def test_a_language_without_a_lexicon_is_an_error_naming_it() -> None:
    import pytest

    with pytest.raises(ValueError, match="'fr'"):
        lexicon("fr")


def test_the_glossary_is_a_data_file_of_pairs() -> None:
    from models.lexicon import glossary

    pairs = glossary()
    assert ("contrato", "contract") in pairs and all(pt and en for pt, en in pairs)


def test_a_colloquial_word_has_the_terms_the_documents_write_for_it() -> None:
    from models.analysis import synonyms

    terms = analyze_query("em qto tempo tem q tirar os acessos de quem foi demitido?", "pt")
    found = synonyms(terms, "pt")
    assert set(analyze("revogar remover", "pt")) <= set(found[analyze("tirar", "pt")[0]])
    assert set(analyze("desligado", "pt")) <= set(found[analyze("demitido", "pt")[0]])
    assert "acess" not in found  # a word documents write already has none
    assert synonyms(analyze_query("who do I tell when my laptop is hacked?", "en"), "en")


def test_synonyms_must_be_single_words(tmp_path, monkeypatch) -> None:
    import pytest

    from models import lexicon as module

    (tmp_path / "pt.yaml").write_text("synonyms:\n  home office: [teletrabalho]\n", encoding="utf-8")
    monkeypatch.setattr(module.resources, "files", lambda _package: tmp_path)
    module.lexicon.cache_clear()
    try:
        with pytest.raises(ValueError, match="pt.yaml: 'synonyms'"):
            module.lexicon("pt")
    finally:
        module.lexicon.cache_clear()
