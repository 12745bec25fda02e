"""The bundled sample corpus: its documents, bad files, question set, and the determinism of its build."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from pathlib import Path, PurePosixPath

import pytest
import yaml

from lakehouse.ids import document_id_for, normalize_relpath

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "sample_corpus"
DOCS = CORPUS / "documents"
BUILD_SCRIPT = REPO / "scripts" / "build_sample_corpus.py"
BAD_DIR = "Diversos/arquivos-problematicos"
FIELDS = (
    "id",
    "question",
    "expected_answer",
    "relevant_paths",
    "relevant_document_ids",
    "groups",
    "answerable",
    "kind",
)
# the answer judge's gold facts, multi-hop reading lists, the frozen dev/test split, unanswerable near misses
OPTIONAL = {"facts", "must_read", "max_steps", "as_of", "split", "near_miss"}
VARIANT_STYLES = {"colloquial", "no_accents", "typo", "keywords", "rambling", "english"}
KINDS = {"fact", "code_lookup", "multi_hop", "governance", "global", "refusal", "injection"}


def _build_module():
    spec = importlib.util.spec_from_file_location("build_sample_corpus", BUILD_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def build():
    return _build_module()


def _walk_files(root: Path) -> list[str]:
    """Relative POSIX paths of regular files and symlinks, without following symlinks."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):  # followlinks=False
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            if full.is_symlink() or full.is_file():
                out.append(normalize_relpath(full.relative_to(root).as_posix()))
    return sorted(out)


def _good_documents() -> list[str]:
    return [
        p
        for p in _walk_files(DOCS)
        if not p.startswith(BAD_DIR + "/")
        and PurePosixPath(p).name != ".lakerag.yaml"
        and not p.endswith(".meta.yaml")
    ]


@pytest.fixture(scope="module")
def questions() -> list[dict]:
    with (CORPUS / "questions.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="module")
def variants() -> list[dict]:
    with (CORPUS / "variants.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="module")
def folder_config() -> dict:
    return yaml.safe_load((DOCS / ".lakerag.yaml").read_text(encoding="utf-8"))


def _expected_bad_files() -> dict[str, str]:
    text = (CORPUS / "EXPECTED.md").read_text(encoding="utf-8")
    section = text.split("## Bad files", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1]
    return rows


# ----------------------------------------------------------------------------------------------- documents


def test_enough_good_documents_in_mixed_formats():
    docs = _good_documents()
    assert len(docs) >= 40
    formats = Counter(PurePosixPath(p).suffix.lower() for p in docs)
    assert formats[".pdf"] >= 0.35 * len(docs)
    assert formats[".docx"] >= 0.15 * len(docs)
    for ext in (".html", ".md", ".txt"):
        assert formats[ext] >= 2, ext
    assert all(os.path.getsize(DOCS / p) > 500 for p in docs)


def test_text_encodings_are_varied():
    cp1252 = (DOCS / "Políticas/Política de Gestão de Resíduos de Serviços de Saúde.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        cp1252.decode("utf-8")
    assert "Resíduos".encode("cp1252") in cp1252
    utf16 = (
        DOCS / "Instruções de Trabalho/IT-ALM-009 Recebimento de Materiais no Almoxarifado.txt"
    ).read_bytes()
    assert utf16.startswith(b"\xff\xfe")
    assert "Próxima revisão" in utf16.decode("utf-16")


def test_folder_config_shape(folder_config):
    assert folder_config["default_groups"] == ["public"]
    prefixes = {rule["prefix"]: rule["doc_type"] for rule in folder_config["taxonomy"]}
    assert prefixes["Protocolos/PROTOCOLO GERENCIADO"] == "protocolo_gerenciado"
    assert prefixes["Protocolos/PROTOCOLO"] == "protocolo"
    access = {rule["prefix"]: rule["groups"] for rule in folder_config["access"]}
    assert access["RH/"] == ["rh"]
    sidecars = [p for p in _walk_files(DOCS) if p.endswith(".pdf.meta.yaml")]
    assert sidecars
    for sidecar in sidecars:
        assert (DOCS / sidecar[: -len(".meta.yaml")]).is_file()
        assert yaml.safe_load((DOCS / sidecar).read_text(encoding="utf-8"))["groups"] == ["diretoria"]


def test_bad_files_listed_in_expected_exist():
    bad = _expected_bad_files()
    assert len(bad) >= 9
    for rel, kind in bad.items():
        assert kind, rel
        assert os.path.lexists(DOCS / rel), rel
    on_disk = {p for p in _walk_files(DOCS) if p.startswith(BAD_DIR + "/")}
    assert on_disk == set(bad)
    loop = DOCS / BAD_DIR / "loop"
    assert loop.is_symlink() and os.readlink(loop) == "."
    assert (DOCS / BAD_DIR / "vazio.txt").stat().st_size == 0


# ----------------------------------------------------------------------------------------------- questions


def test_questions_have_all_fields(questions):
    assert len(questions) >= 80
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    for q in questions:
        assert tuple(q)[: len(FIELDS)] == FIELDS and set(tuple(q)[len(FIELDS):]) <= OPTIONAL, q["id"]
        assert q["kind"] in KINDS, q["id"]
        assert q["question"].strip() and q["expected_answer"].strip(), q["id"]
        assert isinstance(q["answerable"], bool)
        assert q["groups"] and "public" in q["groups"], q["id"]
        if q["answerable"]:
            assert q["kind"] != "refusal" and q["relevant_paths"], q["id"]
        else:
            assert q["kind"] == "refusal" and not q["relevant_paths"] and not q["relevant_document_ids"], q[
                "id"
            ]
    kinds = Counter(q["kind"] for q in questions)
    assert all(kinds[k] >= 5 for k in KINDS), kinds


def test_share_of_unanswerable_questions(questions):
    plain = [q for q in questions if not q.get("near_miss")]  # near misses are counted on their own below
    share = sum(not q["answerable"] for q in plain) / len(plain)
    assert 0.10 <= share <= 0.20


def test_near_misses_are_unanswerable_refusals_a_third_of_them_in_test(questions):
    near = [q for q in questions if "near_miss" in q]
    assert len(near) >= 18
    for q in near:
        assert q["near_miss"] is True and not q["answerable"] and q["kind"] == "refusal", q["id"]
        assert not q["relevant_paths"] and q["expected_answer"].startswith(("Não encontrado", "Not found")), q["id"]
    assert abs(sum(q["split"] == "test" for q in near) - len(near) / 3) <= 1
    ids = [q["id"] for q in questions]
    assert ids[-len(near):] == [q["id"] for q in near], "near misses are appended after the original questions"


def test_relevant_paths_exist_and_ids_match(questions):
    good = set(_good_documents())
    for q in questions:
        assert len(q["relevant_paths"]) == len(q["relevant_document_ids"]), q["id"]
        for path, doc_id in zip(q["relevant_paths"], q["relevant_document_ids"], strict=True):
            assert path == normalize_relpath(path), q["id"]
            assert path in good, (q["id"], path)
            assert doc_id == document_id_for(path), (q["id"], path)


def test_askers_can_read_their_relevant_documents(questions, folder_config, build):
    for q in questions:
        for path in q["relevant_paths"]:
            sidecar = DOCS / (path + ".meta.yaml")
            override = (
                yaml.safe_load(sidecar.read_text(encoding="utf-8"))["groups"] if sidecar.exists() else None
            )
            allowed = build.expected_groups(path, folder_config, override)
            assert set(allowed) & set(q["groups"]), (q["id"], path, allowed)


def test_code_lookups_tell_the_near_identical_contracts_apart(questions):
    pairs = {"CT-2024-0187": "CT-2024-0178", "CT-2024-0178": "CT-2024-0187"}
    seen = Counter()
    for q in questions:
        for code, other in pairs.items():
            if q["kind"] == "code_lookup" and code in q["question"] and other not in q["question"]:
                seen[code] += 1
                assert all(other not in p for p in q["relevant_paths"]), q["id"]
                assert any(code in p for p in q["relevant_paths"]), q["id"]
    assert seen["CT-2024-0187"] >= 3 and seen["CT-2024-0178"] >= 3


def test_expiring_soon_question_matches_the_footers(questions, build):
    docs = build.load_sources()
    due = {d.relpath for d in docs if build.review_status(d)[1] == "due in 30 days"}
    assert 3 <= len(due) <= 7
    q = next(q for q in questions if q["question"] == "Quais documentos vencem nos próximos 30 dias?")
    assert set(q["relevant_paths"]) == due


# ----------------------------------------------------------------------------------------------- the build


def _tree_digest(root: Path) -> dict[str, str]:
    digests = {}
    for rel in _walk_files(root):
        full = root / rel
        data = os.readlink(full).encode() if full.is_symlink() else full.read_bytes()
        digests[rel] = hashlib.sha256(data).hexdigest()
    return digests


def test_build_is_deterministic_and_matches_the_committed_corpus(tmp_path):
    outs = [tmp_path / "a", tmp_path / "b"]
    procs = [
        subprocess.Popen(
            [sys.executable, str(BUILD_SCRIPT), "--out", str(out)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for out in outs
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    first, second = (_tree_digest(out) for out in outs)
    assert first == second
    committed = {
        rel: digest
        for rel, digest in _tree_digest(CORPUS).items()
        if rel.startswith("documents/")
        or rel in ("questions.jsonl", "variants.jsonl", "visual_questions.jsonl", "EXPECTED.md")
    }
    assert first == committed, "sample_corpus/ is stale: run .venv/bin/python scripts/build_sample_corpus.py"


# ----------------------------------------------------------------------------------------------- variants


def test_variants_keep_their_originals_facts_groups_and_split(questions, variants):
    by_id = {q["id"]: q for q in questions}
    seen = set()
    for v in variants:
        original = by_id[v["original"]]
        assert tuple(v)[:5] == ("id", "original", "style", "language", "question"), v["id"]
        assert v["id"] == f"{v['original']}-{v['style']}" and v["id"] not in seen
        seen.add(v["id"])
        assert v["style"] in VARIANT_STYLES
        assert v["language"] == ("en" if v["style"] == "english" else "pt"), v["id"]
        assert v["question"].strip() and v["question"] != original["question"], v["id"]
        assert {k: x for k, x in v.items() if k not in ("id", "original", "style", "language", "question")} == {
            k: x for k, x in original.items() if k not in ("id", "question")
        }, v["id"]


def _folded_words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    return re.findall(r"[a-z0-9]+", plain)


def test_variants_reword_rather_than_copy(variants, questions):
    by_id = {q["id"]: q["question"] for q in questions}
    for v in variants:
        if v["style"] != "typo":  # a typo variant may keep the wording; every other one changes a word at least
            assert _folded_words(v["question"]) != _folded_words(by_id[v["original"]]), v["id"]
        if v["style"] == "no_accents":
            assert v["question"] == v["question"].lower(), v["id"]
            assert all(ord(c) < 128 for c in v["question"]), v["id"]
        if v["style"] == "keywords":
            assert "?" not in v["question"] and len(v["question"].split()) <= 12, v["id"]
        if v["style"] == "rambling":
            assert len(v["question"].split()) >= max(25, 1.5 * len(by_id[v["original"]].split())), v["id"]


def _variant_build(build, tmp_path, items):
    src = tmp_path / "variants.yaml"
    src.write_text(yaml.safe_dump(items, allow_unicode=True), encoding="utf-8")
    questions = [{"id": "q001", "question": "Qual o prazo?", "expected_answer": "10 dias.", "split": "test"}]
    variants_module = sys.modules[build.write_variants.__module__]  # build_variants.py, imported by the build
    return variants_module.build_variants(questions, src)


@pytest.mark.parametrize(
    ("items", "message"),
    [
        ([{"of": "q999", "style": "typo", "question": "Qaul o prazo?"}], "unknown question 'q999'"),
        ([{"of": "q001", "style": "slang", "question": "qual prazo"}], "field 'style' is 'slang'"),
        (
            [{"of": "q001", "style": "typo", "question": "Qaul o prazo?"},
             {"of": "q001", "style": "typo", "question": "Qual o prazp?"}],
            "q001 already has a 'typo' variant",
        ),
        ([{"of": "q001", "style": "typo"}], "field 'question' must be a non-empty string"),
    ],
)
def test_variant_build_refuses_unknown_originals_styles_and_repeats(build, tmp_path, items, message):
    with pytest.raises(SystemExit, match=message):
        _variant_build(build, tmp_path, items)


def test_variant_build_copies_the_original_after_its_own_fields(build, tmp_path):
    rows = _variant_build(build, tmp_path, [{"of": "q001", "style": "english", "question": "What is the deadline?"}])
    assert rows == [{"id": "q001-english", "original": "q001", "style": "english", "language": "en",
                     "question": "What is the deadline?", "expected_answer": "10 dias.", "split": "test"}]


def test_every_question_has_two_rewordings_and_many_have_an_english_rendering(questions, variants):
    styles: dict[str, set[str]] = {q["id"]: set() for q in questions}
    for v in variants:
        styles[v["original"]].add(v["style"])
    near = {q["id"] for q in questions if q.get("near_miss")}
    assert [qid for qid, found in styles.items() if len(found - {"english"}) < 2 and qid not in near] == []
    assert sum(bool(styles[qid]) for qid in near) >= len(near) / 2
    english_openers = {"what", "which", "how", "who", "when", "within", "can", "under", "according"}
    portuguese = {q["id"]: q["kind"] for q in questions if q["question"].split()[0].lower() not in english_openers}
    english = {v["original"] for v in variants if v["style"] == "english" and v["original"] in portuguese}
    assert len(english) >= 45
    assert {"governance", "multi_hop", "code_lookup", "refusal", "fact", "global"} <= {portuguese[q] for q in english}
    tests = [q for q in questions if q["split"] == "test"]
    assert sum(v["split"] == "test" for v in variants) >= 2 * len(tests)
