"""File type detection: each kind of bad file gets a readable reason."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from lakehouse.errors import DocumentError
from transforms.detection import detect_type


def _detect(path: Path) -> str:
    return detect_type(path, path.stat().st_size)


def _docx_bytes(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("word/document.xml", "<w:document/>")


def test_known_types(tmp_path):
    (tmp_path / "a.pdf").write_bytes(b"%PDF-1.7\n...")
    (tmp_path / "b.md").write_text("# T\n", encoding="utf-8")
    (tmp_path / "c.html").write_text("<!DOCTYPE html><html></html>", encoding="utf-8")
    (tmp_path / "d.txt").write_text("olá", encoding="utf-8")
    _docx_bytes(tmp_path / "e.docx")
    assert [_detect(tmp_path / n) for n in ("a.pdf", "b.md", "c.html", "d.txt", "e.docx")] == [
        "pdf", "markdown", "html", "text", "docx"]


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("vazio.txt", b"", "zero-byte file"),
        ("planilha.xlsx", None, "unsupported type: '.xlsx'"),
        ("programa.exe", b"MZ\x90\x00", "unsupported type: '.exe'"),
        ("relatorio.docx", b"%PDF-1.4 fake", "wrong extension: '.docx' file contains PDF data"),
        ("nota.pdf", b"just some text", "wrong extension: '.pdf' file does not contain PDF data"),
    ],
)
def test_bad_files_are_rejected_with_a_reason(tmp_path, name, content, reason):
    path = tmp_path / name
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("xl/workbook.xml", "<workbook/>")
    else:
        path.write_bytes(content)
    with pytest.raises(DocumentError) as err:
        _detect(path)
    assert err.value.reason.startswith(reason) and err.value.stage == "discover"
