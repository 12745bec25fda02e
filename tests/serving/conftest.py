"""A small indexed corpus for retrieval tests (fast static embeddings; quality is measured by `lakerag eval`)."""

from __future__ import annotations

from pathlib import Path

import pytest

CONFIG = """
default_groups: [public]
access:
  - prefix: "RH/"
    groups: [rh]
  - prefix: "Contratos/"
    groups: [juridico]
  - prefix: "Sem grupo/"
    groups: []
taxonomy:
  - prefix: "Contratos/"
    doc_type: contrato
  - prefix: "Políticas/"
    doc_type: politica
  - prefix: "RH/"
    doc_type: rh
"""

DOCS = {
    "Contratos/CT-2024-0187.md": """# Contrato CT-2024-0187 — Hospedagem de Dados

## 1. Objeto

O contrato CT-2024-0187 contrata a NuvemSul Tecnologia para hospedagem de dados clínicos em nuvem.

## 2. Segurança

A contratada notificará incidentes de segurança em até 72 horas.

Departamento: Jurídico
Data de emissão: 10/01/2024
Próxima revisão: 10/01/2027
""",
    "Contratos/CT-2024-0178.md": """# Contrato CT-2024-0178 — Limpeza

## 1. Objeto

O contrato CT-2024-0178 contrata a Brilho Serviços para limpeza hospitalar diária.

Departamento: Hotelaria
Data de emissão: 05/03/2024
Próxima revisão: 05/03/2026
""",
    "Políticas/Política de Segurança.md": """# Política de Segurança da Informação para Terceiros

## 7. Requisitos de segurança

### 7.2 Criptografia

Fornecedores devem aplicar controles de criptografia descritos em anexo contratual e notificar incidentes
em até 24 horas.

Departamento: Segurança da Informação
Data de emissão: 01/02/2025
Próxima revisão: 15/12/2026
""",
    "Políticas/Política de Viagens.md": """# Política de Reembolso de Despesas de Viagem

## 6. Prestação de contas

A prestação de contas deve ocorrer em até 10 dias úteis após o retorno da viagem.

Departamento: Financeiro
Data de emissão: 03/03/2025
Próxima revisão: 03/03/2027
""",
    "RH/Faixas salariais.md": """# Tabela de Faixas Salariais

## Faixas

A faixa salarial do analista sênior de segurança da informação é de R$ 14.000 a R$ 18.000 mensais.

Departamento: Recursos Humanos
Próxima revisão: 02/01/2027
""",
    "Sem grupo/orfao.md": """# Documento sem grupos

## Conteúdo

Segredo operacional do cofre: a combinação do cofre fica com a diretoria.
""",
    "Manual.md": """# Manual de Acesso

## Senhas

Senhas de sistemas devem ter doze caracteres e ser trocadas a cada noventa dias.
""",
}


def write_corpus(root: Path, docs: dict[str, str] = DOCS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ".lakerag.yaml").write_text(CONFIG, encoding="utf-8")
    for relpath, text in docs.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    """(settings, retriever) over the small corpus, indexed once per module."""
    from lakehouse.settings import Settings
    from serving.search.service import build_retriever
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("retrieval")
    settings = Settings(home=root / "home", source=write_corpus(root / "source"), embedding_model="wordllama")
    run_index(settings)
    return settings, build_retriever(settings)
