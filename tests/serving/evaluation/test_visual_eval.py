"""`lakerag eval --pages`: the visual questions (answers only in chart images) scored text-only and text + pages
on the same index, with the tiny random ColPali standing in for real weights."""

from __future__ import annotations

import json

from tests.fixtures.colpali import write_visual_source


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def test_eval_reports_visual_questions_with_and_without_pages(tmp_path, tiny_colpali, capsys):
    from lakehouse.ids import document_id_for
    from lakehouse.settings import Settings
    from lakerag.indexer import PipelineIndexer
    from lakerag.report import print_eval
    from serving.evaluation.report import run_eval

    dataset = tmp_path / "dataset"
    write_visual_source(dataset / "documents")
    occupancy, absence = "Relatórios/Ocupação 2025.pdf", "RH/Absenteísmo.pdf"
    _jsonl(dataset / "questions.jsonl", [
        {"id": "q1", "question": "relatório anual de ocupação hospitalar", "relevant_paths": [occupancy],
         "relevant_document_ids": [document_id_for(occupancy)], "groups": ["public"], "answerable": True,
         "kind": "fact"}])
    _jsonl(dataset / "visual_questions.jsonl", [
        {"id": "v1", "question": "Qual ala teve a maior ocupação?", "relevant_document_ids":
         [document_id_for(occupancy)], "relevant_pages": [2], "groups": ["public"], "kind": "visual"},
        {"id": "v2", "question": "Qual o absenteísmo da enfermagem?", "relevant_document_ids":
         [document_id_for(absence)], "relevant_pages": [2], "groups": ["rh"], "kind": "visual"}])
    settings = Settings(home=tmp_path / "home", embedding_model="wordllama", ocr=False, extract_timeout=0,
                        pages_model=tiny_colpali, enrich="off")
    result = run_eval(settings, dataset, tmp_path / "work", PipelineIndexer(), "off", pages=True)
    visual = result["visual"]
    assert visual["questions"] == 2 and visual["pages_model"].startswith("colpali:")
    # the chart pages hold no text: only the page signal can return them
    assert visual["configs"]["text"]["page_hit@5"] == 0.0
    assert visual["configs"]["text+pages"]["page_hit@5"] == 1.0
    print_eval(result)
    assert "text+pages" in capsys.readouterr().out

    text_only = run_eval(settings.replace(pages_model=None), dataset, tmp_path / "work2", PipelineIndexer(), "off",
                         pages=True)["visual"]
    assert list(text_only["configs"]) == ["text"] and "LAKERAG_PAGES_MODEL" in text_only["note"]
