"""One typed settings object, read once per process. Every variable is prefixed ``LAKERAG_``."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
SAMPLE_SOURCE = REPO_ROOT / "sample_corpus" / "documents"


class Settings(BaseSettings):
    """lakerag configuration. Defaults run on a laptop with no services."""

    model_config = SettingsConfigDict(env_prefix="LAKERAG_", extra="ignore")

    home: Path = Field(REPO_ROOT / "var", description="Data root of the lakehouse (raw blobs, tables, runs).")
    source: Path = Field(SAMPLE_SOURCE, description="Folder whose documents are ingested.")
    folders_config: Path | None = Field(
        None,
        description="YAML with access-group prefixes and the doc_type taxonomy; "
        "default: `.lakerag.yaml` at the root of the source folder.",
    )
    max_file_bytes: int = Field(50 * 1024 * 1024, gt=0, description="Files larger than this are quarantined.")
    chunk_size: int = Field(800, ge=200, description="Target chunk size in characters.")
    chunk_overlap: int = Field(120, ge=0, description="Characters of overlap between consecutive chunks.")
    ocr: bool = Field(True, description="OCR PDFs without a text layer when tesseract is installed.")
    ocr_languages: str = Field("por+eng", description="Tesseract language codes, joined by '+'.")
    ocr_dpi: int = Field(300, ge=72, le=600, description="Rendering resolution for OCR.")
    marker: bool = Field(False, description="Use Marker (GPU) for PDFs without a text layer; needs its models.")
    batch_size: int = Field(25, ge=1, description="Documents per mapped task in the Airflow DAG.")

    def folders_config_path(self) -> Path:
        return self.folders_config or (self.source / ".lakerag.yaml")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read from the environment once)."""
    return Settings()
