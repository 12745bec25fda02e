"""``lakerag erase``: remove one document (every version), or everything that mentions one person, from every
table, cache, run record and snapshot at once, rebuild the derived indexes and publish the result.

Order: rewrite the committed tables without the erased rows (a document wholly about the person goes whole; a
document that only mentions them keeps its other chunks and loses the paragraphs naming them), remove the
content files, block the content hashes so the source's copy is not ingested again, run a maintenance run
(contexts, vectors, BM25 and graph rebuilt from the tables; a new snapshot published), drop every other
snapshot that still mentions the subject, prune and sweep the caches and redact the run records. A receipt
without erased content is appended to ``erasures/receipts.jsonl``."""

from __future__ import annotations

import logging
import secrets
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Literal

from lakehouse import paths as lp
from lakehouse import schemas as s
from lakehouse.erasures import (
    Blocklist,
    append_receipt,
    clear_inflight,
    close_request,
    inflight,
    pending_requests,
    receipt_digest,
    receipts,
    save_inflight,
)
from lakehouse.errors import LakeragError
from lakehouse.mirror import synced
from lakehouse.paths import LakePaths
from lakehouse.purge import Matcher, content_files, drop_matching_rows, drop_rows, redact_rows, remove
from lakehouse.runs import home_lock
from lakehouse.settings import Settings
from lakehouse.snapshots import current_id, drop, finish_drops, list_snapshots, snapshot_dir
from lakehouse.storage import read_table
from lakehouse.sweep import mentioning_files, mentions_any, sweep
from transforms.purge import caches
from transforms.purge.maintenance import refuse_if_busy, remove_interrupted_writes, republish
from transforms.purge.subjects import find_mentions

log = logging.getLogger(__name__)


class ErasureError(LakeragError):
    """An erasure target that does not exist or cannot be carried out."""


@dataclass
class ErasurePlan:
    """What an erasure removes. ``needles`` and ``paths`` are erased content: shown to the operator in a dry
    run, never written to the receipt."""

    kind: Literal["subject", "document"]
    target_digest: str
    needles: set[str]
    whole: set[str] = field(default_factory=set)
    partial: set[str] = field(default_factory=set)
    chunks: set[str] = field(default_factory=set)
    entities: dict[str, str] = field(default_factory=dict)
    erased_hashes: set[str] = field(default_factory=set)
    redacted_hashes: set[str] = field(default_factory=set)
    paths: list[str] = field(default_factory=list)
    erased_paths: set[str] = field(default_factory=set)

    def as_json(self) -> dict:
        return {k: sorted(v) if isinstance(v, set) else v for k, v in asdict(self).items()}

    @classmethod
    def from_json(cls, data: dict) -> ErasurePlan:
        sets = {f.name for f in fields(cls) if f.type in ("set[str]",)}
        return cls(**{f.name: set(data[f.name]) if f.name in sets else data[f.name] for f in fields(cls)})

    def summary(self) -> dict[str, int]:
        return {"documents_erased": len(self.whole), "documents_redacted": len(self.partial),
                "chunks": len(self.chunks), "entities": len(self.entities),
                "versions": len(self.erased_hashes) + len(self.redacted_hashes)}


def _documents(paths: LakePaths) -> list[dict]:
    return read_table(paths.table("documents"), s.DOCUMENTS).to_pylist()


def _resumed(paths: LakePaths, kind: str, target_digest: str) -> ErasurePlan | None:
    """The plan of this same erasure when a crash interrupted it: made from the tables before the erasure began
    rewriting them, so a rerun erases what an uninterrupted run would have (replanning would find less)."""
    earlier = inflight(paths)
    if earlier is None or (earlier["kind"], earlier["target_digest"]) != (kind, target_digest):
        return None
    return ErasurePlan.from_json(earlier["plan"])


@synced
def plan_document(settings: Settings, document_id: str) -> ErasurePlan:
    paths = LakePaths(settings.home)
    if (resumed := _resumed(paths, "document", receipt_digest(paths, document_id))) is not None:
        return resumed
    versions = [r for r in _documents(paths) if r[s.DOCUMENT_ID] == document_id]
    if not versions:
        raise ErasureError(f"document {document_id!r} is not in {paths.table('documents')}")
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(["chunk_id", s.DOCUMENT_ID]).to_pylist()
    hashes = {r[s.CONTENT_HASH] for r in versions if r[s.CONTENT_HASH]}
    doc_paths = sorted({r[s.PATH] for r in versions})
    return ErasurePlan("document", receipt_digest(paths, document_id), {document_id, *hashes, *doc_paths},
                       whole={document_id},
                       chunks={c["chunk_id"] for c in chunks if c[s.DOCUMENT_ID] == document_id},
                       erased_hashes=hashes, paths=doc_paths, erased_paths=set(doc_paths))


@synced
def plan_subject(settings: Settings, subject: str) -> ErasurePlan:
    if not subject.strip():
        raise ErasureError("--subject needs a name, a CPF or an e-mail")
    paths = LakePaths(settings.home)
    if (resumed := _resumed(paths, "subject", receipt_digest(paths, subject))) is not None:
        return resumed
    found = find_mentions(paths, subject)
    rows = _documents(paths)
    whole_hashes = {r[s.CONTENT_HASH] for r in rows if r[s.DOCUMENT_ID] in found.whole and r[s.CONTENT_HASH]}
    partial_current = {r[s.CONTENT_HASH] for r in rows if r[s.DOCUMENT_ID] in found.partial and r["is_current"]}
    doc_paths = sorted({r[s.PATH] for r in rows if r[s.DOCUMENT_ID] in found.whole | found.partial
                        or r[s.CONTENT_HASH] in found.retired})
    kept_paths = {r[s.PATH] for r in rows if r[s.DOCUMENT_ID] in found.partial and r["is_current"]}
    return ErasurePlan("subject", receipt_digest(paths, subject), found.needles,
                       whole=found.whole, partial=found.partial, chunks=found.chunks, entities=found.entities,
                       erased_hashes=(whole_hashes | found.retired) - partial_current,
                       redacted_hashes=partial_current, paths=doc_paths,
                       erased_paths={p for p in doc_paths if p not in kept_paths})


def _rewrite_tables(paths: LakePaths, plan: ErasurePlan, names: Matcher) -> Counter[str]:
    removed: Counter[str] = Counter()
    table = paths.table
    removed["documents"] += drop_rows(table("documents"), s.DOCUMENT_ID, plan.whole)
    removed["documents"] += drop_rows(table("documents"), s.CONTENT_HASH, plan.erased_hashes)
    removed["quarantine"] += drop_rows(table("quarantine"), s.DOCUMENT_ID, plan.whole)
    removed["quarantine"] += drop_rows(table("quarantine"), s.CONTENT_HASH, plan.erased_hashes)
    removed["extracted"] += drop_rows(table("extracted"), s.CONTENT_HASH, plan.erased_hashes)
    for name in ("chunks", "contexts", "vectors"):
        removed[name] += drop_rows(table(name), "chunk_id", plan.chunks)
    removed["chunks"] += drop_rows(table("chunks"), s.DOCUMENT_ID, plan.whole)
    if names:
        removed["contexts"] += drop_matching_rows(table("contexts"), names)  # the enrich stage writes new ones
        removed["extracted_values"] += redact_rows(table("extracted"), names, frozenset({"markdown"}))
    return removed


def _content(paths: LakePaths, plan: ErasurePlan, names: Matcher) -> Counter[str]:
    removed: Counter[str] = Counter()
    for digest_ in plan.erased_hashes:
        removed["content_files"] += sum(remove(p) for p in content_files(paths, digest_))
    for digest_ in plan.redacted_hashes:
        removed["raw_blobs"] += remove(paths.blob(digest_))
        if paths.extracted_part(digest_).exists():
            removed["extracted_values"] += redact_rows(paths.extracted_part(digest_), names, frozenset({"markdown"}))
        for part in paths.cache_dir(lp.CHUNKS).glob(f"*/{digest_[:2]}/{digest_}.parquet"):
            removed["chunk_drafts"] += drop_matching_rows(part, names)
    Blocklist(paths).add({**dict.fromkeys(plan.erased_hashes, "erased"),
                          **dict.fromkeys(plan.redacted_hashes, "redacted")})
    return removed


@synced
def erase(settings: Settings, plan: ErasurePlan, requested_by: str, request_id: str | None = None) -> dict:
    """Carry out ``plan``; returns the receipt (also appended to the erasure log).

    The plan is recorded (``erasures/inflight.json``) before the first change and removed after the receipt:
    a rerun after a crash at any point carries out the recorded plan again (every step is idempotent) and
    writes one receipt; an interrupted erasure of another target is finished first."""
    paths = LakePaths(settings.home)
    with home_lock(paths):
        refuse_if_busy(paths)
        earlier = inflight(paths)
        if earlier is not None and (earlier["kind"], earlier["target_digest"]) != (plan.kind, plan.target_digest):
            log.warning("finishing erasure %s, which a crash interrupted, first", earlier["id"])
            _carry_out(settings, ErasurePlan.from_json(earlier["plan"]), earlier["requested_by"],
                       earlier["request_id"], earlier["id"])
            earlier = None
        if earlier is None:
            erasure_id = "erasure_" + secrets.token_hex(8)
            save_inflight(paths, {"id": erasure_id, "kind": plan.kind, "target_digest": plan.target_digest,
                                  "requested_by": requested_by, "request_id": request_id, "plan": plan.as_json()})
        else:
            erasure_id, plan = earlier["id"], ErasurePlan.from_json(earlier["plan"])
        return _carry_out(settings, plan, requested_by, request_id, erasure_id)


def _carry_out(settings: Settings, plan: ErasurePlan, requested_by: str, request_id: str | None,
               erasure_id: str) -> dict:
    """The erasure itself, under the home lock; its receipt is written once even when a crash came after it."""
    started = time.perf_counter()
    paths = LakePaths(settings.home)
    done = next((r for r in receipts(paths) if r.get("erasure_id") == erasure_id), None)
    if done is not None:  # the crash came between the receipt and the end
        clear_inflight(paths)
        return done
    names = Matcher(plan.needles) if plan.kind == "subject" else Matcher([])
    everything = Matcher([*plan.needles, *plan.whole, *plan.chunks, *plan.entities, *plan.erased_hashes,
                          *plan.erased_paths])
    interrupted = finish_drops(paths)  # a crash mid-drop left erased data aside: finish it first
    strays = remove_interrupted_writes(paths)  # and a crash mid-write, half-written files
    removed = _rewrite_tables(paths, plan, names) + _content(paths, plan, names)
    removed["interrupted_drops"] += interrupted
    removed["interrupted_writes"] += strays
    run_id, published = republish(settings)
    dropped = [m["id"] for m in list_snapshots(paths) if m["id"] != current_id(paths)
               and mentions_any(snapshot_dir(paths, m["id"]), everything)]
    for snapshot_id in dropped:
        drop(paths, snapshot_id)
    removed.update({f"cache_{k}": v for k, v in caches.prune_keyed(paths, settings).items()})
    removed["content_files"] += sum(remove(p) for p in caches.orphans(paths, caches.referenced_hashes(paths)))
    for name in (lp.LLM_ANSWERS, lp.GRAPH_SEARCH):  # answers built on the old evidence
        removed[f"cache_{name}"] += remove(paths.cache_dir(name))
    swept = sweep(paths.cache, everything) + sweep(paths.dbt, everything) + sweep(paths.eval_work, everything)
    records = sweep(paths.runs, everything, record=True) + sweep(paths.table("runs"), everything, record=True)
    leftovers = [p for p in mentioning_files(paths.home, everything)  # the request being served is closed next
                 if paths.erasures not in p.parents]
    receipt = {"action": "erase", "kind": plan.kind, f"{plan.kind}_sha256": plan.target_digest,
               "requested_by": requested_by, "request_id": request_id, "erasure_id": erasure_id, **plan.summary(),
               "removed": {k: v for k, v in sorted(removed.items()) if v},
               "swept": {"caches": dict(swept), "run_records": dict(records)},
               "snapshots_dropped": len(dropped), "snapshot_published": published, "maintenance_run": run_id,
               "files_still_mentioning": len(leftovers), "seconds": round(time.perf_counter() - started, 2)}
    if leftovers:
        log.error("erasure left %d files that still mention the target (see the receipt)", len(leftovers))
    receipt = append_receipt(paths, receipt)
    clear_inflight(paths)
    return receipt


@synced
def run_pending(settings: Settings) -> list[dict]:
    """Finish an erasure a crash interrupted, then carry out the erasures queued through the API, oldest first;
    each request is removed once done (the receipt names its id, never its target)."""
    paths = LakePaths(settings.home)
    done = []
    if (earlier := inflight(paths)) is not None:  # a crash interrupted it (queued or from the command line)
        done.append(erase(settings, ErasurePlan.from_json(earlier["plan"]), earlier["requested_by"],
                          earlier["request_id"]))
        if earlier["request_id"]:
            close_request(paths, earlier["request_id"])
    for request in pending_requests(paths):
        kind, target = request["kind"], request["target"]
        try:
            plan = plan_subject(settings, target) if kind == "subject" else plan_document(settings, target)
        except ErasureError as exc:  # nothing to erase: say so without naming the target
            log.warning("erasure request %s: %s", request["id"], type(exc).__name__)
            done.append(append_receipt(paths, {"action": "erase", "kind": kind, "request_id": request["id"],
                                               f"{kind}_sha256": receipt_digest(paths, target), "requested_by":
                                               request["requested_by"], "result": "not found"}))
        else:
            done.append(erase(settings, plan, request["requested_by"], request["id"]))
        close_request(paths, request["id"])
    return done
