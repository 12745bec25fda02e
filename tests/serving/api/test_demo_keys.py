"""``make demo``'s keys file: one key per group of the sample corpus, and a printed curl example for a
restricted question that works with its key (and sees nothing restricted without it), piped to jq, with a
follow-up that continues the conversation."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import yaml

from lakerag.demo import examples, groups_of, write_demo_keys
from tests.fixtures.api import serve, settings_for


def test_demo_keys_answer_the_printed_restricted_question(sample_home: Path, tmp_path: Path) -> None:
    settings = settings_for(sample_home)
    path = tmp_path / "demo-keys.yaml"
    keys = write_demo_keys(path, groups_of(settings))
    assert set(keys) == {"rh", "juridico", "compras", "diretoria", "gestores"}
    assert write_demo_keys(path, groups_of(settings)) == keys  # a second demo keeps the same keys
    assert path.stat().st_mode & 0o077 == 0
    printed = [ln.strip() for ln in examples("URL", keys).splitlines() if ln.startswith("  ") and "curl" in ln]
    first, cid, follow_up, public_call = printed[-4:]
    assert first.endswith("conversation_id}'") and "| jq" in public_call
    call = shlex.split(first.split(" | jq")[0])
    key = next(a for a in call if a.startswith("X-API-Key: ")).removeprefix("X-API-Key: ")
    body = json.loads(call[call.index("-d") + 1])
    assert call[2] == "URL/v1/query" and f"-d '{json.dumps(body, ensure_ascii=False)}'" in public_call
    with serve(settings, keys=yaml.safe_load(path.read_text(encoding="utf-8"))) as api:
        allowed = api.client.post("/v1/query", json=body, headers={"X-API-Key": key})
        public = api.client.post("/v1/query", json=body)
        if shutil.which("curl") and shutil.which("jq"):  # the printed commands, as a user pastes them
            def shell(command: str) -> dict:
                done = subprocess.run(["bash", "-c", command.replace("URL", api.url)], capture_output=True,
                                      text=True, timeout=120, check=True)
                return json.loads(done.stdout)

            answered = shell(first)
            assert answered["status"] == "answered" and answered["conversation_id"]
            assert any("CT-2024-0187" in title for title in answered["sources"])
            followed = shell(cid + "\n" + follow_up)
            assert "CT-2024-0187" in (followed["rewritten_question"] or "")
            amounts = re.findall(r"\d{1,3}(?:\.\d{3})+,\d{2}", answered["answer"])
            assert amounts and not any(a in shell(public_call)["answer"] for a in amounts)
    assert allowed.status_code == 200 and public.status_code == 200
    cited = [c["path"] for c in allowed.json()["citations"]]
    assert any(re.match(r"RH/|Contratos/|Atas/", p) for p in cited), cited
    assert not any(re.match(r"RH/(?!Formulários/)|Contratos/|Atas/", c["path"]) for c in public.json()["citations"])
