"""One hostile file never stops a run: each case sits next to a good file, the run finishes, the good file is
indexed and the bad one is either indexed correctly or quarantined with a reason a person can act on.
Every file is built here by code (no binary blobs)."""

from __future__ import annotations

import io
import os
import unicodedata
import zipfile
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from lakerag.cli import main
from transforms.pipeline import run_index
from transforms.stages.extract import STOPPED_TWICE

GOOD = "# Norma boa\n\n## 1. Objetivo\n\nEste documento bom descreve o procedimento de limpeza.\n"


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "source"
    source.mkdir()
    (source / "bom.md").write_text(GOOD, encoding="utf-8")
    return source


def _tables(settings) -> tuple[dict[str, dict], dict[str, dict]]:
    paths = LakePaths(settings.home)
    docs = {d["path"]: d for d in pq.read_table(paths.table("documents")).to_pylist() if d["is_current"]}
    quarantine = {q["path"]: q for q in pq.read_table(paths.table("quarantine")).to_pylist()}
    return docs, quarantine


def _docx(names: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in names.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_zip_entry_flagged_utf8_with_undecodable_name_is_quarantined(tmp_path, settings_for):
    source = _source(tmp_path)
    data = _docx({"[Content_Types].xml": "<Types/>", "word/document.xml": "<w:document/>", "word/é.xml": "<x/>"})
    # the name is written as UTF-8 with the UTF-8 flag; swap its two bytes for ones no UTF-8 decoder accepts
    (source / "estranho.docx").write_bytes(data.replace("é".encode(), b"\xff\xfe"))
    settings = settings_for(source)
    record = run_index(settings)
    docs, quarantine = _tables(settings)
    assert docs["bom.md"]["status"] == "active" and record.documents_active == 1
    assert "not valid UTF-8" in quarantine["estranho.docx"]["reason"]


@pytest.mark.parametrize("payload, reason", [
    (b"PK\x03\x04" + b"\x00" * 40, "corrupt or truncated ZIP container"),
    (_docx({"[Content_Types].xml": "<Types/>", "word/styles.xml": "<w:styles/>"}), "DOCX without word/document.xml"),
])
def test_broken_docx_containers_say_what_is_wrong(tmp_path, settings_for, payload, reason):
    source = _source(tmp_path)
    (source / "quebrado.docx").write_bytes(payload)
    settings = settings_for(source)
    run_index(settings)
    docs, quarantine = _tables(settings)
    assert docs["bom.md"]["status"] == "active"
    assert quarantine["quebrado.docx"]["reason"].startswith(reason)


def test_latin1_file_name_is_ingested_under_a_readable_path(tmp_path, settings_for):
    source = _source(tmp_path)
    raw = os.path.join(os.fsencode(source), b"caf\xe9.txt")  # as a Latin-1 system writes "café.txt"
    with open(raw, "wb") as handle:
        handle.write("Cardápio do café da manhã: pão, frutas e café.\n".encode())
    settings = settings_for(source)
    run_index(settings)
    docs, _ = _tables(settings)
    assert docs["caf\ufffd.txt"]["status"] == "active" and docs["bom.md"]["status"] == "active"
    assert run_index(settings).unchanged == 2  # found again on disk, nothing changed


def test_a_name_too_long_for_its_sidecar_is_ingested(tmp_path, settings_for):
    source = _source(tmp_path)
    name = "a" * 251 + ".txt"  # 255 bytes: the sidecar's name would not fit in the file system
    (source / name).write_text("Texto com nome de arquivo muito longo.\n", encoding="utf-8")
    settings = settings_for(source)
    run_index(settings)
    docs, _ = _tables(settings)
    assert docs[name]["status"] == "active" and docs[name]["access_groups"] == ["public"]


def test_runaway_line_is_cut_into_bounded_chunks(tmp_path, settings_for):
    source = _source(tmp_path)
    (source / "tabela.md").write_text("|" * 2_000_000 + "\n", encoding="utf-8")
    settings = settings_for(source)
    record = run_index(settings)
    chunks = pq.read_table(LakePaths(settings.home).table("chunks"), columns=["path", "text"]).to_pylist()
    runaway = [c for c in chunks if c["path"] == "tabela.md"]
    assert len(runaway) >= 2_000_000 // settings.ingest.max_chunk_chars
    assert max(len(c["text"]) for c in runaway) <= settings.ingest.max_chunk_chars + 200  # + the context line
    assert record.snapshot_id is not None  # indexed and published, not stopped by the embedder


def test_nfd_names_are_ingested_and_nfc_twins_quarantined(tmp_path, settings_for):
    source = _source(tmp_path)
    nfd = unicodedata.normalize("NFD", "Política.md")
    (source / nfd).write_text("# Política\n\nTexto da política de visitas.\n", encoding="utf-8")
    settings = settings_for(source)
    run_index(settings)
    docs, _ = _tables(settings)
    assert docs["Política.md"]["status"] == "active"  # stored in NFC, read from the NFD name on disk
    original = docs["Política.md"]["document_id"]
    (source / unicodedata.normalize("NFC", "Política.md")).write_text("# Outra\n\nOutro texto.\n", "utf-8")
    second = run_index(settings)
    rows = [d for d in pq.read_table(LakePaths(settings.home).table("documents")).to_pylist()
            if d["is_current"] and d["path"] == "Política.md"]
    assert {(d["document_id"] == original, d["status"]) for d in rows} == {(True, "active"), (False, "quarantined")}
    _, quarantine = _tables(settings)
    assert "NFC/NFD twins" in quarantine["Política.md"]["reason"]
    assert second.changed == 0
    assert run_index(settings).changed == 0  # not "1 changed" on every run


def test_folder_configuration_that_is_a_folder_exits_2_with_one_line(tmp_path, capsys):
    source = _source(tmp_path)
    (source / ".lakerag.yaml").mkdir()
    assert main(["index", "--quiet", "--source", str(source), "--home", str(tmp_path / "home")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot read the folder configuration" in err


def test_a_file_that_stopped_the_run_twice_is_quarantined_not_retried(tmp_path, settings_for):
    from lakehouse.ids import sha256_file
    from lakehouse.storage import write_json

    source = _source(tmp_path)
    (source / "veneno.md").write_text("# Veneno\n\nUm arquivo que derrubou o processo duas vezes.\n", "utf-8")
    (source / "retry.md").write_text("# Retry\n\nUm arquivo que derrubou o processo uma vez.\n", "utf-8")
    settings = settings_for(source)
    paths = LakePaths(settings.home)
    # what two runs killed while extracting each file leave behind (the marker is written before the work)
    write_json({"attempts": 2}, paths.attempt(sha256_file(source / "veneno.md")))
    write_json({"attempts": 1}, paths.attempt(sha256_file(source / "retry.md")))
    run_index(settings)
    docs, quarantine = _tables(settings)
    assert quarantine["veneno.md"]["reason"] == STOPPED_TWICE
    assert docs["retry.md"]["status"] == "active" and docs["bom.md"]["status"] == "active"
    assert not list(paths.cache.rglob("*.attempt.json"))


def _bomb_docx(inflated: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document>" + " " * inflated + "</w:document>")
    return buffer.getvalue()


def test_decompression_bombs_are_refused_before_decompressing(tmp_path, settings_for):
    source = _source(tmp_path)
    (source / "bomba.docx").write_bytes(_bomb_docx(40 * 1024 * 1024))  # ~40 KB on disk, 40 MB inside
    settings = settings_for(source, max_unzipped_bytes=30 * 1024 * 1024)
    run_index(settings)
    docs, quarantine = _tables(settings)
    assert docs["bom.md"]["status"] == "active"
    assert quarantine["bomba.docx"]["reason"].startswith("decompression bomb:")
    assert "LAKERAG_MAX_UNZIPPED_BYTES" in quarantine["bomba.docx"]["reason"]


def test_random_bytes_named_html_and_deep_html_get_their_own_reasons(tmp_path, settings_for):
    source = _source(tmp_path)
    (source / "ruido.html").write_bytes(bytes(range(256)) * 16)
    (source / "fundo.html").write_text("<html><body>" + "<div>" * 100_000 + "fim" + "</div>" * 100_000
                                       + "</body></html>", encoding="utf-8")
    settings = settings_for(source)
    run_index(settings)
    docs, quarantine = _tables(settings)
    assert docs["bom.md"]["status"] == "active"
    assert "binary data" in quarantine["ruido.html"]["reason"]  # not 5 chunks of mojibake
    assert quarantine["fundo.html"]["reason"].startswith("structure nested too deeply to parse")


def test_an_extraction_over_its_time_bound_is_quarantined_and_the_run_goes_on(tmp_path, settings_for):
    import shutil

    from tests.fixtures.paths import SAMPLE

    source = _source(tmp_path)
    pdf = next(p for p in sorted((SAMPLE / "POPs").rglob("*.pdf")))
    shutil.copy(pdf, source / "lento.pdf")
    settings = settings_for(source, extract_timeout=0.001)  # no PDF opens in a millisecond
    record = run_index(settings)
    _, quarantine = _tables(settings)
    assert quarantine["lento.pdf"]["reason"].startswith("extraction took longer than 0.001 s")
    assert "LAKERAG_EXTRACT_TIMEOUT" in quarantine["lento.pdf"]["reason"] and record.snapshot_id


def test_documents_nobody_can_read_are_warned_about(tmp_path, settings_for):
    source = _source(tmp_path)
    (source / ".lakerag.yaml").write_text("default_groups: [public]\naccess:\n  - prefix: RH/\n    groups: [rh]\n",
                                          encoding="utf-8")
    (source / "RH").mkdir()
    for name, groups in (("vazio.md", "[]"), ("typo.md", "[hr]"), ("certo.md", "[rh]")):
        (source / "RH" / name).write_text(f"# {name}\n\nTexto do RH.\n", encoding="utf-8")
        (source / "RH" / f"{name}.meta.yaml").write_text(f"groups: {groups}\n", encoding="utf-8")
    settings = settings_for(source)
    record = run_index(settings)
    warnings = "\n".join(record.errors)
    assert "RH/vazio.md: readable by nobody" in warnings
    assert "RH/typo.md: groups hr appear in no rule" in warnings
    assert "certo.md" not in warnings and "bom.md" not in warnings


def test_nfc_nfd_twins_found_together_keep_the_first(tmp_path, settings_for):
    """Both twins present at the first run: the one kept (the first in the walk's order) is ingested with its
    own bytes; before, land opened the other twin, failed its hash check and both were lost."""
    source = _source(tmp_path)
    nfd, nfc = (unicodedata.normalize(form, "Política.md") for form in ("NFD", "NFC"))
    (source / nfd).write_text("# Política\n\nTexto da política de visitas.\n", encoding="utf-8")
    (source / nfc).write_text("# Outra\n\nOutro texto.\n", encoding="utf-8")
    settings = settings_for(source)
    run_index(settings)
    rows = [d for d in pq.read_table(LakePaths(settings.home).table("documents")).to_pylist()
            if d["is_current"] and d["path"] == "Política.md"]
    assert sorted(d["status"] for d in rows) == ["active", "quarantined"]
    chunks = pq.read_table(LakePaths(settings.home).table("chunks")).to_pylist()
    kept = next(d for d in rows if d["status"] == "active")
    assert "política de visitas" in " ".join(c["text"] for c in chunks if c["document_id"] == kept["document_id"])
