"""`lakerag eval --dataset` on a BEIR folder takes the fused ranking's dense weight from the corpus: the weight the
publish step's fit adopts on the judged queries is scored as ``calibrated-<w>`` beside the fixed weights and is the
default; it is recorded in the home's published snapshot, which the answer service (the API's engine) then
serves with, and a snapshot's stored calibration on the same queries is what the evaluation uses."""

from __future__ import annotations

from lakehouse.paths import LakePaths
from lakehouse.snapshots import annotate, current_id, read_manifest
from lakerag.indexer import PipelineIndexer
from tests.serving.evaluation.test_beir_answers import _folder


def _settings(**extra):
    from lakehouse.settings import Settings

    return Settings(**{"embedding_model": "wordllama", "enrich": "off", "calibration_min_questions": 2, **extra})


def test_the_calibrated_weight_is_scored_beside_the_fixed_ones_and_is_the_default(tmp_path):
    from serving.evaluation.runner import evaluate_beir

    result = evaluate_beir(_folder(tmp_path), _settings(fusion_dense_weight=0.3), tmp_path / "work",
                           PipelineIndexer(), "off")
    fusion = result["calibration"]["plain"]
    assert fusion["fitted"] and fusion["questions"] == 2 and fusion["metric"] == "nDCG@10"
    assert set(fusion["ndcg_by_weight"]) >= {"0.3", "0.5", "0.7"}
    name = f"plain/calibrated-{fusion['value']:g}"
    assert result["default"] == name and result["fixed_default"] == "plain/weighted-0.3"
    assert {name, "plain/weighted-0.3", "plain/weighted-0.5", "plain/bm25", "plain/dense"} <= set(result["configs"])
    assert 0 < result["configs"][name]["ndcg@10"] <= 1


def test_too_few_judged_queries_keep_the_fixed_default(tmp_path):
    from serving.evaluation.runner import evaluate_beir

    result = evaluate_beir(_folder(tmp_path), _settings(calibration_min_questions=30), tmp_path / "work",
                           PipelineIndexer(), "off")
    assert not result["calibration"]["plain"]["fitted"]
    assert result["default"] == result["fixed_default"] == "plain/weighted-0.5"
    assert not any("calibrated" in name for name in result["configs"])


def test_the_snapshot_records_the_weight_the_answer_service_and_eval_then_use(tmp_path):
    from serving.evaluation.answer_sets import _published_home
    from serving.evaluation.answers import open_service
    from serving.evaluation.modes import evaluate_modes
    from serving.evaluation.runner import evaluate_beir

    folder, work = _folder(tmp_path), tmp_path / "work"
    vsettings = _published_home(folder, _settings(), work, PipelineIndexer())  # what `eval --answers` serves
    paths = LakePaths(vsettings.home)
    snapshot = current_id(paths)
    calibration = read_manifest(paths, snapshot)["calibration"]
    assert calibration["fusion"]["fitted"] and calibration["fusion_dense_weight"] == calibration["fusion"]["value"]
    engine = open_service(vsettings).holder.require()
    assert engine.config.dense_weight == calibration["fusion_dense_weight"]
    # a weight stored for these queries (as the publish step stores one) is the one the evaluation uses
    stored = {**calibration["fusion"], "value": 0.7}
    annotate(paths, snapshot, {"calibration": {**calibration, "fusion_dense_weight": 0.7, "fusion": stored}})
    result = evaluate_beir(folder, _settings(), work, PipelineIndexer(), "off")
    assert result["default"] == "plain/calibrated-0.7" and "plain/calibrated-0.7" in result["configs"]
    assert open_service(vsettings).holder.require().config.dense_weight == 0.7
    assert evaluate_modes(folder, _settings(), work, PipelineIndexer(), ("basic",))["dense_weight"] == 0.7


def test_the_evaluation_grades_with_the_thresholds_the_api_serves(tmp_path, monkeypatch):
    """`eval --answers` measures the answers the API gives: the same refusal and correct thresholds, read from
    the same settings, whose defaults are the ones fitted on dev (``grading.CORRECT_AT``)."""
    from lakehouse.settings import Settings
    from serving.answers import grading
    from serving.answers.reloader import SnapshotHolder
    from serving.evaluation.answers import open_service

    assert Settings().api.grade_correct_at == grading.CORRECT_AT
    monkeypatch.setattr(SnapshotHolder, "refresh", lambda self: None)
    monkeypatch.setattr(SnapshotHolder, "require", lambda self: None)
    monkeypatch.setenv("LAKERAG_API_GRADE_CORRECT_AT", "0.61")
    monkeypatch.setenv("LAKERAG_API_MIN_RELEVANCE", "0.44")
    service = open_service(Settings(home=tmp_path / "home"))
    assert (service.correct_at, service.min_relevance) == (0.61, 0.44)
