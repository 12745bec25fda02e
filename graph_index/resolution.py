"""Entity resolution: one entity per thing, however it is written.

1. Every mention gets a normalised key (``graph_index.keys``): case, accents, punctuation, stopwords and
   leading articles, plural -s/-es, company suffixes. Equal keys are one entity ("auto-normalised").
2. A lone given name ("Eduardo", "Dra. Helena") joins the one full name of its document with that first
   name ("Eduardo Vieira Gomes"), or is dropped when there is none or several.
3. Acronyms join their expansion ("auto-acronym"): when a chunk defines them ("Lei Geral de Proteção de Dados
   (LGPD)", "LGPD — Lei Geral ..."; the most frequent definition wins), else when exactly one multi-word name
   spells them with its initials, preferring names written in the same chunk, then the same document; a
   two-letter acronym ("TV", "RH") needs a name in the same chunk.
4. An organisation's short form joins the one longer organisation it starts ("NuvemSul Tecnologia").
5. The alias file (``graph_index.alias_file``) adds manual merges and forbids automatic ones.

Merges are applied in a fixed order over sorted keys, so the same inputs always give the same entities. The
canonical key of a merged entity is the manual target, else its longest key; its display name is the manual
target, else its most frequent surface form. Every merge is written to the ALIASES table with its reason."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from graph_index.acronyms import initials
from graph_index.alias_file import AliasOverrides
from graph_index.keys import entity_key, light
from graph_index.patterns import ORG_HEADS, fold
from graph_index.records import ChunkGraph

__all__ = ["ChunkInput", "Resolution", "resolve"]

SPECIFIC = ("ORGANIZATION", "PERSON", "NORM", "CODE", "LOCATION")
_SPELLERS = frozenset({"ORGANIZATION", "NORM", "OTHER"})


@dataclass(frozen=True)
class ChunkInput:
    chunk_id: str
    document_id: str
    graph: ChunkGraph


@dataclass
class Resolution:
    keys: list[list[str | None]]  # per chunk, per mention: the canonical key (None: dropped)
    names: dict[str, str] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    surfaces: dict[str, list[str]] = field(default_factory=dict)
    aliases: list[dict] = field(default_factory=list)  # rows of lakehouse.graph_schemas.ALIASES


class _Groups:
    """Union-find over keys; automatic merges respect the alias file's ``not_aliases``."""

    def __init__(self, overrides: AliasOverrides, lookup) -> None:
        self.parent: dict[str, str] = {}
        self.members: dict[str, set[str]] = {}
        self.blocked = [(set(lookup(a)), set(lookup(b))) for a, b in overrides.not_pairs]
        self.alone = {k for name in overrides.standalone for k in lookup(name)}
        self.refused: list[tuple[str, str, str]] = []

    def find(self, key: str) -> str:
        if key not in self.parent:
            self.parent[key] = key
            self.members[key] = {key}
        root = self.parent[key]
        while root != self.parent[root]:
            root = self.parent[root]
        self.parent[key] = root
        return root

    def union(self, a: str, b: str, manual: bool = False) -> bool:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return True
        left, right = self.members[ra], self.members[rb]
        if not manual:
            for x, y in self.blocked:
                if (x & left and y & right) or (y & left and x & right):
                    self.refused.append((a, b, "not_aliases pair"))
                    return False
            if self.alone & (left | right):
                self.refused.append((a, b, "not_aliases name"))
                return False
        keep, gone = sorted((ra, rb))
        self.parent[gone] = keep
        self.members[keep] = left | right
        del self.members[gone]
        return True


def resolve(chunks: list[ChunkInput], overrides: AliasOverrides | None = None) -> Resolution:
    overrides = overrides or AliasOverrides()
    keys = [[entity_key(m.text, m.type) for m in c.graph.mentions] for c in chunks]
    how: dict[str, tuple[str, str]] = {}  # light surface -> (source, reason) of its merge
    _attach_short_names(chunks, keys, how)
    surfaces: dict[str, Counter[str]] = defaultdict(Counter)
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    documents: dict[str, set[str]] = defaultdict(set)
    chunks_of: dict[str, set[str]] = defaultdict(set)
    by_light: dict[str, set[str]] = defaultdict(set)
    for chunk, row in zip(chunks, keys, strict=True):
        for mention, key in zip(chunk.graph.mentions, row, strict=True):
            if key is not None:
                surfaces[key][mention.text] += 1
                kinds[key][mention.type] += 1
                documents[key].add(chunk.document_id)
                chunks_of[key].add(chunk.chunk_id)
                by_light[light(mention.text)].add(key)

    def lookup(name: str) -> list[str]:
        found = by_light.get(light(name))
        if found:
            return sorted(found)
        known = [k for t in ("OTHER", "NORM", "CODE", "ORGANIZATION") if (k := entity_key(name, t)) in kinds]
        return sorted(set(known)) or [entity_key(name, "OTHER")]

    groups = _Groups(overrides, lookup)
    targets: dict[str, str] = {}  # manual target key -> its surface
    for alias, target in sorted(overrides.aliases.items()):
        target_key = lookup(target)[0]
        targets[target_key] = target
        for key in lookup(alias):
            groups.union(key, target_key, manual=True)
            for form in surfaces.get(key, {alias: 1}):
                how[light(form)] = ("manual", f"aliases: {alias} -> {target}")
    _merge_acronyms(chunks, keys, surfaces, kinds, (documents, chunks_of), groups, how)
    _merge_short_organisations(surfaces, kinds, groups, how)
    for key in sorted(kinds):
        groups.find(key)
    return _result(keys, surfaces, kinds, groups, targets, how)


def _attach_short_names(chunks: list[ChunkInput], keys: list[list[str | None]],
                        how: dict[str, tuple[str, str]]) -> None:
    full: dict[tuple[str, str], set[str]] = defaultdict(set)  # (document, first name) -> full-name keys
    for chunk, row in zip(chunks, keys, strict=True):
        for mention, key in zip(chunk.graph.mentions, row, strict=True):
            words = light(mention.text).split()
            if mention.type == "PERSON" and len(words) >= 2 and key is not None:
                full[(chunk.document_id, words[0])].add(key)
    for chunk, row in zip(chunks, keys, strict=True):
        for i, mention in enumerate(chunk.graph.mentions):
            words = light(mention.text).split()
            if mention.type == "PERSON" and len(words) == 1:
                match = full.get((chunk.document_id, words[0]), set())
                row[i] = next(iter(match)) if len(match) == 1 else None
                if row[i] is not None:
                    how[words[0]] = ("auto-short-name", f"first name of {row[i]} in {chunk.document_id}")


def _merge_acronyms(chunks, keys, surfaces, kinds, where_seen, groups: _Groups,
                    how: dict[str, tuple[str, str]]) -> None:
    documents, chunks_of = where_seen
    defined: dict[str, Counter[str]] = defaultdict(Counter)
    where: dict[tuple[str, str], str] = {}
    for chunk, row in zip(chunks, keys, strict=True):
        by_text = {m.text: k for m, k in zip(chunk.graph.mentions, row, strict=True) if k is not None}
        for d in chunk.graph.definitions:
            short, long = entity_key(d.short, "OTHER"), by_text.get(d.long) or entity_key(d.long, "OTHER")
            if short in kinds and long in kinds and short != long:
                defined[short][long] += 1
                where.setdefault((short, long), chunk.chunk_id)
    for short in sorted(defined):
        long = sorted(defined[short].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        if groups.union(short, long):
            for form in surfaces[short]:
                how[light(form)] = ("auto-acronym",
                                    f"defined as {_name(surfaces, long)!r} in {where[(short, long)]}")
    spellers: dict[str, list[str]] = defaultdict(list)  # strict initials -> multi-word name keys
    for key in sorted(kinds):
        words = _name(surfaces, key).split()
        if len(words) >= 2 and _major(kinds[key]) in _SPELLERS:
            spellers[initials(words)].append(key)
    for short in sorted(kinds):
        name = _name(surfaces, short)
        if short in defined or " " in name or not name.isupper() or len(groups.members.get(
                groups.find(short), ())) > 1:
            continue
        matches = spellers.get(light(name).replace(" ", ""), [])
        near = [k for k in matches if chunks_of[k] & chunks_of[short]]  # written side by side somewhere
        if len(name) < 3:  # "TV", "RH": too short to trust initials alone
            chosen = near
        else:
            chosen = near or [k for k in matches if documents[k] & documents[short]] or matches
        if len(chosen) == 1 and groups.union(short, chosen[0]):
            for form in surfaces[short]:
                how[light(form)] = ("auto-acronym", f"initials of {_name(surfaces, chosen[0])!r}")


def _merge_short_organisations(surfaces, kinds, groups: _Groups, how: dict[str, tuple[str, str]]) -> None:
    """"NuvemSul Tecnologia" joins "NuvemSul Tecnologia e Dados S.A." when it starts exactly one other
    organisation's key (and does not start with a generic head such as "Hospital" or "Comissão")."""
    organisations = sorted(k for k in kinds if _major(kinds[k]) == "ORGANIZATION")
    starting: dict[tuple[str, ...], list[str]] = defaultdict(list)  # proper word prefix -> longer keys
    for key in organisations:
        words = tuple(key.split())
        for n in range(1, len(words)):
            starting[words[:n]].append(key)
    for short in organisations:
        words = tuple(short.split())
        if fold(words[0]) in ORG_HEADS:
            continue
        longer = starting.get(words, [])
        if len(longer) == 1 and groups.union(short, longer[0]):
            for form in surfaces[short]:
                how[light(form)] = ("auto-short-name", f"short form of {_name(surfaces, longer[0])!r}")


def _major(kinds: Counter[str]) -> str:
    """The most frequent type (ties: alphabetical), independent of the order mentions were counted in."""
    return sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def _name(surfaces: dict[str, Counter[str]], key: str) -> str:
    """The most frequent surface form of a key (ties: longer, then alphabetical)."""
    forms = surfaces.get(key)
    if not forms:
        return key
    return sorted(forms.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))[0][0]


def _result(keys, surfaces, kinds, groups: _Groups, targets: dict[str, str],
            how: dict[str, tuple[str, str]]) -> Resolution:
    result = Resolution(keys=[])
    canonical_of: dict[str, str] = {}
    for _, members in sorted(groups.members.items()):
        manual = sorted(m for m in members if m in targets)
        canonical = manual[0] if manual else sorted(
            members, key=lambda k: (-len(k.split()), -sum(surfaces.get(k, {}).values()), k))[0]
        forms: Counter[str] = Counter()
        types: Counter[str] = Counter()
        for m in members:
            canonical_of[m] = canonical
            forms.update(surfaces.get(m, {}))
            types.update(kinds.get(m, {}))
        if not forms:
            continue
        result.names[canonical] = targets.get(canonical) or _name({canonical: forms}, canonical)
        result.types[canonical] = _type(types)
        result.surfaces[canonical] = sorted(forms)
        for form in sorted({light(f) for f in forms} - {canonical}):
            source, reason = how.get(form, ("auto-normalised", "same key after case, accents, punctuation, "
                                                                "stopwords and plurals"))
            result.aliases.append({"alias": form, "canonical": canonical, "source": source, "reason": reason})
    for a, b, why in groups.refused:
        for key in (a, b):
            if key in canonical_of:
                result.aliases.append({"alias": light(_name(surfaces, key)), "canonical": canonical_of[key],
                                       "source": "manual-split", "reason": f"{why}: {a} kept apart from {b}"})
    result.keys = [[canonical_of.get(k) if k is not None else None for k in row] for row in keys]
    result.aliases.sort(key=lambda r: (r["canonical"], r["alias"], r["source"]))
    return result


def _type(types: Counter[str]) -> str:
    specific = [(n, t) for t, n in types.items() if t in SPECIFIC]
    if specific:
        return sorted(specific, key=lambda nt: (-nt[0], SPECIFIC.index(nt[1])))[0][1]
    return "CONCEPT" if types.get("CONCEPT", 0) > types.get("OTHER", 0) else "OTHER"
