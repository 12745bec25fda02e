"""A small Portuguese and English corpus for graph index tests, and helpers to index it and read the graph."""

from __future__ import annotations

from pathlib import Path

CONFIG = """
default_groups: [public]
access:
  - prefix: "RH/"
    groups: [rh]
  - prefix: "Contratos/"
    groups: [juridico]
"""

DOCS = {
    "Contratos/CT-2024-0187.md": """# Contrato CT-2024-0187 — Hospedagem de Dados

## 1. Objeto

O contrato CT-2024-0187 contrata a NuvemSul Tecnologia e Dados S.A. para hospedagem de dados clínicos do
Hospital Vale do Ipê em nuvem, sob gestão da Dra. Helena Prado Vasconcelos.

## 7. Segurança

A NuvemSul Tecnologia cumpre a Lei Geral de Proteção de Dados (LGPD), a Lei nº 13.709/2018 e a ISO 27001.
Conforme a cláusula 7.2, a notificação de incidentes ao Hospital Vale do Ipê ocorre em até 72 horas e os
controles de criptografia seguem a Política de Segurança da Informação.
""",
    "Contratos/CT-2024-0178.md": """# Contrato CT-2024-0178 — Limpeza Hospitalar

## 1. Objeto

O contrato CT-2024-0178 contrata a Brilho Serviços de Limpeza Ltda. para limpeza terminal dos leitos do
Hospital Vale do Ipê, com auditoria da Comissão de Controle de Infecção Hospitalar (CCIH).

## 2. Indicadores

A CCIH audita a limpeza terminal da UTI todo mês e a Brilho Serviços de Limpeza corrige falhas em 24 horas.
""",
    "Políticas/Política de Segurança da Informação.md": """# Política de Segurança da Informação

## 1. Objetivo

A Política de Segurança da Informação define os controles de criptografia e a notificação de incidentes de
segurança no Hospital Vale do Ipê, conforme a ISO 27001 e a LGPD.

## 2. Responsabilidades

O Comitê de Segurança da Informação aprova exceções. Carlos Eduardo Pires coordena a notificação de
incidentes e revisa os controles de criptografia com a NuvemSul Tecnologia.
""",
    "Políticas/Política de Privacidade.md": """# Política de Privacidade

## 1. Base legal

O tratamento de dados pessoais segue o Art. 7º da LGPD e a Lei 13.709/2018. A encarregada de dados
Vanessa Duarte Lins responde à Autoridade Nacional de Proteção de Dados (ANPD).

## 2. Direitos dos titulares

A encarregada de dados atende os pedidos dos titulares de dados pessoais em até 15 dias.
""",
    "POPs/POP-ENF-014 Higienização das Mãos.md": """# POP-ENF-014 - Higienização das Mãos

## 1. Objetivo

Padronizar a higienização das mãos na UTI e nas enfermarias do Hospital Vale do Ipê, com auditoria da CCIH.

## 2. Momentos

A higienização das mãos ocorre antes do contato com o paciente e após a limpeza terminal do leito.
""",
    "POPs/POP-QUA-001 Eventos Adversos.md": """# POP-QUA-001 - Notificação de Eventos Adversos

## 1. Objetivo

A notificação de eventos adversos é feita pelo Núcleo de Segurança do Paciente em até 24 horas.

## 2. Análise

O Núcleo de Segurança do Paciente analisa cada notificação de eventos adversos com a CCIH e a UTI.
""",
    "Manuais/Incident Response Playbook.md": """# Incident Response Playbook

## 1. Purpose

The incident response team of Hospital Vale do Ipê handles security incidents under ISO 27001 and the
Information Security Policy.

## 2. Roles

Carlos Eduardo Pires leads the incident response team and reports security incidents to the Information
Security Committee within 24 hours.
""",
    "RH/Projeto Aurora.md": """# Projeto Aurora

## 1. Escopo

O Projeto Aurora revisa a escala de plantões da UTI com o Grupo Girassol Consultoria, sob coordenação de
Marta Regina Siqueira.
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


def index_and_graph(settings):
    """Run the ingest and index stages (the graph stage included); returns (run record, graph stage record)."""
    from lakehouse.paths import LakePaths
    from lakehouse.runs import load_stage_records
    from transforms.pipeline import run_index

    record = run_index(settings)
    stages = load_stage_records(LakePaths(settings.home), record["run_id"])
    return record, next(r for r in stages if r.stage == "graph")


def tables(settings) -> dict[str, list[dict]]:
    from graph_index.workflow import load_graph_tables

    return {name: t.to_pylist() for name, t in load_graph_tables(settings.home / "tables").items()}
