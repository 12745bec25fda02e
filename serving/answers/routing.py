"""Which questions need more than one search. A compound question (a comparison, a compliance check, two named
documents or entities, or several questions in one: "quem faz X e qual o valor de Y?", see
``agentic.parts``) goes to ``agentic``; everything else keeps the single-hop routes of ``intent.route``.

``comparison`` says whether the answer should be a requirement-by-requirement comparison: "está de acordo com",
"atende (a)", "cumpre", "conforme", "compatível", "compare", "comply", "match", "consistent with"."""

from __future__ import annotations

import re

from lakehouse.text import fold
from serving.answers.agentic.parts import split

_COMPARE = re.compile(r"\b(esta de acordo|estao de acordo|de acordo com|atende[m]?|cumpre[m]?|em conformidade|"
                      r"compativ\w*|compar\w*|diverge\w*|conflit\w*|diferen[cç]a|mais permissiv\w*|mais restrit\w*|"
                      r"compl(y|ies|iant|iance)|match(es)?|consistent with|in line with|meet[s]?|conflict\w*|"
                      r"differ\w*|versus|vs\.?)\b")
_CODE = re.compile(r"\b[a-z]{2,5}(?:-[a-z]{2,4})?-\d{2,4}(?:-\d{2,4})?\b")
_NAMED = re.compile(r"\b(anexo [ivx]+|item \d+(?:\.\d+)*|clausula \d+|politica d[aeo] [a-z]+|contrato d[aeo] [a-z]+|"
                    r"pop d[aeo] [a-z]+|policy|contract)\b")


def comparison(question: str) -> bool:
    """A question that asks whether one document agrees with, meets or differs from another."""
    return bool(_COMPARE.search(fold(question)))


def compound(question: str) -> bool:
    """A comparison, a question naming two or more documents (codes, annexes, items, policies, contracts), or
    one that asks two things or more. Several things asked of the one document a code names ("qual o valor do
    contrato CT-2024-0203 e quem é o fornecedor?") are not compound: one search reaches that document, whose
    passages answer every part (the slots of ``serving.answers.slots``); "contract" next to a code is that code."""
    text = fold(question)
    codes = set(_CODE.findall(text))
    named = codes | {m.group(0) for m in _NAMED.finditer(text) if not (codes and m.group(0) == "contract")}
    if comparison(question):
        return len(named) >= 1
    if len(named) >= 2:
        return True
    return len(split(question)) >= 2 and not (len(codes) == 1 and named == codes)
