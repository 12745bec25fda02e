"""``make demo``'s keys file: one key per group of the sample corpus, and a printed curl example for a
restricted question that works with its key (and sees nothing restricted without it)."""

from __future__ import annotations

import json
import re
import shlex
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
    calls = [shlex.split(ln.strip()) for ln in examples("URL", keys).splitlines() if ln.strip().startswith("curl")]
    with_key, without_key = calls[0], calls[1]
    key = next(a for a in with_key if a.startswith("X-API-Key: ")).removeprefix("X-API-Key: ")
    body = json.loads(with_key[with_key.index("-d") + 1])
    assert with_key[2] == "URL/v1/query" and body == json.loads(without_key[without_key.index("-d") + 1])
    with serve(settings, keys=yaml.safe_load(path.read_text(encoding="utf-8"))) as api:
        allowed = api.client.post("/v1/query", json=body, headers={"X-API-Key": key})
        public = api.client.post("/v1/query", json=body)
    assert allowed.status_code == 200 and public.status_code == 200
    cited = [c["path"] for c in allowed.json()["citations"]]
    assert any(re.match(r"RH/|Contratos/|Atas/", p) for p in cited), cited
    assert not any(re.match(r"RH/(?!Formulários/)|Contratos/|Atas/", c["path"]) for c in public.json()["citations"])
