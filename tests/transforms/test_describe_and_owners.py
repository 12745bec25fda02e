"""The catalog's descriptions (summary, tags, graph entities; cached by content hash) and the owners' LLM
fallback, run by the real pipeline against the local OpenAI-protocol server."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.fixtures.openai_server import FakeOpenAI
from transforms.description import distinctive_tags, extractive_summary, term_counts

DOCS = {
    "POP-COZ-001 Lavagem de Panelas.md": """# POP-COZ-001 Lavagem de Panelas

## 1. Objetivo

Padronizar a lavagem e a sanitização das panelas da cozinha hospitalar. Evitar contaminação cruzada entre
preparos. Este terceiro período não deve entrar no resumo porque o limite de caracteres é atingido antes dele,
que continua por muito tempo com palavras sem importância alguma para o catálogo do hospital e seus leitores.

## 2. Procedimento

Lavar as panelas com detergente neutro, enxaguar com água quente e sanitizar com solução clorada.

Elaborado por: Ana Souza
Documento validado pela coordenação de Carlos Lima em reunião.
""",
    "Nota de Manutenção.md": """# Nota de Manutenção

A caldeira da lavanderia passa por inspeção anual obrigatória conduzida por Bruno Dias, conforme a norma NR-13.
""",
    "Formulário de Pedido de Material.md": """# Formulário de Pedido de Material

Preencha com letra legível e entregue ao almoxarifado. Nome do solicitante ______ Quantidade ______
""",
}


def _responder(body: dict) -> str:
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if "header and footer" in system:  # the owners' fallback
        if "Panelas" in user:
            return json.dumps({"responsible": "Ana Souza", "approver": "Carlos Lima"})
        if "Caldeira" in user or "caldeira" in user:
            return json.dumps({"responsible": "Bruno Dias", "approver": None})
        return json.dumps({"responsible": "Maria Inventada", "approver": "Dr. Ninguém"})  # not in the form
    if "catalog" in system:
        return json.dumps({"summary": "Resumo do modelo.", "tags": ["Tag Um", "tag dois"]})
    return "ok"


@pytest.fixture
def corpus(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name, text in DOCS.items():
        (source / name).write_text(text, encoding="utf-8")
    return source


def _settings(tmp_path, source, fake=None):
    from lakehouse.settings import Settings

    llm = {"llm_base_url": fake.base_url, "llm_model": "fake-model"} if fake else {}
    return Settings(home=tmp_path / "home", source=source, embedding_model="wordllama", enrich="off",
                    graph_with_llm=False, extract_timeout=0, ocr=False, **llm)


def _by_title(home, table: str) -> dict[str, dict]:
    rows = pq.read_table(home / "tables" / f"{table}.parquet").to_pylist()
    if table == "extracted":
        return {r["title"]: r for r in rows}
    titles = {r["content_hash"]: r["title"] for r in pq.read_table(home / "tables" / "extracted.parquet").to_pylist()}
    return {titles[r["content_hash"]]: r for r in rows}


def _describe_record(settings, run_id):
    from lakehouse.paths import LakePaths
    from lakehouse.runs import load_stage_records

    return next(r for r in load_stage_records(LakePaths(settings.home), run_id) if r.stage == "describe")


def test_extractive_summary_reads_the_purpose_section():
    summary = extractive_summary(DOCS["POP-COZ-001 Lavagem de Panelas.md"])
    assert summary.startswith("Padronizar a lavagem e a sanitização das panelas")
    assert "Evitar contaminação cruzada" in summary and "terceiro período" not in summary
    assert extractive_summary(DOCS["Nota de Manutenção.md"]).startswith("A caldeira da lavanderia")


def test_distinctive_tags_prefer_words_of_this_document():
    texts = [DOCS[k] for k in DOCS]
    from collections import Counter

    df: Counter = Counter()
    for t in texts:
        df.update(term_counts(t, "pt")[0].keys())
    counts, surfaces = term_counts(texts[0], "pt")
    tags = distinctive_tags(counts, surfaces, df, len(texts))
    assert "panelas" in tags and len(tags) <= 8


def test_descriptions_and_owner_fallback_with_an_llm_are_cached(tmp_path, corpus):
    from transforms.pipeline import run_index

    with FakeOpenAI(responder=_responder) as fake:
        settings = _settings(tmp_path, corpus, fake)
        first = run_index(settings)
        extracted = _by_title(settings.home, "extracted")
        pop = extracted["POP-COZ-001 Lavagem de Panelas"]
        assert (pop["responsible"], pop["approver"], pop["metadata_source"]) == ("Ana Souza", "Carlos Lima", "mixed")
        note = extracted["Nota de Manutenção"]
        assert (note["responsible"], note["approver"], note["metadata_source"]) == ("Bruno Dias", None, "llm")
        form = extracted["Formulário de Pedido de Material"]
        assert (form["responsible"], form["approver"], form["metadata_source"]) == (None, None, "none")

        described = _by_title(settings.home, "descriptions")
        assert {r["summary_source"] for r in described.values()} == {"llm"}
        assert described["Nota de Manutenção"]["tags"] == ["tag um", "tag dois"]
        assert _describe_record(settings, first.run_id).processed == len(DOCS)
        asked = len(fake.requests)

        second = run_index(settings)  # nothing changed: nothing described or asked again
        assert _describe_record(settings, second.run_id).processed == 0
        assert len(fake.requests) == asked

        (corpus / "Nota de Manutenção.md").write_text(DOCS["Nota de Manutenção.md"] + "\nRevisão anual.\n")
        third = run_index(settings)
        assert _describe_record(settings, third.run_id).processed == 1


def test_without_an_llm_descriptions_are_extractive_and_owners_stay_rules(tmp_path, corpus):
    from transforms.pipeline import run_index

    settings = _settings(tmp_path, corpus)
    run_index(settings)
    extracted = _by_title(settings.home, "extracted")
    assert extracted["POP-COZ-001 Lavagem de Panelas"]["metadata_source"] == "rules"
    assert extracted["Nota de Manutenção"]["metadata_source"] == "none"
    described = _by_title(settings.home, "descriptions")
    pop = described["POP-COZ-001 Lavagem de Panelas"]
    assert pop["summary_source"] == "extractive" and pop["summary"].startswith("Padronizar a lavagem")
    assert "panelas" in pop["tags"]
    assert "POP-COZ-001" in pop["entities"]
