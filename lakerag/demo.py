"""``make demo``'s API keys: one key per access group of the source's folder configuration, written to a keys
file the server then reads (``LAKERAG_API_KEYS_FILE``), and curl examples that work with them.

    python -m lakerag.demo var/demo-keys.yaml [--base http://127.0.0.1:8000]

An existing file is kept (its keys stay valid across demos); a new one is written with fresh random keys and
mode 0600. The keys are for a local demo only.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
from pathlib import Path

import yaml

from lakehouse import schemas as s
from lakehouse.settings import Settings
from transforms.folders import load_folder_config

# A question each restricted group of the sample corpus can answer and the public cannot, in the order the demo
# prefers them; the first has a follow-up that names no contract of its own (the conversation supplies it).
RESTRICTED_QUESTIONS = {
    "juridico": "Qual o valor mensal do contrato CT-2024-0187?",
    "rh": "Qual a faixa salarial de Enfermeiro(a) nível I?",
    "compras": "Qual é o fornecedor do contrato CT-2024-0187?",
    "diretoria": "Quais são os honorários do contrato CT-2023-0091?",
    "gestores": "Qual foi a adesão à higienização das mãos em agosto de 2025?",
}
FOLLOW_UPS = {"juridico": "E quem é o fornecedor?"}
JQ_ANSWER = "'{status, answer, sources: [.citations[] | .title], conversation_id}'"


def groups_of(settings: Settings) -> list[str]:
    """Every access group named by the folder configuration, except ``public`` (no key needed)."""
    config = load_folder_config(settings.folders_config_path())
    groups = set(config.default_groups) | {g for rule in config.access for g in rule.value}
    return sorted(groups - {s.PUBLIC})


def write_demo_keys(path: Path, groups: list[str]) -> dict[str, str]:
    """group -> key; keeps the keys of an existing file and adds any missing group."""
    entries = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("keys", []) if path.exists() else []
    have = {e["groups"][0]: e["key"] for e in entries if e.get("key") and len(e.get("groups") or []) == 1}
    keys = {g: have.get(g) or f"demo-{g}-{secrets.token_urlsafe(12)}" for g in groups}
    data = {"keys": [{"name": f"demo-{g}", "key": k, "groups": [g]} for g, k in keys.items()]}
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# lakerag demo keys (local demo only): one key per access group\n" + yaml.safe_dump(data, sort_keys=False)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return keys


def examples(base: str, keys: dict[str, str]) -> str:
    """The keys, then curl calls piped to jq: a restricted question with its group's key, a follow-up in the same
    conversation (``conversation_id``), and the first question without a key (public documents only)."""
    lines = ["demo API keys (X-API-Key), one per group:"] + [f"  {g:<10} {k}" for g, k in keys.items()]
    group = next((g for g in RESTRICTED_QUESTIONS if g in keys), next(iter(keys), None))
    if group is None:
        return "\n".join(lines)
    question = RESTRICTED_QUESTIONS.get(group, "Quais documentos existem?")
    post = f"curl -s {base}/v1/query -H 'content-type: application/json'"
    key = f" -H 'X-API-Key: {keys[group]}'"
    body = json.dumps({"question": question}, ensure_ascii=False)
    lines += [f"a restricted question, as a member of '{group}' (needs jq):",
              f"  {post}{key} -d '{body}' | jq {JQ_ANSWER}"]
    if follow_up := FOLLOW_UPS.get(group):
        lines += ["a follow-up in the same conversation: send back the conversation_id the answer carried",
                  f"  CID=$({post}{key} -d '{body}' | jq -r .conversation_id)",
                  f"  {post}{key} -d '{{\"question\": \"{follow_up}\", \"conversation_id\": \"'$CID'\"}}' "
                  "| jq '{rewritten_question, answer}'"]
    lines += ["the same question without a key sees public documents only:",
              f"  {post} -d '{body}' | jq '{{status, answer}}'"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the demo API keys file and print curl examples")
    parser.add_argument("path", type=Path)
    parser.add_argument("--base", help="the API's address (default: from the settings)")
    args = parser.parse_args(argv)
    settings = Settings()
    keys = write_demo_keys(args.path, groups_of(settings))
    print(examples(args.base or f"http://{settings.api.host}:{settings.api.port}", keys))
    print(f"keys file: {args.path} (the server reads it through LAKERAG_API_KEYS_FILE)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
