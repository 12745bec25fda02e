"""File-level purge operations: matching folds case, accents and spacing at word boundaries; rewrites replace
files instead of editing them; part caches keep only live keys."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq

from lakehouse.erasures import Blocklist, append_receipt, receipt_digest, receipts
from lakehouse.paths import LakePaths
from lakehouse.purge import ERASED, Matcher, drop_rows, redact_json, redact_rows, retain_keys
from lakehouse.sweep import sweep
from transforms.purge.subjects import subject_needles


def test_matcher_folds_case_accents_and_spaces_at_word_boundaries():
    matcher = Matcher(["thiago martins araujo", "Ana Costa"])
    assert matcher.search("Ata: THIAGO  Martins\nAraújo assinou")
    assert not matcher.search("Mariana Costa aprovou") and matcher.search("(Ana Costa)")
    assert Matcher(subject_needles("123.456.789-09")).search("CPF 12345678909 do titular")
    assert Matcher(subject_needles("12345678909")).search("CPF: 123.456.789-09")
    assert matcher.strip_paragraphs("Intro.\n\nThiago Martins Araújo recebe.\n\nFim.") == "Intro.\n\nFim."


def test_rewrites_replace_the_file_and_leave_other_links_alone(tmp_path):
    path = tmp_path / "chunks.parquet"
    pq.write_table(pa.table({"chunk_id": ["a", "b"], "text": ["Thiago Martins Araújo", "outro"],
                             "tags": [["Thiago Martins Araújo", "x"], ["y"]]}), path)
    snapshot = tmp_path / "snapshot.parquet"
    snapshot.hardlink_to(path)
    assert redact_rows(path, Matcher(["thiago martins araujo"])) == 2
    assert pq.read_table(path).to_pylist()[0] == {"chunk_id": "a", "text": None, "tags": ["x"]}
    assert pq.read_table(snapshot).num_rows == 2 and pq.read_table(snapshot)["text"][0].as_py()
    assert drop_rows(path, "chunk_id", ["b"]) == 1 and pq.read_table(path).num_rows == 1


def test_sweep_drops_cache_rows_and_redacts_records(tmp_path):
    cache, records = tmp_path / "cache", tmp_path / "runs"
    cache.mkdir(), records.mkdir()
    pq.write_table(pa.table({"key": ["k1", "k2"], "text": ["joão silva", "nada"]}), cache / "part.parquet")
    (cache / "answer.json").write_text(json.dumps({"text": "Joao Silva"}))
    (records / "run.json").write_text(json.dumps({"errors": ["RH/João Silva.pdf: corrupt"], "n": 1}))
    matcher = Matcher(["João Silva"])
    assert sweep(cache, matcher) == {"rows": 1, "files": 1}
    assert pq.read_table(cache / "part.parquet")["key"].to_pylist() == ["k2"]
    assert redact_json(records / "run.json", matcher) == 1
    assert json.loads((records / "run.json").read_text()) == {"errors": [ERASED], "n": 1}
    assert retain_keys(cache, {"none"}) == 1 and not list(cache.glob("*.parquet"))


def test_receipts_append_and_the_blocklist_keeps_digests_only(tmp_path):
    paths = LakePaths(tmp_path)
    append_receipt(paths, {"action": "erase", "subject_sha256": receipt_digest(paths, "Thiago Martins Araújo")})
    append_receipt(paths, {"action": "gc"})
    assert [r["action"] for r in receipts(paths)] == ["erase", "gc"]
    assert receipts(paths)[0]["subject_sha256"] == receipt_digest(paths, "thiago  martins araujo")
    Blocklist(paths).add({"ab" * 32: "erased"})
    assert Blocklist(paths).kind("ab" * 32) == "erased" and Blocklist(paths).kind("cd" * 32) is None
    assert "ab" * 32 not in (tmp_path / "erasures" / "blocked.json").read_text()


def test_receipt_digests_are_keyed_per_installation(tmp_path):
    """A receipt cannot be confirmed by hashing guessed names or every CPF: the key is this home's own secret,
    made at first use, owner-readable only, and another installation's digest of the same name differs."""
    import hashlib
    import stat

    one, other = LakePaths(tmp_path / "one"), LakePaths(tmp_path / "other")
    mine = receipt_digest(one, "123.456.789-09")
    assert mine == receipt_digest(one, "123.456.789-09") != receipt_digest(other, "123.456.789-09")
    for salt in ("lakerag-erasure", ""):  # the old fixed salt, or none: no match
        assert mine != hashlib.sha256(f"{salt}\x1f123.456.789-09".encode()).hexdigest()
    secret = one.erasures / "secret.key"
    assert len(secret.read_bytes()) == 32 and stat.S_IMODE(secret.stat().st_mode) == 0o600
