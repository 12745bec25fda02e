"""Chunking follows the document's outline, keeps tables and lists readable and cites exact spans."""

from __future__ import annotations

import re

import pytest

from transforms.chunking import ChunkDraft, split_markdown

HEADER = "| Código | Fornecedor | Valor (R$) |"
SEPARATOR = "|---|---|---|"


def _sentences(prefix: str, n: int) -> list[str]:
    return [f"{prefix} frase {i} descreve uma obrigação contratual do fornecedor." for i in range(n)]


def _table(n_rows: int) -> tuple[str, list[str]]:
    rows = [f"| {i:03d} | Fornecedor {i:03d} Ltda. | {i * 1000:,} |" for i in range(n_rows)]
    return "\n".join([HEADER, SEPARATOR, *rows]), rows


def _content(chunk: ChunkDraft) -> str:
    """The body without the heading lines that open it."""
    return re.sub(r"\A(?:#{1,6} [^\n]*\n*)+", "", chunk.body)


def _assert_spans(md: str, chunks: list[ChunkDraft]) -> None:
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert 0 <= c.char_start < c.char_end <= len(md)
        source = md[c.char_start : c.char_end]
        for line in c.body.splitlines():
            # Only a repeated table header may come from outside the chunk's own span.
            assert line in source or line in (HEADER, SEPARATOR), line


POLICY = """# Política de Terceirização v4

## 1. Objetivo

Esta política define regras para contratar terceiros.

## 7. Requisitos de segurança

O fornecedor deve manter controles de acesso. Incidentes devem ser comunicados em 24 horas.

### 7.1 Criptografia

Dados pessoais são cifrados em repouso e em trânsito.
"""


def test_heading_path_and_context_line() -> None:
    chunks = split_markdown(POLICY, "Política de Terceirização v4")
    by_last_line = {c.body.splitlines()[-1][:20]: c for c in chunks}

    security = by_last_line["O fornecedor deve ma"]
    assert security.heading_path == ("Política de Terceirização v4", "7. Requisitos de segurança")
    assert security.text == f"[Política de Terceirização v4 — 7. Requisitos de segurança]\n{security.body}"

    crypto = by_last_line["Dados pessoais são c"]
    assert crypto.text.startswith(
        "[Política de Terceirização v4 — 7. Requisitos de segurança > 7.1 Criptografia]\n"
    )


def test_context_line_is_the_title_alone_without_headings() -> None:
    [chunk] = split_markdown("Texto sem títulos.", "Nota Técnica 12")
    assert chunk.heading_path == ()
    assert chunk.text == "[Nota Técnica 12]\nTexto sem títulos."


def test_sections_never_share_a_chunk() -> None:
    md = "\n\n".join(f"## Seção {s}\n\n" + "\n\n".join(_sentences(f"S{s}", 3)) for s in "ABC")
    chunks = split_markdown(md, "Doc", chunk_size=2000)
    assert len(chunks) == 3
    for chunk, section in zip(chunks, "ABC", strict=True):
        assert chunk.heading_path == (f"Seção {section}",)
        assert set(re.findall(r"\bS([ABC]) frase", chunk.body)) == {section}


def test_heading_only_sections_merge_forward_and_keep_their_text() -> None:
    md = "# Manual\n\n## Parte 1\n\n### Escopo\n\nAplica-se a todos.\n\n## Anexos\n"
    chunks = split_markdown(md, "Manual")
    assert all(_content(c).strip() for c in chunks), "no chunk is only headings"
    assert chunks[0].body.startswith("# Manual\n\n## Parte 1\n\n### Escopo\n\nAplica-se a todos.")
    assert chunks[0].heading_path == ("Manual", "Parte 1", "Escopo")
    assert any("## Anexos" in c.body for c in chunks), "a trailing heading is not lost"


def test_bodies_respect_the_size_target() -> None:
    paragraphs = [" ".join(_sentences(f"P{k}", k % 9 + 1)) for k in range(30)]
    items = "\n".join(f"- Item {i}: o fornecedor apresenta o documento {i} ao gestor." for i in range(40))
    md = "\n\n".join(["# Guia", *paragraphs[:15], "## Lista", items, *paragraphs[15:]])
    chunks = split_markdown(md, "Guia", chunk_size=400, chunk_overlap=60)
    assert len(chunks) > 10
    assert all(len(_content(c)) <= 400 for c in chunks)
    _assert_spans(md, chunks)


def test_long_list_is_cut_between_items() -> None:
    items = [f"{i}. O contratado deve manter o registro {i} atualizado e disponível." for i in range(1, 31)]
    md = "## Obrigações\n\n" + "\n".join(items)
    chunks = split_markdown(md, "Contrato", chunk_size=300)
    assert len(chunks) > 1
    for item in items:
        assert sum(item in c.body.splitlines() for c in chunks) == 1


def test_large_table_is_split_on_rows_with_the_header_repeated() -> None:
    table, rows = _table(60)
    md = f"## Fornecedores homologados\n\n{table}\n"
    chunks = split_markdown(md, "Cadastro", chunk_size=800)
    assert len(chunks) >= 3
    seen: list[str] = []
    for c in chunks:
        lines = _content(c).splitlines()
        assert lines[:2] == [HEADER, SEPARATOR]
        assert all(line in rows for line in lines[2:]), "no row is cut"
        assert len(_content(c)) <= 800
        seen += lines[2:]
    assert seen == rows, "every row appears exactly once, in order"
    _assert_spans(md, chunks)


def test_small_table_stays_whole_with_its_paragraph() -> None:
    table, _ = _table(3)
    md = f"## Valores\n\nTabela de referência:\n\n{table}\n\nValores sem impostos."
    [chunk] = split_markdown(md, "Cadastro")
    assert table in chunk.body
    assert chunk.body.endswith("Valores sem impostos.")


def test_oversized_row_is_emitted_alone_with_the_header() -> None:
    _, rows = _table(4)
    huge = "| 999 | " + "Fornecedor com descrição muito longa " * 20 + "| 1 |"
    md = "\n".join([HEADER, SEPARATOR, *rows[:2], huge, *rows[2:]])
    chunks = split_markdown(md, "Cadastro", chunk_size=300)
    alone = [c for c in chunks if huge in c.body]
    assert [c.body for c in alone] == [f"{HEADER}\n{SEPARATOR}\n{huge}"]
    assert all(c.body.startswith(f"{HEADER}\n{SEPARATOR}\n") for c in chunks)


def test_long_paragraph_pieces_overlap_and_cut_at_sentences() -> None:
    sentences = _sentences("Longa", 40)
    md = "## Cláusula\n\n" + " ".join(sentences)
    chunks = split_markdown(md, "Contrato", chunk_size=400, chunk_overlap=80)
    assert len(chunks) > 5
    for a, b in zip(chunks, chunks[1:], strict=False):
        overlap = a.char_end - b.char_start
        assert 40 <= overlap <= 160
        assert md[b.char_start : a.char_end] in a.body and b.body.startswith(md[b.char_start : a.char_end])
    for sentence in sentences:
        assert any(sentence in c.body for c in chunks), "pieces end at sentence boundaries"
    assert all(len(_content(c)) <= 400 for c in chunks)
    _assert_spans(md, chunks)


def test_paragraph_without_sentences_is_cut_at_whitespace() -> None:
    words = [f"palavra{i}" for i in range(300)]
    chunks = split_markdown(" ".join(words), "Lista", chunk_size=200, chunk_overlap=30)
    for c in chunks:
        assert len(c.body) <= 200
        assert all(w in words for w in c.body.split()), "no word is cut"


LEI = """## CAPÍTULO I — DAS DISPOSIÇÕES GERAIS

### Seção I — Do Objeto

#### Art. 1º

Esta Lei estabelece normas gerais de contratação. O disposto no art. 3º aplica-se a todos os órgãos.

#### Art. 2º

Aplica-se esta Lei às compras e às locações.

### Seção II — Das Definições

#### Art. 5º

Na aplicação desta Lei, serão observados os princípios da legalidade e da impessoalidade.

## CAPÍTULO II — DA LICITAÇÃO

#### Art. 10

A licitação será processada em fases sucessivas.
"""


def test_brazilian_legal_outline() -> None:
    chunks = split_markdown(LEI, "Lei 14.133")
    paths = [c.heading_path for c in chunks]
    assert paths == [
        ("CAPÍTULO I — DAS DISPOSIÇÕES GERAIS", "Seção I — Do Objeto", "Art. 1º"),
        ("CAPÍTULO I — DAS DISPOSIÇÕES GERAIS", "Seção I — Do Objeto", "Art. 2º"),
        ("CAPÍTULO I — DAS DISPOSIÇÕES GERAIS", "Seção II — Das Definições", "Art. 5º"),
        ("CAPÍTULO II — DA LICITAÇÃO", "Art. 10"),
    ]
    assert chunks[2].text.startswith(
        "[Lei 14.133 — CAPÍTULO I — DAS DISPOSIÇÕES GERAIS > Seção II — Das Definições > Art. 5º]\n"
    )
    assert chunks[0].body.startswith(
        "## CAPÍTULO I — DAS DISPOSIÇÕES GERAIS\n\n### Seção I — Do Objeto\n\n#### Art. 1º\n\nEsta Lei"
    ), "heading-only sections ride along with the first article"
    _assert_spans(LEI, chunks)


def test_pages_come_from_page_spans() -> None:
    page1 = "## Introdução\n\nPrimeira página do relatório."
    page2 = "Continuação na segunda página.\n\n## Conclusão\n\nFim do relatório."
    md = f"{page1}\n\n{page2}"
    spans = [(0, len(page1)), (len(page1) + 2, len(md))]
    chunks = split_markdown(md, "Relatório", page_spans=spans)
    assert [c.pages for c in chunks] == [(1, 2), (2,)]
    assert all(c.pages == () for c in split_markdown(md, "Relatório"))


def test_spans_point_at_the_body_source() -> None:
    chunks = split_markdown(POLICY, "Política de Terceirização v4")
    for c in chunks:
        assert POLICY[c.char_start : c.char_end] == c.body
    _assert_spans(POLICY, chunks)


def test_deterministic() -> None:
    table, _ = _table(60)
    md = LEI + "\n\n" + table + "\n\n" + " ".join(_sentences("D", 30))
    assert split_markdown(md, "Doc", chunk_size=300) == split_markdown(md, "Doc", chunk_size=300)


@pytest.mark.parametrize("md", ["", "   \n\n  \n"])
def test_empty_markdown_gives_no_chunks(md: str) -> None:
    assert split_markdown(md, "Vazio") == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (100, 100), (100, -1)])
def test_rejects_bad_sizes(size: int, overlap: int) -> None:
    with pytest.raises(ValueError, match="chunk_overlap"):
        split_markdown("texto", "Doc", chunk_size=size, chunk_overlap=overlap)


def test_text_without_spaces_is_cut_with_bounded_work(monkeypatch) -> None:
    """A runaway line (40 MB without a space, a data: image) must chunk in linear time: every search for a cut
    looks at no more than one chunk's width of text (speed itself: benchmarks/chunking_scale.py)."""
    import re

    import transforms.chunking as chunking

    widths: list[int] = []

    class Recording:
        def search(self, text: str, pos: int = 0, endpos: int | None = None):
            widths.append((len(text) if endpos is None else endpos) - pos)
            return chunking_re.search(text, pos, len(text) if endpos is None else endpos)

    chunking_re = re.compile(chunking._WORD_START.pattern)
    monkeypatch.setattr(chunking, "_WORD_START", Recording())
    text = "x" * 200_000
    chunks = chunking.split_markdown(text, "T", chunk_size=800, chunk_overlap=120)
    assert chunks[0].body == text[:len(chunks[0].body)]
    assert all(len(c.body) <= 800 for c in chunks) and widths and max(widths) <= 800
