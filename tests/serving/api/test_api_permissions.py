"""A randomized suite of >= 1,000 requests over every endpoint: no id (document, chunk, report, entity,
relationship) or path a caller may not read ever appears anywhere in a response to that caller."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.fixtures.api import AS_OF, KEYS
from tests.fixtures.paths import REPO

SEED = int(os.environ.get("LAKERAG_PERMISSION_SEED", "20261129"))
REQUESTS = 1200
PROBES = ["faixa salarial do analista sênior", "Qual o valor mensal pago à NuvemSul?", "honorários da consultoria "
          "do Projeto Horizonte", "prazo de defesa no procedimento disciplinar", "banco de horas compensação",
          "o que a diretoria decidiu na reunião de junho?", "casos de KPC na UTI", "CT-2024-0187 anexo III",
          "CT-2023-0091", "Quais documentos do RH estão com a revisão vencida?", "Quais contratos existem?",
          "Quais documentos vencem nos próximos 400 dias?", "Which documents did Eduardo Vieira Gomes approve?",
          "riscos dos contratos de 2024", "LGPD dados pessoais de pacientes", "Sabor & Saúde refeições"]
QUESTIONS = [json.loads(line)["question"] for line in (REPO / "sample_corpus" / "questions.jsonl").read_text()
             .splitlines()] + PROBES


def _readable(groups: list[str], caller: frozenset[str]) -> bool:
    return bool(set(groups) & (caller | {"public"}))


class Secrets:
    """Everything a caller may not see, from the snapshot's own tables."""

    def __init__(self, tables: Path) -> None:
        self.chunks = pq.read_table(tables / "chunks.parquet", columns=["chunk_id", "document_id", "path",
                                                                          "access_groups"]).to_pylist()
        self.documents = pq.read_table(tables / "documents.parquet",
                                       columns=["document_id", "path", "access_groups", "is_current",
                                                "status"]).to_pylist()
        pointer = json.loads((tables / "graph.json").read_text())
        graph = tables / pointer["dir"]
        self.entities = pq.read_table(graph / "entities.parquet",
                                      columns=["entity_id", "chunk_ids"]).to_pylist()
        self.relationships = pq.read_table(graph / "relationships.parquet",
                                           columns=["relationship_id", "chunk_ids"]).to_pylist()
        self.reports = pq.read_table(graph / "community_reports.parquet",
                                     columns=["community_id", "access_group_sets"]).to_pylist()
        self.group_of = {c["chunk_id"]: c["access_groups"] for c in self.chunks}

    def hidden_from(self, caller: frozenset[str]) -> set[str]:
        hidden = {c["chunk_id"] for c in self.chunks if not _readable(c["access_groups"], caller)}
        docs = [d for d in self.documents if d["is_current"] and d["status"] == "active"]
        hidden |= {d["document_id"] for d in docs if not _readable(d["access_groups"], caller)}
        hidden |= {d["path"] for d in docs if not _readable(d["access_groups"], caller)}
        for rows, key in ((self.entities, "entity_id"), (self.relationships, "relationship_id")):
            hidden |= {r[key] for r in rows if not any(_readable(self.group_of.get(c, []), caller)
                                                          for c in r["chunk_ids"])}
        hidden |= {r["community_id"] for r in self.reports
                   if not all(_readable(s, caller) for s in r["access_group_sets"])}
        return hidden


@pytest.fixture(scope="module")
def secrets(api):
    return Secrets(api.holder.require().tables)


def _request(rng: random.Random, secrets: Secrets) -> tuple[str, str, dict]:
    kind = rng.choices(["query", "stream", "search", "document", "sections", "section", "catalog"],
                       [45, 4, 15, 10, 6, 8, 12])[0]
    question = rng.choice(QUESTIONS)
    filters = rng.choice([None, None, {"doc_types": ["contrato"]}, {"departments": ["Recursos Humanos"]},
                          {"path_prefix": "RH/"}, {"review_from": "2026-01-01"}])
    if kind in ("query", "stream"):
        body = {"question": question, "mode": rng.choice(["auto", "basic", "local", "global", "hybrid", "catalog"]),
                "top_k": rng.randint(1, 50), "as_of": AS_OF}
        if filters:
            body["filters"] = filters
        return "POST", "/v1/query/stream" if kind == "stream" else "/v1/query", {"json": body}
    if kind == "search":
        body = {"question": question, "top_k": rng.randint(1, 100),
                "method": rng.choice(["hybrid", "dense", "bm25"])}
        return "POST", "/v1/search", {"json": {**body, **({"filters": filters} if filters else {})}}
    chunk = rng.choice(secrets.chunks)
    if kind == "document":
        return "GET", f"/v1/documents/{chunk['document_id']}", {}
    if kind == "sections":
        return "GET", f"/v1/documents/{chunk['document_id']}/sections", {}
    if kind == "section":
        other = rng.choice(secrets.chunks)["document_id"] if rng.random() < 0.2 else chunk["document_id"]
        return "GET", f"/v1/documents/{other}/sections/{chunk['chunk_id']}", {}
    params = rng.choice([{}, {"outdated": "true"}, {"due_within_days": rng.randint(0, 900)},
                         {"doc_type": "rh"}, {"doc_type": "contrato"}, {"department": "Recursos Humanos"},
                         {"question": "Quais documentos vencem nos próximos 365 dias?"}])
    return "GET", "/v1/catalog", {"params": {**params, "as_of": AS_OF, "limit": 1000}}


def test_no_restricted_id_ever_appears(api, secrets):
    rng = random.Random(SEED)
    callers = [None, *KEYS]
    hidden = {name: secrets.hidden_from(frozenset(KEYS.get(name, []))) for name in callers}
    assert hidden[None] and not any(h.startswith("doc_") for h in hidden["k-all"])  # orphans aside
    statuses: dict[int, int] = {}
    for i in range(REQUESTS):
        caller = rng.choice(callers)
        method, url, kwargs = _request(rng, secrets)
        response = api.client.request(method, url, headers=api.key(caller), **kwargs)
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        assert response.status_code in (200, 400, 404), (SEED, i, url, response.text[:300])
        text = response.text
        leaked = [h for h in hidden[caller] if h in text]
        assert not leaked, f"seed {SEED} request {i}: {method} {url} {kwargs} as {caller} leaked {leaked[:5]}"
    assert sum(statuses.values()) >= 1000 and statuses[200] > 600 and statuses.get(404, 0) > 20, statuses
