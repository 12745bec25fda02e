"""A short question's analysis language comes from the index when nothing in the question decides it: "fava
beans" over an English index is read as English (today's detector alone says Portuguese), a question with
marker words or diacritics keeps its detected language, and the index keeps its language shares on disk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.analysis import analyze, analyze_query, detect_language, language_shares, query_languages
from models.sparse import META_FILE, build_sparse_index, load_sparse_index, save_sparse_index

ENGLISH = {"en": 1.0}
MIXED = {"pt": 0.6, "en": 0.4}
UNDECIDED = ["DHA", "fava beans", "Do Cholesterol Statin Drugs Cause Breast Cancer?"]


@pytest.mark.parametrize("question", UNDECIDED)
def test_undecided_short_english_questions_follow_an_english_index(question: str) -> None:
    assert detect_language(question) == "pt"  # the detector alone is unchanged (the answer layer calls it)
    assert query_languages(question, ENGLISH) == ("en",)
    assert query_languages(question, MIXED) == ("pt", "en")  # both candidates, most held first
    assert query_languages(question) == ("pt",)  # no shares: today's path


@pytest.mark.parametrize(("question", "language"), [("qual o prazo do contrato?", "pt"),
                                                    ("Ação de cobrança", "pt"),
                                                    ("What is the notice period of the contract?", "en")])
def test_a_decided_question_keeps_its_language_whatever_the_index_holds(question: str, language: str) -> None:
    assert query_languages(question, ENGLISH) == (language,)
    assert query_languages(question, {"pt": 1.0}) == (language,)


def test_a_language_with_a_stray_share_is_no_candidate() -> None:
    assert query_languages("fava beans", {"en": 0.9997, "pt": 0.0003}) == ("en",)
    assert query_languages("fava beans", {"en": 0.954, "pt": 0.046}) == ("en", "pt")


def test_analyze_query_reads_an_undecided_question_in_the_index_languages() -> None:
    assert analyze_query("fava beans") == ["fav", "beans"]  # unchanged without shares
    assert analyze_query("fava beans", shares=ENGLISH) == ["fava", "bean"]
    assert analyze_query("fava beans", shares=MIXED) == ["fav", "beans", "fava", "bean"]  # merged, pt first
    assert analyze_query("fava beans", "pt", shares=ENGLISH) == ["fav", "beans"]  # an explicit language wins


def test_unknown_languages_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="shares"):
        query_languages("fava beans", {"fr": 1.0})
    with pytest.raises(ValueError, match="languages"):
        build_sparse_index(["a"], [["x"]], languages=["fr"])
    with pytest.raises(ValueError, match="1 chunk ids but 2 languages"):
        build_sparse_index(["a"], [["x"]], languages=["en", "en"])


CHUNKS = {"fava": "Fava bean consumption and favism in patients with G6PD deficiency.",
          "dha": "DHA supplementation in pregnancy and infant cognition.",
          "statin": "Statin drugs and the risk of breast cancer: a cohort study of cholesterol lowering.",
          "other": "Soy protein intake and bone density in older women."}


def _english_index():
    languages = [detect_language(t) for t in CHUNKS.values()]
    assert set(languages) == {"en"}
    return build_sparse_index(list(CHUNKS), [analyze(t, "en") for t in CHUNKS.values()], languages=languages)


def test_an_english_index_finds_the_short_english_questions() -> None:
    index = _english_index()
    assert index.languages == {"en": 1.0}
    assert index.chunk_ids[index.search("fava beans", 1)[0][0]] == "fava"
    assert index.chunk_ids[index.search("Do Cholesterol Statin Drugs Cause Breast Cancer?", 1)[0][0]] == "statin"
    assert index.query_languages("fava beans") == ("en",)
    assert index.query_languages("fava beans", "pt") == ("pt",)
    assert index.search("fava beans", 1, language="pt") == []  # read as Portuguese, nothing matches


def test_a_mixed_index_searches_the_better_known_reading() -> None:
    texts = {**CHUNKS, "pt1": "O contrato de fornecimento prevê reajuste anual.",
             "pt2": "A política de segurança define os prazos de resposta."}
    languages = [detect_language(t) for t in texts.values()]
    tokens = [analyze(t, lang) for t, lang in zip(texts.values(), languages, strict=True)]
    index = build_sparse_index(list(texts), tokens, languages=languages)
    assert set(index.languages) == {"en", "pt"}
    assert index.query_languages("fava beans") == ("en",)  # "fava", "bean" are known; "fav", "beans" are not
    assert index.chunk_ids[index.search("fava beans", 1)[0][0]] == "fava"


def test_shares_survive_save_and_load_and_an_older_index_loads_without(tmp_path: Path) -> None:
    index = _english_index()
    save_sparse_index(index, tmp_path)
    assert json.loads((tmp_path / META_FILE).read_text())["languages"] == {"en": 1.0}
    assert load_sparse_index(tmp_path).languages == {"en": 1.0}
    meta = json.loads((tmp_path / META_FILE).read_text())
    del meta["languages"]  # written before the index kept its shares
    (tmp_path / META_FILE).write_text(json.dumps(meta))
    older = load_sparse_index(tmp_path)
    assert older.languages == {} and older.query_languages("fava beans") == ("pt",)


def test_language_shares_counts_each_chunk_once() -> None:
    assert language_shares(["pt", "en", "pt", "pt"]) == {"pt": 0.75, "en": 0.25}
    assert language_shares([]) == {}
