"""What an erasure covers: the strings that name a person (a name, a CPF or an e-mail; a name also as people
write it: without middle names, with initials; widened through the graph's entities and alias table, and by the
e-mails and CPFs written beside a mention or built from the name), the chunks that mention them, and the documents
that are wholly about them (named in their title or path, or every chunk mentioning them). Raw bytes of text,
Markdown and HTML documents are searched too (an address only in a ``mailto:`` link, an entity-escaped name)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

import pyarrow.parquet as pq

from lakehouse import schemas as s
from lakehouse.graph_schemas import load_graph_tables
from lakehouse.paths import LakePaths
from lakehouse.purge import Matcher, normal
from lakehouse.storage import read_table

_CPF = re.compile(r"\D*(\d{3})\D?(\d{3})\D?(\d{3})\D?(\d{2})\D*")
_CPF_IN_TEXT = re.compile(r"(?<!\d)\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?!\d)")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PARTICLES = {"da", "de", "do", "das", "dos", "e", "di", "du", "van", "von"}
BESIDE = 200  # characters either side of a mention where an e-mail or CPF is taken as the person's
_TEXTUAL = {"html", "markdown", "text"}


@dataclass
class Mentions:
    """Where a subject appears in the current tables."""

    needles: set[str]
    entities: dict[str, str] = field(default_factory=dict)  # entity id -> name
    chunks: set[str] = field(default_factory=set)
    whole: set[str] = field(default_factory=set)  # document ids wholly about the subject
    partial: set[str] = field(default_factory=set)  # document ids that keep their other chunks
    retired: set[str] = field(default_factory=set)  # content hashes of old versions that mention the subject


def subject_needles(subject: str) -> set[str]:
    """The spellings searched for: a CPF with and without punctuation, an e-mail, or a name as given and as
    people shorten it (``name_spellings``)."""
    text = subject.strip()
    if _CPF.fullmatch(text) and sum(c.isdigit() for c in text) == 11:
        return _cpf_forms(text)
    return {text} if "@" in text else name_spellings(text)


def _cpf_forms(text: str) -> set[str]:
    digits = "".join(c for c in text if c.isdigit())
    return {f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}", digits}


def name_spellings(name: str) -> set[str]:
    """A full name (three words or more) as it is also written: first and last name only, middle names as
    initials, the first name as an initial beside initials ("Patrícia Souza Ramos": "Patrícia Ramos",
    "Patrícia S. Ramos", "Patrícia S Ramos", "P. S. Ramos"). Particles (da, de, dos...) are kept or dropped,
    never made initials. A form of one word is never added: it would match other people."""
    words = name.split()
    core = [w for w in words[1:-1] if w.casefold() not in _PARTICLES]
    if len(words) < 2:
        return {name}
    first, last = words[0], words[-1]
    forms = {name, f"{first} {last}"}
    if core:
        dotted, bare = " ".join(f"{w[0]}." for w in core), " ".join(w[0] for w in core)
        forms |= {f"{first} {dotted} {last}", f"{first} {bare} {last}", f"{first[0]}. {dotted} {last}"}
    return forms


def _local_parts(words: list[str]) -> set[str]:
    """E-mail local parts built from a name, letters only: first+last, initial+last, initials+last,
    first+initials+last and last+first/last+initial ("patriciaramos", "pramos", "psramos", "patriciasramos")."""
    names = [re.sub(r"[^a-z]", "", normal(w)) for w in words if w.casefold() not in _PARTICLES]
    names = [n for n in names if n]
    if len(names) < 2:
        return set()
    first, middle, last = names[0], names[1:-1], names[-1]
    inits = "".join(n[0] for n in middle)
    return {first + last, first[0] + last, first[0] + inits + last, first + inits + last, last + first,
            last + first[0]}


def _beside(texts: list[str], matcher: Matcher, name_words: list[str]) -> set[str]:
    """E-mails and CPFs written on the line of a mention within ``BESIDE`` characters of it (another person's
    contact on the next line or row is not taken), and e-mails whose local part is built from the name
    (``_local_parts``)."""
    found: set[str] = set()
    built = _local_parts(name_words)
    for text in texts:
        folded = normal(text)
        found.update(e for e in _EMAIL.findall(folded) if re.sub(r"[^a-z]", "", e.split("@")[0]) in built)
        if not matcher.search(text):
            continue
        for line in map(normal, text.splitlines()):  # a line: a sentence, a list item, a table row
            for hit in matcher.finditer(line):
                window = line[max(0, hit.start() - BESIDE): hit.end() + BESIDE]
                found.update(_EMAIL.findall(window))
                for cpf in _CPF_IN_TEXT.findall(window):
                    found |= _cpf_forms(cpf)
    return found


def _widen(paths: LakePaths, needles: set[str]) -> tuple[set[str], dict[str, str], set[str]]:
    """Add the names and multi-word aliases of the graph entities the subject is (by name, canonical key,
    alias or alias-table row); returns (needles, entities, their evidence chunks)."""
    graph = load_graph_tables(paths.tables)
    wanted = {normal(n) for n in needles}
    canonicals = {normal(r["canonical"]) for r in graph["aliases"].to_pylist() if normal(r["alias"]) in wanted}
    entities: dict[str, str] = {}
    chunks: set[str] = set()
    widened = set(needles)
    for row in graph["entities"].to_pylist():
        forms = {normal(row["name"]), normal(row["canonical"]), *(normal(a) for a in row["aliases"])}
        if forms & wanted or normal(row["canonical"]) in canonicals:
            entities[row["entity_id"]] = row["name"]
            chunks.update(row["chunk_ids"])
            widened.update(f for f in [row["name"], *row["aliases"]] if len(normal(f).split()) >= 2)
    return widened, entities, chunks


def _raw_text(paths: LakePaths, doc: dict) -> str | None:
    """A textual document's stored bytes as text, markup and entities included (``&shy;``, ``mailto:``)."""
    if doc["detected_type"] not in _TEXTUAL or not doc[s.CONTENT_HASH]:
        return None
    blob = paths.blob(doc[s.CONTENT_HASH])
    if not blob.exists():
        return None
    data = blob.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return html.unescape(text)


def find_mentions(paths: LakePaths, subject: str) -> Mentions:
    needles, entities, evidence = _widen(paths, subject_needles(subject))
    chunks = read_table(paths.table("chunks"), s.CHUNKS).select(
        ["chunk_id", s.DOCUMENT_ID, "text", "heading_path"]).to_pylist()
    documents = read_table(paths.table("documents"), s.DOCUMENTS).to_pylist()
    raw = {d[s.CONTENT_HASH]: text for d in documents if (text := _raw_text(paths, d)) is not None}
    if "@" not in subject and not _CPF.fullmatch(subject.strip()):
        extra = _beside([c["text"] for c in chunks] + list(raw.values()), Matcher(needles), subject.split())
        if extra:
            more, more_entities, more_evidence = _widen(paths, needles | extra)
            needles, evidence = more, evidence | more_evidence
            entities.update(more_entities)
    matcher = Matcher(needles)
    found = Mentions(needles, entities)
    per_doc: dict[str, list[bool]] = {}
    for chunk in chunks:
        hit = chunk["chunk_id"] in evidence or matcher.search(chunk["text"]) or any(
            matcher.search(h) for h in chunk["heading_path"])
        per_doc.setdefault(chunk[s.DOCUMENT_ID], []).append(bool(hit))
        if hit:
            found.chunks.add(chunk["chunk_id"])
    extracted = {r[s.CONTENT_HASH]: r for r in read_table(paths.table("extracted"), s.EXTRACTED).to_pylist()}
    for doc in documents:
        doc_id, digest = doc[s.DOCUMENT_ID], doc[s.CONTENT_HASH]
        row = extracted.get(digest) or _cached_extraction(paths, digest)
        named = matcher.search(doc[s.PATH]) or (row is not None and matcher.search(row["title"]))
        mentioned = named or (row is not None and any(matcher.search(v) for v in row.values()
                                                      if isinstance(v, str))) or matcher.search(raw.get(digest))
        if not doc["is_current"] or doc[s.STATUS] != s.STATUS_ACTIVE:
            if mentioned and digest:
                found.retired.add(digest)
            continue
        flags = per_doc.get(doc_id, [])
        if named or (flags and all(flags)):
            found.whole.add(doc_id)
        elif mentioned or any(flags):
            found.partial.add(doc_id)
    found.chunks.update(c["chunk_id"] for c in chunks if c[s.DOCUMENT_ID] in found.whole)
    return found


def _cached_extraction(paths: LakePaths, digest: str | None) -> dict | None:
    part = paths.extracted_part(digest) if digest else None
    if part is None or not part.exists():
        return None
    rows = pq.read_table(part).to_pylist()
    return rows[0] if rows else None
