"""`evaluate_modes` scores basic, local and hybrid on a BEIR folder whose questions need two passages."""

from __future__ import annotations

import json

from lakerag.indexer import PipelineIndexer
from serving.evaluation.modes import all_evidence_at, evaluate_modes

CORPUS = [
    ("Maximum Overdrive", "Maximum Overdrive is a 1986 horror film directed by Stephen King, shot in and "
     "around Leland, North Carolina."),
    ("Leland, North Carolina", "Leland is a town in Brunswick County, North Carolina. Maximum Overdrive was "
     "filmed there."),
    ("Stephen King", "Stephen King is an American author of horror novels, born in Portland, Maine."),
    ("Portland, Maine", "Portland is the largest city in Maine, on Casco Bay."),
    ("Casco Bay", "Casco Bay is an inlet of the Gulf of Maine."),
    ("Brunswick County", "Brunswick County is a county in North Carolina."),
    # Distractors: with 16 passages a top 10 leaves six out, so all_evidence@10 can fail.
    ("The Shining", "The Shining is a 1980 film by Stanley Kubrick, adapted from a novel."),
    ("Wilmington", "Wilmington is a port city in New Hanover County with a film studio."),
    ("Bangor, Maine", "Bangor is a city on the Penobscot River where several authors have lived."),
    ("Raleigh", "Raleigh is the capital of North Carolina and seat of Wake County."),
    ("Augusta, Maine", "Augusta is the capital of Maine, on the Kennebec River."),
    ("Horror film", "A horror film is a genre that seeks to elicit fear; many were shot in the 1980s."),
    ("Gulf of Maine", "The Gulf of Maine is a large gulf of the Atlantic Ocean."),
    ("Pender County", "Pender County lies north of Wilmington in North Carolina."),
    ("Carrie", "Carrie is a 1974 novel and a 1976 film about a shy high-school student."),
    ("Cape Fear River", "The Cape Fear River flows past Wilmington to the Atlantic."),
]
QUERIES = {"q1": ("Who directed the film shot around Leland, North Carolina in 1986?",
                  ["Maximum Overdrive", "Leland, North Carolina"]),
           "q2": ("In which city was the director of Maximum Overdrive born?",
                  ["Maximum Overdrive", "Stephen King"])}


def test_all_evidence_needs_every_relevant_document():
    assert all_evidence_at(["a", "b", "c"], {"a": 1, "c": 1}, k=3) == 1.0
    assert all_evidence_at(["a", "b", "c"], {"a": 1, "c": 1}, k=2) == 0.0
    assert all_evidence_at(["a"], {}, k=2) == 0.0


def test_evaluate_modes_reports_recall_and_all_evidence_per_mode(tmp_path):
    from lakehouse.settings import Settings

    folder = tmp_path / "tiny-hotpot"
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps({"_id": t, "title": t, "text": x})
                                                   for t, x in CORPUS), encoding="utf-8")
    (folder / "queries.jsonl").write_text("\n".join(json.dumps({"_id": q, "text": t})
                                                    for q, (t, _) in QUERIES.items()), encoding="utf-8")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t1\n" for q, (_, docs) in QUERIES.items() for d in docs), encoding="utf-8")
    result = evaluate_modes(folder, Settings(embedding_model="wordllama", enrich="off"), tmp_path / "work",
                            PipelineIndexer())
    assert result["queries"] == 2 and result["graph_entities"] > 0
    assert set(result["modes"]) == {"basic", "local", "hybrid"}
    for metrics in result["modes"].values():
        assert 0 <= metrics["all_evidence@10"] <= metrics["recall@10"] <= 1
    assert result["modes"]["hybrid"]["all_evidence@10"] == 1.0  # both passages of both questions, of 16
