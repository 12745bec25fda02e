"""BM25 search finds exact codes and clause numbers, honours the access mask and survives a save and load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.analysis import analyze
from models.sparse import (
    CHUNKS_FILE,
    META_FILE,
    POSTINGS_FILE,
    SparseIndex,
    SparseIndexError,
    build_sparse_index,
    load_sparse_index,
    save_sparse_index,
)

CHUNKS = {
    "c0187": "O contrato CT-2024-0187 com a Alfa Ltda. prevê reajuste anual pelo IPCA.",
    "c0178": "O contrato CT-2024-0178 com a Beta S.A. foi rescindido por inadimplência.",
    "c73": "Cláusula 7.3: o fornecedor deve notificar incidentes de segurança em 24 horas.",
    "c37": "Cláusula 3.7: o fornecedor deve manter seguro de responsabilidade civil.",
    "ax": "O equipamento AX-4410 requer calibração semestral conforme o manual.",
    "ax2": "O equipamento AX-4401 foi substituído pelo modelo mais novo.",
    "lgpd": "A Lei 13.709/2018 (LGPD) regula o tratamento de dados pessoais.",
    "lei": "A Lei 8.666/1993 regulava as licitações e contratos administrativos.",
    "en": "The data retention policy applies to all contracts signed after 2024.",
    "filler1": "A reunião do comitê de auditoria aprovou o orçamento do próximo exercício.",
    "filler2": "Os colaboradores devem concluir o treinamento de ética até dezembro.",
    "filler3": "O relatório trimestral apresenta os indicadores de qualidade do serviço.",
}
IDS = list(CHUNKS)


@pytest.fixture(scope="module")
def index() -> SparseIndex:
    return build_sparse_index(IDS, [analyze(text) for text in CHUNKS.values()])


def _top(index: SparseIndex, query: str, **kwargs: object) -> list[str]:
    return [IDS[row] for row, _ in index.search(query, **kwargs)]  # type: ignore[arg-type]


def test_exact_contract_code_wins_clearly(index: SparseIndex) -> None:
    hits = index.search("CT-2024-0187")
    assert IDS[hits[0][0]] == "c0187"
    assert IDS[hits[1][0]] == "c0178"
    assert hits[0][1] > 2 * hits[1][1]
    assert _top(index, "contrato CT-2024-0178")[0] == "c0178"
    assert _top(index, "ct-2024-0187")[0] == "c0187"


@pytest.mark.parametrize(
    ("query", "expected"),
    [("cláusula 7.3", "c73"), ("clausula 3.7", "c37"), ("AX-4410", "ax"), ("Lei 13.709/2018", "lgpd"),
     ("lei 13709", "lgpd"), ("data retention policies", "en"),
     ("contratos rescindidos", "c0178"), ("RELATORIO TRIMESTRAL", "filler3")],
)
def test_query_finds_the_expected_chunk_first(index: SparseIndex, query: str, expected: str) -> None:
    assert _top(index, query)[0] == expected


def test_scores_are_dense_and_zero_without_a_match(index: SparseIndex) -> None:
    scores = index.scores("AX-4410")
    assert scores.dtype == np.float64 and scores.shape == (len(IDS),)  # summed in float64
    assert scores[IDS.index("filler1")] == 0
    assert index.search("palavrainexistente") == []
    # A repeated query term counts once.
    assert np.array_equal(index.scores("calibração calibração"), index.scores("calibração"))


def test_masked_rows_are_never_returned(index: SparseIndex) -> None:
    allowed = np.ones(len(IDS), dtype=bool)
    allowed[IDS.index("c0187")] = False
    allowed[IDS.index("c0178")] = False
    for top_k in (1, 3, 100):
        top = _top(index, "CT-2024-0187 contrato", top_k=top_k, allowed=allowed)
        assert top and not {"c0187", "c0178"} & set(top)
    only = np.zeros(len(IDS), dtype=bool)
    only[IDS.index("filler1")] = True
    assert index.search("CT-2024-0187", top_k=50, allowed=only) == []
    with pytest.raises(ValueError, match="boolean"):
        index.search("contrato", allowed=np.ones(3, dtype=bool))


def test_ties_are_broken_by_row() -> None:
    index = build_sparse_index(["a", "b", "c"], [["x1"], ["yy"], ["x1"]])
    assert [row for row, _ in index.search("x1")] == [0, 2]


def test_save_and_load_give_identical_scores(index: SparseIndex, tmp_path: Path) -> None:
    save_sparse_index(index, tmp_path)
    loaded = load_sparse_index(tmp_path)
    assert loaded.chunk_ids == index.chunk_ids and loaded.vocabulary == index.vocabulary
    assert (loaded.k1, loaded.b) == (index.k1, index.b)
    for query in ("CT-2024-0187", "cláusula 7.3", "data retention policies", "fornecedor seguro"):
        assert np.array_equal(loaded.scores(query), index.scores(query))
        assert loaded.search(query) == index.search(query)
    save_sparse_index(index, tmp_path)  # overwriting in place works and leaves no temporary file
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([CHUNKS_FILE, META_FILE, POSTINGS_FILE])


@pytest.mark.parametrize("missing", [POSTINGS_FILE, CHUNKS_FILE, META_FILE])
def test_missing_file_is_named(index: SparseIndex, tmp_path: Path, missing: str) -> None:
    save_sparse_index(index, tmp_path)
    (tmp_path / missing).unlink()
    with pytest.raises(ValueError, match=missing):
        load_sparse_index(tmp_path)


def test_files_from_different_builds_are_refused(index: SparseIndex, tmp_path: Path) -> None:
    other = build_sparse_index(["z"], [["zz"]])
    save_sparse_index(index, tmp_path / "a")
    save_sparse_index(other, tmp_path / "b")
    (tmp_path / "b" / POSTINGS_FILE).replace(tmp_path / "a" / POSTINGS_FILE)
    with pytest.raises(SparseIndexError, match=POSTINGS_FILE):
        load_sparse_index(tmp_path / "a")


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="2 chunk ids but 1"):
        build_sparse_index(["a", "b"], [["x"]])
    with pytest.raises(ValueError, match="unique"):
        build_sparse_index(["a", "a"], [["x"], ["y"]])


def test_empty_index(tmp_path: Path) -> None:
    index = build_sparse_index([], [])
    assert index.search("contrato") == []
    save_sparse_index(index, tmp_path)
    assert load_sparse_index(tmp_path).search("contrato") == []


def test_top_k_ranks_like_scoring_every_row() -> None:
    """The touched-rows top-k returns exactly the top of the full score vector (ties by row), with and without
    a mask, and scoring a few rows gives the full vector's scores bit for bit."""
    rng = np.random.default_rng(3)
    vocabulary = [f"t{i}" for i in range(400)]
    weights = 1 / np.arange(1, 401) ** 1.1  # Zipf: a few terms occur in most chunks (long postings)
    docs = [list(rng.choice(vocabulary, size=int(rng.integers(5, 40)), p=weights / weights.sum()))
            for _ in range(4000)]
    docs += docs[:200]  # exact duplicates: tied scores
    index = build_sparse_index([f"d{i}" for i in range(len(docs))], docs)
    masks = [None, np.arange(len(docs)) % 7 != 0, np.arange(len(docs)) % 50 == 1]
    for query in ["t0 t1 t2 t350", "t3 t120 t5", "t0 t1", "t399 t398 t0", "t7 t8 t9 t10 t11 t1 t2 t0"]:
        full = index.scores(query)
        for allowed in masks:
            rows = np.flatnonzero(full) if allowed is None else np.flatnonzero(full * allowed)
            for k in (1, 10, 100):
                want = rows[np.lexsort((rows, -full[rows]))][:k]
                got, values = index.top(query, k, allowed)
                assert got.tolist() == want.tolist(), (query, k)
                assert np.array_equal(values, full[want])
                assert np.array_equal(index.scores_at(query, want), full[want])


def test_a_colloquial_word_searches_with_the_word_the_documents_write(index: SparseIndex) -> None:
    """"trocaram" (trocar) finds the passage that says "substituído"; a word the index holds more often than
    its synonyms is not widened to them."""
    assert _top(index, "qual equipamento foi trocado?", language="pt")[0] == "ax2"
    texts = {"a": "O fornecedor deve substituir o equipamento.", "b": "O fornecedor pode trocar o filtro.",
             "c": "A equipe deve trocar a senha."}
    plain = build_sparse_index(list(texts), [analyze(t) for t in texts.values()])
    assert sorted(list(texts)[row] for row, _ in plain.search("trocar", language="pt")) == ["b", "c"]
