"""Folder configuration: access groups by path prefix (with per-document sidecars) and the doc_type taxonomy."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import yaml

from lakehouse import schemas as s
from lakehouse.errors import ConfigError
from lakehouse.text import fold

UNCLASSIFIED = "unclassified"
SIDECAR_SUFFIX = ".meta.yaml"
MAX_SIDECAR_BYTES = 64 * 1024  # a sidecar holds a few groups; anything bigger is refused unread
_SHOWN = 80  # characters of a bad value shown in an error (errors end up in stored quarantine reasons)


@dataclass(frozen=True)
class PrefixRule:
    prefix: str
    value: tuple[str, ...] | str

    @property
    def key(self) -> str:
        return fold(self.prefix)


@dataclass(frozen=True)
class FolderConfig:
    default_groups: tuple[str, ...]
    access: tuple[PrefixRule, ...]
    taxonomy: tuple[PrefixRule, ...]
    origin: str = "<defaults>"

    def doc_type_for(self, relpath: str) -> str:
        """Most specific (longest) matching taxonomy prefix, or ``unclassified``."""
        rule = _longest_match(self.taxonomy, relpath)
        return str(rule.value) if rule else UNCLASSIFIED

    def groups_for(self, relpath: str, sidecar: Path | None = None) -> tuple[str, ...]:
        """Groups from the sidecar when present, else the longest matching access prefix, else the default."""
        if sidecar is not None and _exists(sidecar):
            return _sidecar_groups(sidecar)
        rule = _longest_match(self.access, relpath)
        groups = rule.value if rule else self.default_groups
        return tuple(sorted(set(groups)))


def _exists(path: Path) -> bool:
    """Whether anything (a file, a link, a folder) is at ``path``, links not followed."""
    try:
        return os.lstat(path) is not None
    except OSError:  # absent, or a 255-byte file name leaves no room for its sidecar's: there is none
        return False


def _longest_match(rules: tuple[PrefixRule, ...], relpath: str) -> PrefixRule | None:
    target = fold(relpath)
    matches = [rule for rule in rules if target.startswith(rule.key)]
    return max(matches, key=lambda rule: len(rule.key)) if matches else None


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text)} characters)"


def _groups(value: object, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(g, str) and g.strip() for g in value):
        raise ConfigError(f"{where}: 'groups' must be a list of non-empty strings, got {_shown(value)}")
    return tuple(sorted({g.strip() for g in value}))


class _NoAliases(yaml.SafeLoader):
    """YAML without anchors and aliases: a few hundred bytes of nested aliases expand to gigabytes."""

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("aliases (*name) are not allowed in a sidecar")
        return super().compose_node(parent, index)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """What is wrong and where, without the document's text (a sidecar's bytes may be anything, a secret too)."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None)
    return f"{problem[:_SHOWN]}, line {mark.line + 1}" if mark else problem[:_SHOWN]


def _read_sidecar(sidecar: Path) -> str:
    """The sidecar's text, opened without following a link (a link could point anywhere: /proc/self/environ,
    a credentials file outside the source) and only when it is a small regular file."""
    try:
        fd = os.open(sidecar, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ConfigError(f"{sidecar}: the sidecar is a symlink; sidecars are never read through links") from exc
        raise ConfigError(f"{sidecar}: cannot read the sidecar ({exc.strerror or exc})") from exc
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"{sidecar}: the sidecar is not a regular file")
        if info.st_size > MAX_SIDECAR_BYTES:
            raise ConfigError(f"{sidecar}: the sidecar has {info.st_size} bytes, over {MAX_SIDECAR_BYTES}")
        return handle.read(MAX_SIDECAR_BYTES + 1).decode("utf-8")


def _sidecar_groups(sidecar: Path) -> tuple[str, ...]:
    try:
        data = yaml.load(_read_sidecar(sidecar), Loader=_NoAliases) or {}  # noqa: S506 - a SafeLoader
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{sidecar}: the sidecar is not UTF-8 text") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{sidecar}: not valid YAML ({_yaml_problem(exc)})") from exc
    if not isinstance(data, dict) or "groups" not in data:
        raise ConfigError(f"{sidecar}: a sidecar must be a mapping with a 'groups' list")
    return _groups(data["groups"], str(sidecar))


def _rules(data: dict, section: str, field: str, origin: Path) -> tuple[PrefixRule, ...]:
    entries = data.get(section) or []
    if not isinstance(entries, list):
        raise ConfigError(f"{origin}: '{section}' must be a list of rules")
    rules = []
    for index, entry in enumerate(entries):
        where = f"{origin}: {section}[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("prefix"), str) or field not in entry:
            raise ConfigError(f"{where}: each rule needs a string 'prefix' and '{field}'")
        if field == "groups":
            value: tuple[str, ...] | str = _groups(entry[field], where)
        elif isinstance(entry[field], str) and entry[field].strip():
            value = entry[field].strip()
        else:
            raise ConfigError(f"{where}: '{field}' must be a non-empty string")
        rules.append(PrefixRule(prefix=entry["prefix"], value=value))
    return tuple(rules)


def load_folder_config(path: Path) -> FolderConfig:
    """Read the folder configuration; a missing file means everything is public and unclassified."""
    if not path.exists():
        return FolderConfig(default_groups=(s.PUBLIC,), access=(), taxonomy=())
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid YAML ({exc})") from exc
    except OSError as exc:  # a folder named .lakerag.yaml, no permission
        raise ConfigError(f"{path}: cannot read the folder configuration ({exc.strerror or exc})") from exc
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the folder configuration must be a mapping")
    default = data.get("default_groups", [])
    return FolderConfig(
        default_groups=_groups(default, f"{path}: default_groups") if default else (),
        access=_rules(data, "access", "groups", path),
        taxonomy=_rules(data, "taxonomy", "doc_type", path),
        origin=str(path),
    )
