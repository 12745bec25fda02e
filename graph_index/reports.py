"""Community reports, rewritten only for communities whose content hash changed.

Without an LLM a report is extractive: the title names the community's three most connected entities, the
summary counts its entities, relations, chunks and documents and names its central entities, and 3-6
findings are the member chunks' sentences that mention the most member entities, each citing the chunks it
appears in. The rating (0-10) grows with the number of entities and relations. With an LLM the model writes
title, summary, findings and rating from the same evidence (``graph_index.llm_reports``); findings citing
chunk ids outside the evidence lose them, and a report that fails falls back to the extractive one.

A report carries ``chunk_ids`` = every evidence chunk of its community and ``access_group_sets`` = the
distinct access-group sets of those chunks: the search side shows a report only to a caller who can read
all of them."""

from __future__ import annotations

import logging
import math
from collections import Counter
from dataclasses import dataclass

from graph_index.keys import light
from graph_index.sentences import Sentence
from models.llm import LLMClient, LLMError

__all__ = ["ReportInputs", "extractive_report", "write_reports"]

log = logging.getLogger(__name__)

MAX_FINDINGS = 6
MIN_FINDINGS = 3
_TITLE_ENTITIES = 3
_SUMMARY_ENTITIES = 5
_TYPE_LABELS = {
    "pt": {"ORGANIZATION": "organizações", "PERSON": "pessoas", "CODE": "códigos", "NORM": "normas",
           "CONCEPT": "conceitos", "LOCATION": "locais", "OTHER": "outros"},
    "en": {"ORGANIZATION": "organisations", "PERSON": "people", "CODE": "codes", "NORM": "norms",
           "CONCEPT": "concepts", "LOCATION": "places", "OTHER": "other"},
}
_SUMMARY = {
    "pt": "{n} entidades ({types}) e {m} relações, de {k} trechos de {d} documentos. "
          "Entidades centrais: {top}.",
    "en": "{n} entities ({types}) and {m} relations, from {k} chunks of {d} documents. "
          "Central entities: {top}.",
}


@dataclass
class ReportInputs:
    entities: dict[str, dict]  # entity id -> ENTITIES row
    sentences: dict[str, list[tuple[Sentence, frozenset[str]]]]  # chunk id -> sentences, entity ids in each
    documents: dict[str, str]  # chunk id -> document id
    groups: dict[str, tuple[str, ...]]  # chunk id -> sorted access groups
    languages: dict[str, str]  # chunk id -> "pt" | "en"


def write_reports(communities: list[dict], inputs: ReportInputs, previous: list[dict],
                  client: LLMClient | None) -> tuple[list[dict], int]:
    """COMMUNITY_REPORTS rows, reusing the previous report of an unchanged content hash; (rows, rewritten)."""
    mode = "llm" if client is not None else "extractive"
    reusable = {r["content_hash"]: r for r in previous if r["source"] == mode}
    rows, rewritten = [], 0
    for community in communities:
        old = reusable.get(community["content_hash"])
        if old is not None:
            report = {k: old[k] for k in ("title", "summary", "findings", "rating", "source")}
        else:
            report = _new_report(community, inputs, client)
            rewritten += 1
        group_sets = sorted({tuple(inputs.groups.get(c, ())) for c in community["chunk_ids"]})
        rows.append({"community_id": community["community_id"], "level": community["level"],
                     "content_hash": community["content_hash"], **report, "chunk_ids": community["chunk_ids"],
                     "access_group_sets": [list(g) for g in group_sets]})
    return rows, rewritten


def _new_report(community: dict, inputs: ReportInputs, client: LLMClient | None) -> dict:
    report = extractive_report(community, inputs)
    if client is None:
        return report
    from graph_index.llm_reports import llm_report

    try:
        written = llm_report(client, community, inputs, report)
    except LLMError as exc:
        log.warning("report of %s falls back to extractive: %s", community["community_id"], exc)
        return report
    return written or report


def extractive_report(community: dict, inputs: ReportInputs) -> dict:
    members = [inputs.entities[e] for e in community["entity_ids"] if e in inputs.entities]
    ranked = sorted(members, key=lambda e: (-e["degree"], -e["frequency"], e["name"]))
    language = _language(community["chunk_ids"], inputs.languages)
    types = Counter(e["type"] for e in members)
    labels = _TYPE_LABELS[language]
    relations = len(community["relationship_ids"])
    summary = _SUMMARY[language].format(
        n=len(members), m=relations, k=len(community["chunk_ids"]),
        d=len({inputs.documents.get(c) for c in community["chunk_ids"]}),
        types=", ".join(f"{n} {labels.get(t, t.lower())}"
                        for t, n in sorted(types.items(), key=lambda x: (-x[1], x[0]))),
        top=", ".join(e["name"] for e in ranked[:_SUMMARY_ENTITIES]))
    rating = min(10.0, 2.0 * math.log2(1 + len(members)) + math.log2(1 + relations) / 2)
    return {"title": ", ".join(e["name"] for e in ranked[:_TITLE_ENTITIES]), "summary": summary,
            "findings": central_sentences(community, inputs), "rating": round(rating, 1),
            "source": "extractive"}


def central_sentences(community: dict, inputs: ReportInputs, limit: int = MAX_FINDINGS) -> list[dict]:
    """Sentences of member chunks mentioning the most member entities, with every chunk each appears in."""
    members = set(community["entity_ids"])
    degree = {e: inputs.entities[e]["degree"] for e in members if e in inputs.entities}
    found: dict[str, dict] = {}
    for chunk_id in community["chunk_ids"]:
        for sentence, entities in inputs.sentences.get(chunk_id, []):
            inside = entities & members
            if not inside:
                continue
            key = light(sentence.text)
            entry = found.setdefault(key, {"text": sentence.text, "chunk_ids": set(), "inside": inside})
            entry["chunk_ids"].add(chunk_id)
    ranked = sorted(found.values(), key=lambda f: (-len(f["inside"]), " | " in f["text"],
                                                   -sum(degree.get(e, 0) for e in f["inside"]), f["text"]))
    chosen = [f for f in ranked if len(f["inside"]) >= 2][:limit]
    if len(chosen) < MIN_FINDINGS:
        chosen += [f for f in ranked if len(f["inside"]) < 2][:MIN_FINDINGS - len(chosen)]
    return [{"text": f["text"], "chunk_ids": sorted(f["chunk_ids"])} for f in chosen]


def _language(chunk_ids: list[str], languages: dict[str, str]) -> str:
    counts = Counter(languages.get(c, "pt") for c in chunk_ids)
    return "en" if counts["en"] > counts["pt"] else "pt"
