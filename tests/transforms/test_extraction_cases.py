"""The constructed failure documents of issue 13 (built by ``scripts/build_extraction_cases.py``) extract
correctly: each test names what a reader of the Markdown would have seen go wrong."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from lakehouse.settings import Settings
from transforms.extraction import Extracted, extract_document

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build_extraction_cases.py"
KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".txt": "text"}


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_extraction_cases", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _builder().build(tmp_path_factory.mktemp("extraction_cases"))


def _extract(cases: dict[str, Path], name: str) -> Extracted:
    path = cases[name]
    return extract_document(path, KINDS[path.suffix], Settings())


def test_characters_outside_the_basic_plane_are_kept_and_encode(cases: dict[str, Path]) -> None:
    extracted = _extract(cases, "non_bmp.pdf")
    assert "Simbolo \U000f0854 marca" in extracted.markdown
    assert "\U0001d400 e a constante" in extracted.markdown
    extracted.markdown.encode("utf-8")  # was: UnicodeEncodeError, surrogates not allowed


def test_text_mixing_utf8_and_latin1_reads_both_parts(cases: dict[str, Path]) -> None:
    markdown = _extract(cases, "mixed_encoding.txt").markdown
    assert "Relatório de ações — versão em UTF-8" in markdown
    assert "Seção 2: informações de segurança gravadas em Latin-1" in markdown
    assert "Conclusão: não há pendências." in markdown
