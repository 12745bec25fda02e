"""Document types and the words that name them, in one place: read from the snapshot's catalog (each type's key,
``instrucao_trabalho``, and the folder its documents live in, "Instruções de Trabalho/", which the folder
configuration's taxonomy assigns) and widened by ``data/doc_type_names.json`` (words of Portuguese and English
that name the same kind of document: "policy" for "política", "SOP" for "POP"). Names compare folded, singular,
without connecting words ("instruções de trabalho" = "instrucao trabalho"); the longest name found wins
("protocolo gerenciado" over "protocolo")."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lakehouse.text import fold

NAMES_FILE = Path(__file__).with_name("data") / "doc_type_names.json"
_LINKS = frozenset(["de", "do", "da", "dos", "das", "of", "the", "e", "and"])


def singular(word: str) -> str:
    """A Portuguese or English plural made singular ("políticas" -> "politica", "instruções" -> "instrucao")."""
    if len(word) > 3 and word.endswith("oes"):
        return word[:-3] + "ao"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith("res"):
        return word[:-2]
    if len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    """Folded words, singular, connecting words dropped."""
    found = re.findall(r"[a-z0-9]+", fold(text.replace("_", " ")))
    return [singular(w) for w in found if w not in _LINKS]


def key(text: str) -> str:
    return " ".join(words(text))


@dataclass(frozen=True)
class Group:
    """Words naming one kind of document, whether it states requirements, and its search tool's name."""

    names: frozenset[str]
    normative: bool
    tool: str
    describe: str
    archive: bool = False


@cache
def _groups(path: Path = NAMES_FILE) -> tuple[Group, ...]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return tuple(Group(frozenset(key(n) for n in g["names"]), bool(g.get("normative")), g.get("tool", ""),
                       g.get("describe", ""), bool(g.get("archive"))) for g in data["groups"])


def is_archive(doc_type: str) -> bool:
    """A type that holds superseded versions ("obsoleto", "superseded")."""
    return any(key(doc_type) in g.names for g in _groups() if g.archive)


_ACCENTS = {"a": "[aáàâã]", "e": "[eéê]", "i": "[ií]", "o": "[oóôõ]", "u": "[uúü]", "c": "[cç]"}


@cache
def normative_pattern() -> str:
    """A regular expression (case-insensitive, accents optional) for the names of the kinds of document that state
    requirements: what "conforme a Política ...", "according to the Standard ..." start with."""
    names = sorted({n for g in _groups() if g.normative for n in g.names}, key=len, reverse=True)
    words = (r"\s+".join("".join(_ACCENTS.get(c, re.escape(c)) for c in w) for w in n.split()) for n in names)
    return "(?:" + "|".join(words) + ")"


@cache
def tool_of(doc_type: str) -> tuple[str, str]:
    """(tool suffix, description) of the multi-step loop's search over one document type."""
    own = key(doc_type)
    for group in _groups():
        if own in group.names and group.tool:
            return group.tool, group.describe
    return re.sub(r"\W+", "_", doc_type.lower()).strip("_"), f"documents of type {doc_type}"


@dataclass(frozen=True)
class DocTypes:
    """The catalog's document types and the names that point at each (folded keys, see ``key``)."""

    names: Mapping[str, str] = field(default_factory=dict)  # name key -> doc_type
    normative: tuple[str, ...] = ()  # types that state requirements, most normative first

    @classmethod
    def of(cls, types: Iterable[str], folders: Mapping[str, Iterable[str]] | None = None) -> DocTypes:
        """From the catalog's types and, per type, the folder names its documents live in."""
        own: dict[str, set[str]] = {t: {key(t)} for t in types if t}
        for doc_type, names in (folders or {}).items():
            if doc_type in own:
                own[doc_type] |= {key(n) for n in names if key(n)}
        names: dict[str, str] = {}
        rank: dict[str, int] = {}
        for doc_type, keys in own.items():
            for i, group in enumerate(_groups()):
                if keys & group.names:
                    keys = keys | group.names
                    if group.normative:
                        rank.setdefault(doc_type, i)
            for k in keys:
                names.setdefault(k, doc_type)
        for doc_type, keys in own.items():  # a type's own names win over a group word another type took
            for k in keys:
                if k == key(doc_type):
                    names[k] = doc_type
        return cls(names, tuple(sorted(rank, key=lambda t: (rank[t], t))))

    @classmethod
    def of_catalog(cls, rows: Iterable[Mapping]) -> DocTypes:
        """From catalog rows (``doc_type``, ``path``): a folder names a type when all its documents are of it."""
        rows = list(rows)
        by_folder: dict[str, set[str]] = {}
        for row in rows:
            parts = str(row.get("path") or "").split("/")[:-1]
            for part in parts:
                by_folder.setdefault(part, set()).add(row.get("doc_type") or "")
        folders: dict[str, list[str]] = {}
        for folder, kinds in by_folder.items():
            if len(kinds) == 1:
                folders.setdefault(next(iter(kinds)), []).append(folder)
        return cls.of({r.get("doc_type") or "" for r in rows}, folders)

    def _found(self, question: str) -> list[tuple[str, int]]:
        """(doc_type, index of the word before the name) for each name in the question, longest first."""
        raw = re.findall(r"[a-z0-9]+", fold(question))
        kept = [(i, singular(w)) for i, w in enumerate(raw) if w not in _LINKS]
        text = [w for _, w in kept]
        found, used = [], set()
        for name in sorted(self.names, key=lambda n: (-len(n.split()), n)):
            size = len(name.split())
            for start in range(len(text) - size + 1):
                span = set(range(start, start + size))
                if " ".join(text[start:start + size]) == name and not span & used:
                    used |= span
                    found.append((self.names[name], kept[start][0]))
        return found

    def covered(self, question: str) -> set[int]:
        """Indices of the question's folded words (``re.findall(r"[a-z0-9]+", fold(question))``) that a type's
        name covers, its connecting words inside it included ("instruções de trabalho")."""
        raw = re.findall(r"[a-z0-9]+", fold(question))
        kept = [(i, singular(w)) for i, w in enumerate(raw) if w not in _LINKS]
        text = [w for _, w in kept]
        out: set[int] = set()
        for name in sorted(self.names, key=lambda n: (-len(n.split()), n)):
            size = len(name.split())
            for start in range(len(text) - size + 1):
                if " ".join(text[start:start + size]) == name:
                    out.update(range(kept[start][0], kept[start + size - 1][0] + 1))
        return out

    def named(self, question: str) -> tuple[str, ...]:
        """Document types the question names, in the order it names them."""
        return tuple(dict.fromkeys(t for t, _ in sorted(self._found(question), key=lambda pair: pair[1])))

    def plural_named(self, question: str) -> bool:
        """A type named in the plural ("os contratos", "nas políticas", "the policies", "SOPs")."""
        raw = re.findall(r"[a-z0-9]+", fold(question))
        return any(raw[i] != singular(raw[i]) for _, i in self._found(question))
