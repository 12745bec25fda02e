"""Folder configuration: the doc_type taxonomy and access groups."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakehouse.errors import ConfigError
from transforms.folders import UNCLASSIFIED, load_folder_config

TAXONOMY = """
default_groups: [public]
access:
  - prefix: "RH/"
    groups: [rh]
  - prefix: "RH/Público/"
    groups: [public]
taxonomy:
  - prefix: "Protocolos/PROTOCOLO"
    doc_type: protocolo
  - prefix: "Protocolos/PROTOCOLO GERENCIADO"
    doc_type: protocolo_gerenciado
  - prefix: "POPs/"
    doc_type: pop
"""


@pytest.fixture
def config(tmp_path: Path):
    path = tmp_path / "folders.yaml"
    path.write_text(TAXONOMY, encoding="utf-8")
    return load_folder_config(path)


def test_most_specific_prefix_wins_whatever_the_rule_order(config):
    assert config.doc_type_for("Protocolos/PROTOCOLO GERENCIADO/sepse.pdf") == "protocolo_gerenciado"
    assert config.doc_type_for("Protocolos/PROTOCOLO CLÍNICO/asma.pdf") == "protocolo"


def test_prefixes_ignore_case_and_accents(config):
    assert config.doc_type_for("protocolos/protocolo gerenciado/x.pdf") == "protocolo_gerenciado"
    assert config.doc_type_for("pops/lavagem.docx") == "pop"
    assert config.groups_for("rh/publico/ferias.md") == ("public",)


def test_files_outside_the_taxonomy_are_unclassified_not_guessed(config):
    assert config.doc_type_for("Diversos/POPs antigos/x.pdf") == UNCLASSIFIED
    assert config.doc_type_for("leia-me.txt") == UNCLASSIFIED


def test_groups_longest_prefix_default_and_sidecar(config, tmp_path):
    assert config.groups_for("RH/folha.pdf") == ("rh",)
    assert config.groups_for("Manuais/x.pdf") == ("public",)
    sidecar = tmp_path / "x.pdf.meta.yaml"
    sidecar.write_text("groups: [diretoria, rh]\n", encoding="utf-8")
    assert config.groups_for("RH/x.pdf", sidecar) == ("diretoria", "rh")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("taxonomy:\n  - prefix: POPs/\n", "taxonomy[0]"),
        ("access:\n  - prefix: RH/\n    groups: rh\n", "'groups' must be a list"),
        ("access: [unclosed", "not valid YAML"),
        ("- just\n- a list\n", "must be a mapping"),
    ],
)
def test_bad_configuration_names_the_file_and_field(tmp_path, text, needle):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_folder_config(path)
    assert str(path) in str(err.value) and needle in str(err.value)


def test_bad_sidecar_names_the_sidecar(config, tmp_path):
    sidecar = tmp_path / "y.pdf.meta.yaml"
    sidecar.write_text("grupos: [rh]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="y.pdf.meta.yaml"):
        config.groups_for("RH/y.pdf", sidecar)


BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8)
) + "groups: *i\n"


def test_a_sidecar_with_yaml_aliases_is_refused_at_once_with_a_short_reason(tmp_path: Path):
    config = load_folder_config(tmp_path / "none.yaml")
    doc = tmp_path / "nota.md"
    sidecar = tmp_path / "nota.md.meta.yaml"
    sidecar.write_text(BOMB, encoding="utf-8")  # ~500 bytes that expand to 9^9 strings
    with pytest.raises(ConfigError, match="aliases") as caught:
        config.groups_for("nota.md", sidecar)
    assert len(str(caught.value)) < 300 and str(doc) in str(caught.value)


def test_a_bad_groups_value_is_shown_truncated(tmp_path: Path):
    config = load_folder_config(tmp_path / "none.yaml")
    sidecar = tmp_path / "nota.md.meta.yaml"
    sidecar.write_text("groups: '" + "x" * 5000 + "'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="5002 characters") as caught:
        config.groups_for("nota.md", sidecar)
    assert len(str(caught.value)) < 300


def test_a_sidecar_link_is_never_read_and_its_target_never_shown(tmp_path: Path, settings_for):
    import pyarrow.parquet as pq

    from lakehouse.paths import LakePaths
    from transforms.pipeline import run_index

    outside = tmp_path / "creds.yaml"
    outside.write_text("groups: [public]\ntoken: SEGREDO-123\n", encoding="utf-8")
    source = tmp_path / "source"
    source.mkdir()
    (source / "nota.md").write_text("# Nota\n\ntexto da nota\n", encoding="utf-8")
    (source / "nota.md.meta.yaml").symlink_to(outside)
    (source / "bad.md").write_text("# Bad\n\ntexto\n", encoding="utf-8")
    (source / "bad.md.meta.yaml").write_text("groups: [public\ntoken: SEGREDO-456\n", encoding="utf-8")
    settings = settings_for(source, ocr=False, embedding_model="wordllama")
    run_index(settings)
    paths = LakePaths(settings.home)
    docs = {d["path"]: d for d in pq.read_table(paths.table("documents")).to_pylist() if d["is_current"]}
    assert docs["nota.md"]["status"] == "quarantined" and "symlink" in docs["nota.md"]["status_reason"]
    assert docs["bad.md"]["status"] == "quarantined" and "not valid YAML" in docs["bad.md"]["status_reason"]
    stored = b"".join(p.read_bytes() for p in settings.home.rglob("*") if p.is_file())
    assert b"SEGREDO" not in stored
