"""Entity resolution: acronyms, short names, the alias file and its undoing, determinism."""

from __future__ import annotations

import random

import pytest

from graph_index.alias_file import AliasOverrides, load_alias_file
from graph_index.extraction import extract_rules
from graph_index.resolution import ChunkInput, resolve
from lakehouse.errors import ConfigError

TEXTS = {
    ("c1", "d1"): "A Lei Geral de Proteção de Dados (LGPD) protege dados pessoais. A Dra. Helena Prado "
                  "Vasconcelos assina pela NuvemSul Tecnologia e Dados S.A.",
    ("c2", "d1"): "A LGPD exige registros. Helena revisa o contrato com a NuvemSul Tecnologia.",
    ("c3", "d2"): "O Prontuário Eletrônico do Paciente guarda dados pessoais; o PEP tem backup diário.",
    ("c4", "d3"): "Helena aprovou o orçamento.",  # no full name in this document: dropped
}


def _chunks(order: list | None = None) -> list[ChunkInput]:
    items = list(TEXTS.items()) if order is None else order
    return [ChunkInput(cid, did, extract_rules(text)) for (cid, did), text in items]


def _entity_of(resolution, chunks, surface: str) -> str | None:
    for chunk, row in zip(chunks, resolution.keys, strict=True):
        for mention, key in zip(chunk.graph.mentions, row, strict=True):
            if mention.text == surface:
                return key
    raise AssertionError(f"{surface!r} not mentioned")


def test_acronym_joins_its_defined_expansion_and_initials():
    chunks = _chunks()
    result = resolve(chunks)
    lgpd = _entity_of(result, chunks, "LGPD")
    assert lgpd == _entity_of(result, chunks, "Lei Geral de Proteção de Dados") == "lei geral protecao dado"
    assert result.types[lgpd] == "NORM"
    pep = _entity_of(result, chunks, "Prontuário Eletrônico do Paciente")
    assert _entity_of(result, chunks, "PEP") == pep
    rows = {(a["alias"], a["source"]) for a in result.aliases}
    assert ("lgpd", "auto-acronym") in rows and ("pep", "auto-acronym") in rows


def test_short_names_join_the_full_name_of_their_document():
    chunks = _chunks()
    result = resolve(chunks)
    helena = _entity_of(result, chunks, "Helena Prado Vasconcelos")
    assert [k for c, row in zip(chunks, result.keys, strict=True) if c.chunk_id == "c2"
            for m, k in zip(c.graph.mentions, row, strict=True) if m.text == "Helena"] == [helena]
    assert [k for c, row in zip(chunks, result.keys, strict=True) if c.chunk_id == "c4"
            for m, k in zip(c.graph.mentions, row, strict=True) if m.text == "Helena"] == [None]
    nuvemsul = _entity_of(result, chunks, "NuvemSul Tecnologia e Dados S.A.")
    assert _entity_of(result, chunks, "NuvemSul Tecnologia") == nuvemsul


def test_alias_file_merges_and_splits():
    chunks = _chunks()
    overrides = AliasOverrides(aliases={"PEP": "Sistema PEP Vita"},
                               not_pairs=[("LGPD", "Lei Geral de Proteção de Dados")])
    result = resolve(chunks, overrides)
    assert _entity_of(result, chunks, "LGPD") != _entity_of(result, chunks, "Lei Geral de Proteção de Dados")
    pep = _entity_of(result, chunks, "PEP")
    assert result.names[pep] == "Sistema PEP Vita"  # a manual alias names the entity after its target
    assert pep != _entity_of(result, chunks, "Prontuário Eletrônico do Paciente")  # manual wins over initials
    sources = {a["source"] for a in result.aliases}
    assert {"manual", "manual-split"} <= sources


def test_resolution_is_deterministic_whatever_the_order():
    first = _chunks()
    expected = resolve(first)
    order = list(TEXTS.items())
    random.Random(7).shuffle(order)
    shuffled = _chunks(order)
    again = resolve(shuffled)
    assert again.aliases == expected.aliases
    assert again.names == expected.names
    for (cid, _), _text in TEXTS.items():
        a = next(r for c, r in zip(first, expected.keys, strict=True) if c.chunk_id == cid)
        b = next(r for c, r in zip(shuffled, again.keys, strict=True) if c.chunk_id == cid)
        assert a == b


def test_alias_file_format_errors_name_the_file(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text("aliases:\n  SI: Segurança da Informação\nnot_aliases:\n  - [LGPD, Lei Geral]\n  - TI\n",
                    encoding="utf-8")
    loaded = load_alias_file(path)
    assert loaded.aliases == {"SI": "Segurança da Informação"}
    assert loaded.not_pairs == [("LGPD", "Lei Geral")] and loaded.standalone == ["TI"]
    path.write_text("aliases: [SI]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="aliases.yaml"):
        load_alias_file(path)
    path.write_text("alias:\n  SI: x\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown keys"):
        load_alias_file(path)
