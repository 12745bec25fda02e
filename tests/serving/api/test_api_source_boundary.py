"""The issue's reproduction over HTTP: a link in a public folder to the restricted salary table never hands it to
a caller without the `rh` group, whether links are followed or not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fixtures.api import serve, settings_for
from tests.fixtures.paths import SAMPLE

QUESTION = "faixa salarial analista mínimo máximo"


@pytest.mark.parametrize("follow", [False, True])
def test_link_to_restricted_file_stays_restricted(tmp_path: Path, follow: bool):
    from transforms.pipeline import run_index

    source = tmp_path / "source"
    shutil.copytree(SAMPLE / "RH", source / "RH")
    shutil.copy(SAMPLE / ".lakerag.yaml", source / ".lakerag.yaml")
    (source / "Diversos").mkdir()
    (source / "Diversos" / "atalho.pdf").symlink_to(Path("..") / "RH" / "Tabela de Faixas Salariais 2025.pdf")
    settings = settings_for(tmp_path / "home", source=source, ocr=False, follow_symlinks=follow)
    run_index(settings)
    with serve(settings) as api:
        public = api.client.post("/v1/search", json={"question": QUESTION, "top_k": 20}).json()
        assert all(not h["path"].startswith(("Diversos/atalho", "RH/Tabela")) for h in public["hits"])
        assert "Faixa" not in " ".join(h["text"] for h in public["hits"])
        hr = api.client.post("/v1/search", json={"question": QUESTION}, headers=api.key("k-rh")).json()
        paths = {h["path"] for h in hr["hits"]}
        assert "RH/Tabela de Faixas Salariais 2025.pdf" in paths
        assert ("Diversos/atalho.pdf" in paths) == follow  # followed links keep the target's groups
