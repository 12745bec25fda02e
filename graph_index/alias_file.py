"""The human override of entity resolution: a YAML file read at every graph run.

Where: ``LAKERAG_GRAPH_ALIASES_FILE`` when set, else ``<source>/.lakerag-aliases.yaml`` when it exists.
Format::

    aliases:                       # alias -> canonical, both as written in the documents
      SI: Segurança da Informação
      HVI: Hospital Vale do Ipê
    not_aliases:                   # automatic merges to undo
      - [LGPD, Lei Geral de Proteção de Dados]   # a pair: never merged automatically
      - TI                                       # a name: never merged automatically with anything

Names are matched after normalisation (case, accents, punctuation, plurals), so "segurança da informação"
matches "Segurança da Informação". A manual alias also names the merged entity after its canonical form.
Resolution is recomputed from the cached extractions and this file at every run, so deleting a line undoes
its merge, and a ``not_aliases`` entry undoes an automatic one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from lakehouse.errors import ConfigError
from lakehouse.settings import Settings

FILE_NAME = ".lakerag-aliases.yaml"


@dataclass(frozen=True)
class AliasOverrides:
    aliases: dict[str, str] = field(default_factory=dict)
    not_pairs: list[tuple[str, str]] = field(default_factory=list)
    standalone: list[str] = field(default_factory=list)


def alias_file_path(settings: Settings) -> Path | None:
    """``LAKERAG_GRAPH_ALIASES_FILE``, else the source folder's own alias file when there is one."""
    if settings.graph.aliases_file:
        return Path(settings.graph.aliases_file)
    default = Path(settings.source) / FILE_NAME
    return default if default.exists() else None


def load_alias_file(path: Path | None) -> AliasOverrides:
    """The overrides in ``path``; none when ``path`` is None. A malformed file is a ConfigError naming it."""
    if path is None:
        return AliasOverrides()
    if not path.exists():
        raise ConfigError(f"{path}: alias file not found (LAKERAG_GRAPH_ALIASES_FILE)")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping with 'aliases' and 'not_aliases'")
    unknown = set(data) - {"aliases", "not_aliases"}
    if unknown:
        raise ConfigError(f"{path}: unknown keys {sorted(unknown)}; expected 'aliases' and 'not_aliases'")
    aliases = data.get("aliases") or {}
    if not isinstance(aliases, dict) or not all(isinstance(k, str) and isinstance(v, str) and k.strip()
                                                and v.strip() for k, v in aliases.items()):
        raise ConfigError(f"{path}: 'aliases' must map non-empty names to non-empty names")
    pairs, standalone = [], []
    for number, item in enumerate(data.get("not_aliases") or [], start=1):
        if isinstance(item, str) and item.strip():
            standalone.append(item)
        elif isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) and x.strip()
                                                                for x in item):
            pairs.append((item[0], item[1]))
        else:
            raise ConfigError(f"{path}: not_aliases item {number} must be a name or a pair of names")
    return AliasOverrides(dict(aliases), pairs, standalone)
