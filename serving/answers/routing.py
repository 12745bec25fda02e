"""Whether an agentic answer is a comparison. Which questions go to ``agentic`` at all (compound ones: a
comparison, a compliance check, several questions in one) is the fitted router's decision
(``serving.answers.router``).

``comparison`` says whether the answer should be a requirement-by-requirement comparison: "está de acordo com",
"atende (a)", "cumpre", "conforme", "compatível", "compare", "comply", "match", "consistent with"."""

from __future__ import annotations

import re

from lakehouse.text import fold

_COMPARE = re.compile(r"\b(esta de acordo|estao de acordo|de acordo com|atende[m]?|cumpre[m]?|em conformidade|"
                      r"compativ\w*|compar\w*|diverge\w*|conflit\w*|diferen[cç]a|mais permissiv\w*|mais restrit\w*|"
                      r"compl(y|ies|iant|iance)|match(es)?|consistent with|in line with|meet[s]?|conflict\w*|"
                      r"differ\w*|versus|vs\.?)\b")


def comparison(question: str) -> bool:
    """A question that asks whether one document agrees with, meets or differs from another."""
    return bool(_COMPARE.search(fold(question)))
