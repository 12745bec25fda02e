"""Analysis makes spelling variants meet, keeps negations and keeps codes exact."""

from __future__ import annotations

import pytest

from models.analysis import analyze, analyze_query, detect_language


def _terms(text: str, language: str | None = None) -> set[str]:
    return set(analyze(text, language))


def test_accents_and_case_do_not_matter() -> None:
    assert analyze("Ação") == analyze("acao") == analyze("AÇÕES") == analyze("ações")
    assert analyze("Contratação", "pt") == analyze("contratacao", "pt")
    assert analyze("POLÍTICA de segurança") == analyze("politica de seguranca")


def test_portuguese_stemming_joins_singular_plural_and_derived_nouns() -> None:
    assert analyze("contratos", "pt") == analyze("contrato", "pt")
    # Snowball also reduces "contratação" to the same stem; "contratar" too.
    assert analyze("contratação", "pt") == analyze("contratações", "pt") == analyze("contrato", "pt")
    assert analyze("fornecedores", "pt") == analyze("fornecedor", "pt")
    assert analyze("disciplinas", "pt") == analyze("disciplina", "pt")


def test_english_stemming() -> None:
    assert analyze("policies", "en") == analyze("policy", "en")
    assert analyze("studies", "en") == analyze("study", "en")


def test_stopwords_go_but_negations_stay() -> None:
    pt = analyze("A empresa não renovou o contrato sem aviso e nunca pagou")
    assert {"nao", "sem", "nunca"} <= set(pt)
    assert not {"a", "o", "e"} & set(pt)
    assert len(pt) == 8
    en = analyze("The policy does not apply to the data, no exceptions")
    assert {"not", "no"} <= set(en)
    assert not {"the", "to", "does"} & set(en)
    assert analyze("não pagou") != analyze("pagou")


@pytest.mark.parametrize(
    ("text", "whole", "parts"),
    [
        ("CT-2024-0187", "ct-2024-0187", {"ct", "2024", "0187"}),
        ("AX-4410", "ax-4410", {"ax", "4410"}),
        ("ISO/IEC 27001", "iso/iec", {"iso", "iec", "27001"}),
        ("Lei 13.709/2018", "13.709/2018", {"lei", "13709", "13", "709", "2018"}),
        ("cláusula 7.3", "7.3", {"7", "3"}),
        ("art. 5º", "art.5", {"art", "5"}),
        ("POP-QUA-001", "pop-qua-001", {"pop", "qua", "001"}),
        ("R$ 5.000,00", "5.000,00", {"r$", "5000", "5", "000"}),
    ],
)
def test_identifiers_are_kept_whole_and_split(text: str, whole: str, parts: set[str]) -> None:
    terms = _terms(text)
    assert whole in terms
    assert parts <= terms


def test_similar_codes_share_only_their_common_parts() -> None:
    assert _terms("CT-2024-0187") & _terms("CT-2024-0178") == {"ct", "2024"}
    assert "7.3" not in _terms("cláusula 3.7")
    assert analyze("Art. 5º") == analyze("artigo 5")
    assert "ct-2024-0187" in _terms("CT–2024–0187")  # typographic dash


def test_numbers_kept_and_single_letters_dropped() -> None:
    terms = analyze("Em 2018 a lei x entrou em vigor no dia 14", "pt")
    assert "2018" in terms and "14" in terms
    assert "x" not in terms


def test_detect_language() -> None:
    assert detect_language("O titular dos dados pode solicitar a exclusão das informações.") == "pt"
    assert detect_language("Quais são os prazos para a rescisão do contrato?") == "pt"
    assert detect_language("The controller must delete the personal data without undue delay.") == "en"
    assert detect_language("What is the notice period for terminating this agreement?") == "en"
    assert detect_language("data retention policies") == "en"
    assert detect_language("contratos vigentes") == "pt"
    assert detect_language("CT-2024-0187") == "pt"
    assert detect_language("") == "pt"


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="language"):
        analyze("texto", "es")


def test_portuguese_no_is_in_the_not_a_negation() -> None:
    """Portuguese "no" is "em" + "o" ("no leito"): a function word like "na", so "o paciente no leito" and
    "o paciente na cama" share no term but the patient; English "no" still negates."""
    assert analyze("o paciente no leito", "pt") == analyze("o paciente leito", "pt")
    assert "no" not in analyze_query("qual o prazo no pronto-socorro?", "pt")
    assert "no" in analyze("no exceptions apply", "en")
    assert "nao" in analyze("não se aplica", "pt")
