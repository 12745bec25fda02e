"""The cross-encoder path, exercised with a tiny randomly initialised model saved locally (no reranker weights
ship in any package here, so quality gains are not measurable offline; this tests the mechanics)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lakehouse.errors import ConfigError
from serving.search import RetrievalConfig


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-ce")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz0123456789"]
    (folder / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    config = BertConfig(vocab_size=len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=512, num_labels=1)
    model = BertForSequenceClassification(config)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_reranker_rescores_the_top_candidates(indexed, tiny_cross_encoder):
    from models.rerank import load_reranker

    _, retriever = indexed
    query = "prazo de notificação de incidentes de segurança"
    plain = retriever.search(query, {"juridico"}, top_k=5)
    retriever.reranker = load_reranker(str(tiny_cross_encoder))
    try:
        reranked = retriever.search(query, {"juridico"}, top_k=5, config=RetrievalConfig(rerank=True, rerank_top=4))
        timings = retriever.timings
    finally:
        retriever.reranker = None
    assert "rerank_ms" in timings
    head = reranked[:4]
    assert {h.chunk_id for h in head} == {h.chunk_id for h in plain[:4]}  # same candidates, new order
    scores = [h.scores["rerank"] for h in head]
    assert scores == sorted(scores, reverse=True) and not np.isnan(scores).any()
    assert reranked[4].chunk_id == plain[4].chunk_id  # beyond rerank_top the fused order stays


def test_missing_reranker_names_the_setting(tmp_path):
    from models.rerank import load_reranker

    with pytest.raises(ConfigError, match="LAKERAG_RERANKER_MODEL"):
        load_reranker(str(tmp_path / "nope"))
