"""The question inside a question: something named by what it does ("o fornecedor que hospeda o prontuário
eletrônico", "the company that cleans the wards") must be found before the question about it can be answered.
That implied question ("Qual fornecedor hospeda o prontuário eletrônico") is a part of its own: searched on its
own, its answer (a name, a contract code) is what the workflow follows to the document that answers the rest.

Only a definite description counts ("o", "a", "à", "do", "pelo", ... in Portuguese, "the" in English): "a
supplier that notifies within 72 hours" is a hypothesis, not someone to find."""

from __future__ import annotations

import re

from lakehouse.text import fold
from serving.answers.wording import language_of

_STOP = (r"se|n[ãa]o|foi|foram|[ée]|s[ãa]o|era|deve|devem|pode|podem|tem|t[êe]m|possui|est[áa]|est[ãa]o|ter[áa]|"
         r"ir[áa]|e|ou|mas|will|would|must|should|can|could|may|is|are|was|were|has|have|had|does|did|do|and|or|but")
_PAST = r"[^\W\d_]{3,}(?:ou|iu|eu|aram|eram|iram)"  # the main verb after the description ("assumiu", "assinou")
_CLAUSE = re.compile(rf"\b(?P<det>[oa]s?|à|às|aos?|d[oa]s?|n[oa]s?|pel[oa]s?|the)\s+(?P<noun>[^\W\d_]{{4,}})\s+"
                     rf"(?:que|that|which|who)\s+"
                     rf"(?P<what>(?:(?!(?:{_STOP}|{_PAST})\b)[^\s,;:?!.]+\s*){{2,7}})", re.IGNORECASE)
_ARTICLES = {"o", "a", "os", "as", "the", "de", "do", "da", "dos", "das", "of", "um", "uma", "an"}
_ASKS_IT = re.compile(r"^\W*(?:quem|qual|quais|who|which|what)(?:\s+(?:e|eh|sao|is|are|was|were|foi))?\s*$",
                      re.IGNORECASE)


def implied(question: str) -> str | None:
    """The question a definite description by a relative clause implies ("Quais controles o fornecedor que
    hospeda o prontuário se obrigou a cumprir?" -> "Qual fornecedor hospeda o prontuário"), or None; None too
    when the description is all the question asks ("Quem é o fornecedor que hospeda o prontuário?")."""
    english = language_of(question) == "en"
    for match in _CLAUSE.finditer(question):
        if (match.group("det").lower() == "the") != english:
            continue
        words = match.group("what").split()
        while words and words[-1].lower() in _ARTICLES:
            words.pop()
        before = re.split(r"[?;.]", question[:match.start()])[-1]
        if len(words) < 2 or _ASKS_IT.match(fold(before)):
            continue
        return f"{'Which' if english else 'Qual'} {match.group('noun')} {' '.join(words)}"
    return None
