"""Per-corpus calibration: the publish step fits the fusion weight and the refusal threshold on the labelled
questions (cross-validated, defaults below a minimum), records them in the snapshot manifest, and the API serves
with the snapshot's values."""

from __future__ import annotations

import json

import pytest

from lakehouse.ids import document_id_for
from lakehouse.paths import LakePaths
from lakehouse.snapshots import annotate, current_id, read_manifest
from tests.fixtures.api import serve

TRAVEL = "Qual é o prazo para prestar contas de despesas de viagem?"
ANSWERABLE = [
    (TRAVEL, "Políticas/Política de Viagens.md", ["public"]),
    ("Em quanto tempo terceiros devem notificar incidentes de segurança?", "Políticas/Política de Segurança.md",
     ["public"]),
    ("Quem hospeda os dados clínicos em nuvem?", "Contratos/CT-2024-0187.md", ["juridico"]),
    ("Qual empresa faz a limpeza hospitalar diária?", "Contratos/CT-2024-0178.md", ["juridico"]),
    ("Quantos caracteres devem ter as senhas de sistemas?", "Manual.md", ["public"]),
    ("Qual a faixa salarial do analista sênior de segurança?", "RH/Faixas salariais.md", ["rh"]),
]
UNANSWERABLE = ["Qual é o valor do contrato de vigilância patrimonial?", "Quantos leitos de UTI pediátrica há?",
                "Qual o cardápio do refeitório às sextas-feiras?", "Quem venceu o torneio de futebol interno?",
                "Qual é a política de uso de bicicletas no estacionamento?"]


@pytest.fixture(scope="module")
def questions(tmp_path_factory):
    rows = [{"id": f"a{i}", "question": q, "relevant_document_ids": [document_id_for(p)], "groups": g,
             "answerable": True, "kind": "fact"} for i, (q, p, g) in enumerate(ANSWERABLE)]
    rows += [{"id": f"u{i}", "question": q, "relevant_document_ids": [], "groups": ["public"], "answerable": False,
              "kind": "refusal"} for i, q in enumerate(UNANSWERABLE)]
    path = tmp_path_factory.mktemp("calibration") / "questions.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


def test_publish_records_fitted_values_and_their_scores(indexed, questions):
    from serving.evaluation.publish import calibrate_snapshot

    settings, _ = indexed
    snapshot = current_id(LakePaths(settings.home))
    fitted = calibrate_snapshot(settings.replace(calibration_min_questions=5), snapshot, questions)
    stored = read_manifest(LakePaths(settings.home), snapshot)["calibration"]
    assert stored == fitted and stored["questions_sha256"]
    fusion, refusal = stored["fusion"], stored["refusal"]
    assert fusion["questions"] == len(ANSWERABLE) and set(fusion["mrr_by_weight"]) >= {"0.3", "0.5", "0.7"}
    assert 0 <= fusion["cv_mrr_fitted"] <= 1 and 0 <= fusion["cv_mrr_default"] <= 1
    # adopted only when its held-out score is no worse than the default's
    assert fusion["fitted"] == (fusion["cv_mrr_fitted"] >= fusion["cv_mrr_default"])
    assert stored["fusion_dense_weight"] == (fusion["value"] if fusion["fitted"] else None)
    assert refusal["questions"] == len(ANSWERABLE) + len(UNANSWERABLE) and refusal["unanswerable"] == 5
    assert {"loo_precision", "loo_recall", "default_f1"} <= set(refusal)


def test_below_the_minimum_the_defaults_stay(indexed, questions):
    from serving.answers.engine import load_engine
    from serving.evaluation.calibrate import calibrate

    settings, _ = indexed
    engine = load_engine(settings, current_id(LakePaths(settings.home)))
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()]
    result = calibrate(settings.replace(calibration_min_questions=50), engine, rows)
    assert result["fusion_dense_weight"] is None and result["min_relevance"] is None
    assert "default kept" in result["fusion"]["reason"] and "default kept" in result["refusal"]["reason"]


def test_the_api_serves_with_the_snapshots_values(indexed):
    settings, _ = indexed
    paths = LakePaths(settings.home)
    snapshot = current_id(paths)
    ask = {"question": TRAVEL, "mode": "basic"}
    with serve(settings) as server:
        assert server.client.post("/v1/query", json=ask).json()["status"] == "answered"
    annotate(paths, snapshot, {"calibration": {"fusion_dense_weight": 0.8, "min_relevance": 0.99}})
    try:
        with serve(settings) as server:
            assert server.holder.engine.config.dense_weight == 0.8
            assert server.client.post("/v1/query", json=ask).json()["status"] == "not_found"
    finally:
        annotate(paths, snapshot, {"calibration": None})


def test_calibration_fits_on_dev_and_the_gate_measures_test(indexed, tmp_path):
    from serving.evaluation.publish import calibrate_snapshot, evaluate_snapshot

    settings, _ = indexed
    snapshot = current_id(LakePaths(settings.home))
    rows = [{"id": f"a{i}", "question": q, "relevant_document_ids": [document_id_for(p)], "groups": g,
             "answerable": True, "kind": "fact", "split": "test" if i < 2 else "dev"}
            for i, (q, p, g) in enumerate(ANSWERABLE)]
    rows += [{"id": f"u{i}", "question": q, "relevant_document_ids": [], "groups": ["public"], "answerable": False,
              "kind": "refusal", "split": "dev"} for i, q in enumerate(UNANSWERABLE)]
    path = tmp_path / "split.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    try:
        fitted = calibrate_snapshot(settings.replace(calibration_min_questions=3), snapshot, path)
        assert fitted["split"] == "dev"
        assert fitted["fusion"]["questions"] == len(ANSWERABLE) - 2  # the two test questions are never fitted on
        assert fitted["refusal"]["questions"] == len(ANSWERABLE) - 2 + len(UNANSWERABLE)
    finally:
        annotate(LakePaths(settings.home), snapshot, {"calibration": None})
    evaluation = evaluate_snapshot(settings, snapshot, path)
    assert evaluation["split"] == "test" and evaluation["answerable"] == 2
