"""The README and sample_corpus/README.md tell the truth: every `lakerag` command shown parses, the "Your own
documents" walk-through runs as written on a folder laid out like its example, the annotated `.lakerag.yaml` and
keys file mean what their comments say, `make compose-config` works on a fresh clone, and the corpus counts are
the corpus's."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
import yaml

from lakerag.cli import build_parser, main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
SAMPLE = REPO / "sample_corpus"


def _blocks(language: str, text: str = README) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.DOTALL)


def _commands(block: str) -> list[list[str]]:
    """Each `lakerag` command of a shell block, continuation lines joined and comments dropped."""
    joined = block.replace("\\\n", " ")
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        at = next((i for i, w in enumerate(words) if w.endswith("bin/lakerag") or w == "lakerag"), None)
        if at is not None:
            out.append(words[at + 1:])
    return out


def _section(title: str) -> str:
    start = README.index(f"## {title}\n")
    return README[start:README.index("\n## ", start + 3)]


def test_every_lakerag_command_in_the_readme_parses():
    commands = [c for block in _blocks("bash") for c in _commands(block)]
    assert len(commands) >= 5
    for argv in commands:
        build_parser().parse_args(argv)  # exits 2, naming the argument, on an option that does not exist


def test_the_annotated_folder_configuration_means_what_its_comments_say(tmp_path):
    from transforms.folders import load_folder_config

    text = _blocks("yaml", _section("Your own documents"))[0]
    (tmp_path / ".lakerag.yaml").write_text(text, encoding="utf-8")
    config = load_folder_config(tmp_path / ".lakerag.yaml")
    assert config.groups_for("Financeiro/Orçamento 2026.xlsx") == ("financeiro",)
    assert config.groups_for("Financeiro/Relatórios Publicados/Balanço.pdf") == ("public",)
    assert config.groups_for("Jurídico/Contratos/CT-1.pdf") == ("compras", "juridico")
    assert config.groups_for("Avisos/mural.txt") == ("public",)
    assert config.doc_type_for("politicas/viagens.md") == "politica"  # accents and case ignored
    assert config.doc_type_for("Avisos/mural.txt") == "unclassified"
    (tmp_path / ".lakerag.yaml").write_text(text.replace("default_groups: [public]", ""), encoding="utf-8")
    assert load_folder_config(tmp_path / ".lakerag.yaml").groups_for("Avisos/mural.txt") == ()  # nobody


def test_the_keys_file_example_gives_each_key_its_groups():
    from serving.answers.access import _entries

    text = _blocks("yaml", _section("Your own documents"))[1]
    entries = _entries(yaml.safe_load(text.replace("<sha256 of the key, hex>", "ab" * 32)), "README")
    assert sorted(sorted(c.groups) for c in entries.values()) == [["financeiro"], ["juridico"]]


def test_your_own_documents_walk_through_runs_as_written(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
    monkeypatch.delenv("LAKERAG_API_URL", raising=False)
    section = _section("Your own documents")
    drive = tmp_path / "drive"
    (drive / "Financeiro").mkdir(parents=True)
    (drive / ".lakerag.yaml").write_text(_blocks("yaml", section)[0], encoding="utf-8")
    (drive / "Financeiro" / "Política de Pagamentos.md").write_text(
        "# Política de Pagamentos\n\n## 1. Notas fiscais\n\nO prazo de pagamento das notas fiscais de fornecedores "
        "nacionais é de 30 dias corridos após o aceite.\n\n## 2. Fornecedores internacionais\n\nPara fornecedores "
        "internacionais, o prazo de pagamento é de 45 dias, contados da data da fatura (invoice).\n",
        encoding="utf-8")
    (drive / "Avisos.md").write_text("# Avisos\n\nO refeitório funciona das 11h às 14h.\n", encoding="utf-8")
    block = next(b for b in _blocks("bash", section) if "lakerag index" in b)
    outputs = []
    for argv in _commands(block.replace("~/drive", str(drive)).replace("~/lakerag-data", str(tmp_path / "data"))):
        if argv[0] == "serve":
            continue  # runs until stopped; its start-up is tested in tests/serving/api
        assert main(argv) == 0, argv
        outputs.append(capsys.readouterr().out)
    index, status, first, follow_up = outputs
    assert "published snapshot" in index and "documents: 2 = 2 active + 0 quarantined" in index
    assert "2 active" in status
    assert "30 dias" in first
    assert "45 dias" in follow_up and "follow-up of:" in follow_up
    assert main(["query", "Qual o prazo de pagamento das notas fiscais?", "--home", str(tmp_path / "data")]) == 0
    assert "30 dias" not in capsys.readouterr().out  # without --groups financeiro the folder is closed


@pytest.mark.skipif(shutil.which("docker-compose") is None or shutil.which("make") is None,
                    reason="needs docker-compose (Debian's validates offline) and make")
def test_make_compose_config_works_on_a_fresh_clone_and_refuses_an_unfilled_env(tmp_path):
    for name in ("Makefile", "docker-compose.yml", ".env.example"):
        shutil.copy(REPO / name, tmp_path / name)
    env = {k: v for k, v in os.environ.items()
           if k not in {"POSTGRES_PASSWORD", "AIRFLOW_JWT_SECRET", "AIRFLOW_FERNET_KEY"}}

    def make() -> subprocess.CompletedProcess:
        return subprocess.run(["make", "-s", "compose-config"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)

    fresh = make()
    assert fresh.returncode == 0, fresh.stderr
    assert "docker-compose.yml is valid" in fresh.stdout and "cp .env.example .env" in fresh.stdout
    shutil.copy(tmp_path / ".env.example", tmp_path / ".env")  # copied, not yet filled in
    unfilled = make()
    assert unfilled.returncode != 0 and "set POSTGRES_PASSWORD" in unfilled.stderr
    compose_secrets = set(re.findall(r"\$\{(\w+):\?", (REPO / "docker-compose.yml").read_text(encoding="utf-8")))
    example = set(re.findall(r"^(\w+)=", (REPO / ".env.example").read_text(encoding="utf-8"), re.MULTILINE))
    assert compose_secrets == example


def test_sample_corpus_readme_counts_are_the_corpus_counts():
    text = " ".join((SAMPLE / "README.md").read_text(encoding="utf-8").split())
    questions = [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    kinds = Counter(q["kind"] for q in questions)
    splits = Counter(q["split"] for q in questions)
    assert f"**Questions**: {len(questions)} in `questions.jsonl`" in text
    assert ", ".join(f"{kinds[k]} {k}" for k in ("fact", "code_lookup", "multi_hop", "governance", "global")) in text
    assert f"{kinds['injection']} injection" in text and f"{kinds['refusal']} refusal" in text
    assert kinds["refusal"] == sum(not q["answerable"] for q in questions)
    assert f"{splits['dev']} in the `dev` split, {splits['test']} in the frozen `test` split" in text
    dialogues = (SAMPLE / "dialogues.jsonl").read_text(encoding="utf-8").splitlines()
    visual = (SAMPLE / "visual_questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert f"{len(dialogues)} two-turn dialogues" in text
    assert f"{len(visual)} questions answered only by a chart" in text
    documents = SAMPLE / "documents"
    entries = [p for p in documents.rglob("*") if (p.is_file() or p.is_symlink())
               and p.name != ".lakerag.yaml" and not p.name.endswith(".meta.yaml")]
    bad = [p for p in entries if "arquivos-problematicos" in p.parts]
    assert f"**{len(entries) - len(bad)} documents, and {len(bad)} bad files** ({len(entries)} entries" in text
    formats = Counter(p.suffix for p in entries if p not in bad)
    charts = len({json.loads(v)["relevant_paths"][0] for v in visual})
    assert f"and {charts} PDFs whose figures exist only in a chart image" in text
    assert (f"{formats['.pdf'] - charts} PDF (text layer), {formats['.docx']} DOCX, {formats['.html']} HTML, "
            f"{formats['.md']} Markdown, {formats['.txt']} plain text") in text
