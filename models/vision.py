"""The late-interaction vision model of the ``pages`` stage and retriever: a ColPali (PaliGemma) model and its
processor, loaded through colpali-engine from a local folder (``LAKERAG_PAGES_MODEL``), on CUDA when present,
batched; page images and questions become multi-vectors, scored by MaxSim.

colpali-engine is installed without its declared dependencies (docs/adr/0009): its package ``__init__`` imports
every model it knows, and the Qwen2-VL ones import torchvision, which must stay out of this environment. So the
package is entered below its ``__init__`` (``_colpali``) and only the PaliGemma modules are imported; a test runs
the whole path with torchvision and peft imports blocked."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import logging
import os
import sys
import types
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from lakehouse.errors import ConfigError

log = logging.getLogger(__name__)

SETTING = "LAKERAG_PAGES_MODEL"
CPU_BATCH, CUDA_BATCH = 4, 32


def _colpali() -> Any:
    """colpali-engine's ColPali classes, imported without running the package's eager ``__init__``."""
    if "colpali_engine" not in sys.modules:
        spec = importlib.util.find_spec("colpali_engine")
        if spec is None or spec.origin is None:
            raise ConfigError(f"{SETTING} is set but colpali-engine is not installed (scripts/setup.sh installs "
                              "it with --no-deps)")
        root = Path(spec.origin).parent
        for name, folder in (("colpali_engine", root), ("colpali_engine.models", root / "models")):
            shell = importlib.machinery.ModuleSpec(name, None, is_package=True)
            shell.submodule_search_locations = [str(folder)]
            module = types.ModuleType(name)
            module.__spec__, module.__path__ = shell, [str(folder)]
            sys.modules[name] = module
    from colpali_engine.models.paligemma import colpali  # deferred: torch and transformers load in seconds

    return colpali


def resolve_device(device: str) -> str:
    import torch  # deferred: heavy

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device


def default_batch(device: str, batch_size: int = 0) -> int:
    """Page images per batch: the setting, else one sized for the device."""
    return batch_size or (CUDA_BATCH if device.startswith("cuda") else CPU_BATCH)


def model_id_of(folder: Path) -> str:
    """Architecture, folder name and a digest of the config and the weight files' names and sizes."""
    if not (folder / "config.json").is_file():
        raise ConfigError(f"{SETTING}={str(folder)!r}: no config.json there (vision models load from a local "
                          "folder only)")
    digest = hashlib.sha256((folder / "config.json").read_bytes())
    for weights in sorted(folder.glob("*.safetensors")):
        digest.update(f"{weights.name}:{weights.stat().st_size}".encode())
    return f"colpali:{folder.name}:{digest.hexdigest()[:12]}"


@dataclass
class PageModel:
    """A loaded ColPali model: ``encode_pages`` and ``encode_queries`` return one float32 (tokens x dim) array
    per input, padding dropped, rows L2-normalised (as the model's projection makes them)."""

    folder: Path
    model_id: str
    device: str
    batch_size: int
    dim: int = 0
    _model: Any = field(default=None, repr=False)
    _processor: Any = field(default=None, repr=False)

    def _run(self, batch: Any) -> list[np.ndarray]:
        import torch  # deferred: heavy

        batch = batch.to(self.device)
        with torch.inference_mode():
            out = self._model(**batch).float().cpu().numpy()
        mask = batch["attention_mask"].bool().cpu().numpy()
        return [np.ascontiguousarray(out[i][mask[i]], dtype=np.float32) for i in range(len(out))]

    def encode_pages(self, images: list) -> list[np.ndarray]:
        vectors: list[np.ndarray] = []
        for start in range(0, len(images), self.batch_size):
            vectors += self._run(self._processor.process_images(images[start:start + self.batch_size]))
        return vectors

    def encode_queries(self, texts: list[str]) -> list[np.ndarray]:
        vectors: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size * 4):
            vectors += self._run(self._processor.process_queries(texts[start:start + self.batch_size * 4]))
        return vectors


@lru_cache(maxsize=2)
def load_page_model(folder: Path, device: str = "auto", batch_size: int = 0) -> PageModel:
    """The ColPali model in ``folder`` (offline only). A missing folder or another architecture is a
    configuration error naming ``LAKERAG_PAGES_MODEL``."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    folder = Path(folder)
    config = folder / "config.json"
    if not config.exists():
        raise ConfigError(f"{SETTING}={str(folder)!r}: no config.json there (vision models load from a local "
                          "folder only)")
    model_type = json.loads(config.read_text(encoding="utf-8")).get("model_type")
    if model_type != "paligemma":
        raise ConfigError(f"{SETTING}={str(folder)!r}: model_type {model_type!r} is not supported; only ColPali "
                          "(paligemma) models load without torchvision (docs/adr/0009)")
    import torch  # deferred: heavy

    colpali = _colpali()
    device = resolve_device(device)
    dtype = torch.bfloat16 if device.startswith("cuda") else torch.float32
    try:
        model = colpali.ColPali.from_pretrained(folder, dtype=dtype)
        head = model.model.lm_head
        if head.weight.is_meta:  # not in ColPali checkpoints (unused; Gemma ties it to the embeddings)
            head.weight = model.get_input_embeddings().weight
        model = model.to(device).eval()
        processor = colpali.ColPaliProcessor.from_pretrained(folder)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{SETTING}={str(folder)!r} cannot be loaded: {exc}") from exc
    loaded = PageModel(folder, model_id_of(folder), device, default_batch(device, batch_size),
                       dim=int(model.dim), _model=model, _processor=processor)
    log.info("loaded pages model %s on %s (batch %d, %d dims)", loaded.model_id, device, loaded.batch_size,
             loaded.dim)
    return loaded
