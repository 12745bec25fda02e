"""A version the question names that no document of the title it asks about has ("na versão 5 da política de
reembolso", when versions 2 and 3 exist): the fixed refusal, with the versions there are, cited, before any
mode's or composer's answer. Quoting the current version's rule under "Versão vigente" would answer another
question than the one asked."""

from __future__ import annotations

from dataclasses import dataclass

from serving.answers.compose import Draft
from serving.answers.evidence import Request
from serving.answers.grading import INCORRECT
from serving.answers.synthesis.base import Graded
from serving.answers.versions import asked_version, family, number
from serving.answers.wording import not_found

WHERE = {"pt": "Versões disponíveis:", "en": "Versions available:"}


def absent_version(req: Request) -> list[tuple[str, int | None]] | None:
    """(each version there is, the source citing it when the evidence holds it) when the question names a
    version that the titles of its usable evidence, each in several numbered versions, do not have; None when it
    names none, or one that exists."""
    asked = asked_version(req.q.text)
    if asked is None:
        return None
    engine = req.engine
    usable = [n for n in sorted(req.grades, key=lambda n: -req.grades[n].score) if req.grades[n].grade != INCORRECT]
    cited = {req.item(n).document_id: n for n in reversed(usable)}
    versions: dict[str, tuple[float, str, int | None]] = {}
    for n in usable:
        documents = engine.families.get(family(req.item(n).title or ""), [])
        numbers = {d: number(engine.index.titles[engine.documents[d][0]], engine.catalog.meta(d))
                   for d in documents if engine.documents.get(d) and engine.row_readable(engine.documents[d][0],
                                                                                         req.groups)}
        if len([v for v in numbers.values() if v is not None]) < 2:
            continue  # not a title of several numbered versions
        if asked in numbers.values():
            return None
        for d, v in numbers.items():
            if v is not None:
                versions[d] = (v, f"{engine.index.titles[engine.documents[d][0]]} v{v:g}", cited.get(d))
    return [(name, n) for _, name, n in sorted(versions.values())] or None


@dataclass
class AbsentVersion:
    """The refusal for a version that does not exist; ``None`` (the next synthesizer) otherwise."""

    name: str = "versions"

    def draft(self, evidence: Graded) -> Draft | None:
        req = evidence.request
        found = absent_version(req) if req is not None else None
        if not found:
            return None
        language = evidence.language
        where = WHERE.get(language, WHERE["pt"])
        listed = "; ".join(name + (f" [{n}]" if n is not None else "") for name, n in found)
        return Draft(f"{not_found(language)}\n{where} {listed}", list(dict.fromkeys(n for _, n in found if n)),
                     "not_found", "rules")
