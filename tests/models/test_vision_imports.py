"""colpali-engine is installed without its declared dependencies: the pages code path (building, loading,
encoding pages and questions) must never import torchvision (broken beside the CPU torch) nor peft (its
accelerate is absent). Run in a fresh interpreter whose import system refuses both and records any attempt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.fixtures.paths import REPO

SCRIPT = textwrap.dedent("""
    import json, sys
    from pathlib import Path

    attempts = []

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            # a real import (not an availability probe via importlib.util.find_spec) of a refused package
            if name.split(".")[0] in ("torchvision", "peft", "accelerate") and \\
                    sys._getframe(2).f_code.co_name == "_find_and_load_unlocked":
                attempts.append(name)
                raise ModuleNotFoundError(f"refused in this test: {name}")
            return None

    sys.meta_path.insert(0, Refuse())
    from PIL import Image
    from tests.fixtures.colpali import build_tiny_colpali
    from models.vision import load_page_model

    folder = build_tiny_colpali(Path(sys.argv[1]))
    model = load_page_model(folder, "cpu", 2)
    pages = model.encode_pages([Image.new("RGB", (60, 80), "white"), Image.new("RGB", (80, 60), "black")])
    query = model.encode_queries(["quanto foi a ocupação da UTI?"])
    loaded = sorted({m.split(".")[0] for m in sys.modules} & {"torchvision", "peft", "accelerate"})
    print(json.dumps({"attempts": attempts, "loaded": loaded, "pages": [list(p.shape) for p in pages],
                      "query": list(query[0].shape)}))
""")


def test_pages_model_path_never_imports_torchvision_or_peft(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "tiny")], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["attempts"] == [] and result["loaded"] == []
    assert [shape[1] for shape in result["pages"]] == [128, 128] and result["query"][1] == 128
