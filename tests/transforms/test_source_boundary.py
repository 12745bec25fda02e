"""The source folder is a permission boundary: links never carry a document across it or across access groups."""

from __future__ import annotations

import hashlib
import json
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


SECRET = "# Faixas salariais\n\nAnalista: Mínimo 4.600,00; Máximo 5.800,00.\n"


def _same_size_public(size: int) -> str:
    text = "# Relatório público\n\nTexto público do relatório."
    return text + " " * (size - len(text.encode("utf-8")) - 1) + "\n"


def _swap_link_for_file(link: Path) -> None:
    """What the issue's attacker does: replace the link by a public file of the target's size and mtime."""
    target = link.resolve()
    size, mtime = target.stat().st_size, target.stat().st_mtime_ns
    link.unlink()
    link.write_text(_same_size_public(size), encoding="utf-8")
    os.utime(link, ns=(mtime, mtime))
    assert link.stat().st_size == size and link.stat().st_mtime_ns == mtime


def test_a_link_replaced_by_a_same_size_same_mtime_file_is_read_again(tmp_path, settings_for):
    source = tmp_path / "source"
    (source / "RH").mkdir(parents=True)
    shutil.copy(SAMPLE / ".lakerag.yaml", source / ".lakerag.yaml")
    (source / "RH" / "faixas.md").write_text(SECRET, encoding="utf-8")
    (source / "Diversos").mkdir()
    link = source / "Diversos" / "relatorio.md"
    link.symlink_to(Path("..") / "RH" / "faixas.md")
    settings = settings_for(source, follow_symlinks=True, ocr=False, embedding_model="wordllama")
    run_index(settings)
    paths = LakePaths(settings.home)

    def current() -> dict:
        docs = pq.read_table(paths.table("documents")).to_pylist()
        return next(d for d in docs if d["is_current"] and d["path"] == "Diversos/relatorio.md")

    assert current()["access_groups"] == ["rh"]
    _swap_link_for_file(link)
    run_index(settings)
    row = current()
    assert row["access_groups"] == ["public"]
    assert row["content_hash"] == hashlib.sha256(link.read_bytes()).hexdigest()  # the new file's bytes, read again
    chunks = pq.read_table(paths.table("chunks")).to_pylist()
    public_text = " ".join(c["text"] for c in chunks if c["document_id"] == row["document_id"])
    assert "Texto público" in public_text and "4.600,00" not in public_text


def test_a_file_replaced_in_place_with_the_same_size_and_mtime_is_hashed_again(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    note = source / "nota.md"
    note.write_text("# Nota\n\nversão A\n", encoding="utf-8")
    first = {e.relpath: e for e in scan_source(source, {}, 10**9)}["nota.md"]
    known = {"nota.md": (first.file_identity, first.content_hash)}
    assert scan_source(source, known, 10**9)[0].content_hash == first.content_hash  # untouched: reused
    mtime = note.stat().st_mtime_ns
    replacement = source / "nota.tmp"
    replacement.write_text("# Nota\n\nversão B\n", encoding="utf-8")
    os.utime(replacement, ns=(mtime, mtime))
    os.replace(replacement, note)  # same path, size and mtime; another inode
    again = scan_source(source, known, 10**9)[0]
    assert again.content_hash == hashlib.sha256(note.read_bytes()).hexdigest() != first.content_hash


_FLIPPER = """
import os, sys, time
path, regular, link, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
end = time.monotonic() + seconds
while time.monotonic() < end:
    os.link(regular, path + ".r"); os.replace(path + ".r", path)
    os.symlink(link, path + ".l"); os.replace(path + ".l", path)
"""


@pytest.mark.parametrize("follow", [False, True])
def test_a_file_flipping_to_a_link_during_scans_never_gets_the_targets_hash(tmp_path, follow):
    """The discovery race: a public path flipped between a file and a link to a restricted one while scans run.
    Whatever the timing, the public path's hash is the public file's, or the path is refused."""
    import subprocess
    import sys

    source = tmp_path / "source"
    (source / "RH").mkdir(parents=True)
    (source / "Diversos").mkdir()
    secret = source / "RH" / "faixas.md"
    secret.write_text(SECRET * 50, encoding="utf-8")
    public = tmp_path / "publico.md"  # outside the walk: hard-linked into place by the flipper
    public.write_text("# Público\n\n" + "texto público " * 20000, encoding="utf-8")
    path = source / "Diversos" / "relatorio.md"
    shutil.copy(public, path)
    flipper = subprocess.Popen([sys.executable, "-c", _FLIPPER, str(path), str(public), "../RH/faixas.md", "60"])
    secret_hash = hashlib.sha256(secret.read_bytes()).hexdigest()
    public_hash = hashlib.sha256(public.read_bytes()).hexdigest()
    seen = []
    try:
        for _ in range(150):
            entry = next(e for e in scan_source(source, {}, 10**9, follow_symlinks=follow)
                         if e.relpath == "Diversos/relatorio.md")
            if entry.content_hash is not None and entry.target_relpath is None:
                seen.append(entry.content_hash)
            if entry.content_hash == secret_hash:
                assert entry.acl_relpath == "RH/faixas.md"  # read through a followed link: the target's groups
    finally:
        flipper.kill()
        flipper.wait()
    assert seen and set(seen) == {public_hash}


@pytest.fixture
def flippable(tmp_path: Path) -> tuple[Path, Path, str]:
    source = tmp_path / "source"
    (source / "RH").mkdir(parents=True)
    (source / "Diversos").mkdir()
    (source / "RH" / "faixas.md").write_text(SECRET, encoding="utf-8")
    path = source / "Diversos" / "relatorio.md"
    path.write_text("# Relatório\n\nTexto público.\n", encoding="utf-8")
    return source, path, hashlib.sha256(path.read_bytes()).hexdigest()


def _make_link(path: Path) -> None:
    path.unlink()
    path.symlink_to(Path("..") / "RH" / "faixas.md")


def test_a_link_swapped_in_after_the_type_check_is_not_what_gets_hashed(flippable, monkeypatch):
    """The check and the hash read one descriptor: a swap between them changes nothing that was read."""
    import transforms.discovery as discovery

    source, path, public_hash = flippable
    real_detect = discovery.detect_type

    def detect_then_swap(*args, **kwargs):
        detected = real_detect(*args, **kwargs)
        if path.name in str(args[0]) and not path.is_symlink():
            _make_link(path)
        return detected

    monkeypatch.setattr(discovery, "detect_type", detect_then_swap)
    entry = next(e for e in scan_source(source, {}, 10**9) if e.relpath == "Diversos/relatorio.md")
    assert entry.error is None and entry.content_hash == public_hash


@pytest.mark.parametrize("follow", [False, True])
def test_a_link_swapped_in_after_the_walk_is_refused_or_read_as_the_target(flippable, monkeypatch, follow):
    import transforms.discovery as discovery

    source, path, _ = flippable
    real_display = discovery.display_relpath

    def swap_then_display(relpath: str) -> str:  # called for each walked file just before it is read
        if relpath.endswith("relatorio.md") and not path.is_symlink():
            _make_link(path)
        return real_display(relpath)

    monkeypatch.setattr(discovery, "display_relpath", swap_then_display)
    entry = next(e for e in scan_source(source, {}, 10**9, follow_symlinks=follow)
                 if e.relpath == "Diversos/relatorio.md")
    secret_hash = hashlib.sha256(SECRET.encode("utf-8")).hexdigest()
    if follow:  # read at the target, with the target's groups
        assert entry.content_hash == secret_hash and entry.acl_relpath == "RH/faixas.md"
    else:
        assert entry.content_hash is None and str(entry.error) == discovery.SWAPPED


def test_the_run_record_lists_group_changes_hard_links_and_hidden_files(tmp_path, settings_for):
    source = tmp_path / "source"
    (source / "Contratos").mkdir(parents=True)
    (source / ".lakerag.yaml").write_text("default_groups: [public]\naccess:\n  - prefix: Contratos/\n"
                                          "    groups: [legal]\n", encoding="utf-8")
    contract = source / "Contratos" / "ct.md"
    contract.write_text("# Contrato\n\ncláusula\n", encoding="utf-8")
    sidecar = source / "Contratos" / "ct.md.meta.yaml"
    sidecar.write_text("groups: [diretoria]\n", encoding="utf-8")
    (source / ".oculto.md").write_text("# Oculto\n\ntexto\n", encoding="utf-8")
    settings = settings_for(source, ocr=False, embedding_model="wordllama")
    run_index(settings)
    sidecar.unlink()  # the widening: diretoria -> legal
    os.link(contract, source / "copia.md")
    record = run_index(settings)  # two runs may start within one second: read this one's record, not the newest name
    saved = json.loads((LakePaths(settings.home).run_dir(record.run_id) / "run.json").read_text(encoding="utf-8"))
    lines = "\n".join(saved["errors"])
    assert saved["errors"] == record.errors
    assert "Contratos/ct.md: access groups changed from [diretoria] to [legal]" in lines
    assert "copia.md: 2 hard links" in lines and "Contratos/ct.md: 2 hard links" in lines
    assert "1 hidden files or folders skipped" in lines and ".oculto.md" in lines and ".lakerag.yaml" not in lines
