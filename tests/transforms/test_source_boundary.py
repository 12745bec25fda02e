"""The source folder is a permission boundary: links never carry a document across it or across access groups."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lakehouse.paths import LakePaths
from tests.fixtures.paths import SAMPLE
from transforms.discovery import LEAVES_SOURCE, NOT_FOLLOWED, scan_source
from transforms.pipeline import run_index

SALARY = "Tabela de Faixas Salariais 2025.pdf"


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """The sample's RH folder and folder configuration, plus links inside and outside the source."""
    source = tmp_path / "source"
    shutil.copytree(SAMPLE / "RH", source / "RH")
    shutil.copy(SAMPLE / ".lakerag.yaml", source / ".lakerag.yaml")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd.txt").write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    (outside / "dir").mkdir()
    (outside / "dir" / "segredo.md").write_text("# Segredo\n\nTexto fora da fonte.\n", encoding="utf-8")
    misc = source / "Diversos"
    misc.mkdir()
    (misc / "atalho.pdf").symlink_to(Path("..") / "RH" / SALARY)
    (misc / "passwd.txt").symlink_to(outside / "passwd.txt")
    (misc / "fora").symlink_to(outside / "dir", target_is_directory=True)
    (misc / "nota.md").write_text("# Nota\n\nUma nota pública.\n", encoding="utf-8")
    return source


def _reasons(entries) -> dict[str, str | None]:
    return {e.relpath: (str(e.error) if e.error else None) for e in entries}


def test_links_are_not_followed_by_default_and_outside_targets_never(linked):
    reasons = _reasons(scan_source(linked, {}, 10**9))
    assert reasons["Diversos/atalho.pdf"] == NOT_FOLLOWED
    assert reasons["Diversos/passwd.txt"] == LEAVES_SOURCE
    assert reasons["Diversos/fora"] == LEAVES_SOURCE
    assert not any(path.startswith("Diversos/fora/") for path in reasons)  # the outside folder is not walked
    assert reasons["Diversos/nota.md"] is None and reasons[f"RH/{SALARY}"] is None


def test_followed_link_inside_takes_the_targets_groups(linked, settings_for):
    entries = {e.relpath: e for e in scan_source(linked, {}, 10**9, follow_symlinks=True)}
    assert entries["Diversos/atalho.pdf"].error is None
    assert entries["Diversos/atalho.pdf"].acl_relpath == f"RH/{SALARY}"
    assert str(entries["Diversos/passwd.txt"].error) == LEAVES_SOURCE
    assert str(entries["Diversos/fora"].error) == LEAVES_SOURCE

    settings = settings_for(linked, follow_symlinks=True, ocr=False)
    run_index(settings)
    paths = LakePaths(settings.home)
    docs = {d["path"]: d for d in pq.read_table(paths.table("documents")).to_pylist() if d["is_current"]}
    assert docs["Diversos/atalho.pdf"]["access_groups"] == ["rh"]
    assert docs["Diversos/passwd.txt"]["status"] == "quarantined"
    raw = b"".join(p.read_bytes() for p in (settings.home / "raw").rglob("*") if p.is_file())
    assert b"root:x:0:0" not in raw  # nothing from outside the source was copied into the lakehouse


def test_special_files_are_never_opened(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    os.mkfifo(source / "pipe.txt")  # opening it for reading would block the run forever
    (source / "ok.md").write_text("# Ok\n\ntexto\n", encoding="utf-8")
    reasons = _reasons(scan_source(source, {}, 10**9))
    assert reasons["pipe.txt"].startswith("not a regular file")
    assert reasons["ok.md"] is None
