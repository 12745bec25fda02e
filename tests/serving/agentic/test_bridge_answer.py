"""The answer of a question whose answer lies in a document named by the first one (a bridge)."""

from __future__ import annotations

from types import SimpleNamespace

from serving.answers.modes.agentic import _bridge_answer
from serving.answers.relevance import terms

QUESTION = "Transfiguration of Vincent is the third studio album by a singer-songwriter from what state?"
SOURCES = [
    ("album", "Transfiguration of Vincent",
     "Transfiguration of Vincent, released in 2003, is the third studio album by singer-songwriter M. Ward. "
     "The title alludes to a 1965 album by John Fahey."),
    ("other", "Strange Mercy", "Strange Mercy is the third studio album by St. Vincent."),
    ("singer", "M. Ward",
     "Matthew Stephen Ward is an American singer-songwriter and guitarist. He was born in Portland, in the state of "
     "Oregon."),
]


def _retrieved():
    engine = SimpleNamespace(relevance=SimpleNamespace(weights=lambda q, lang: dict.fromkeys(terms(q, lang), 1.0)),
                             rows={}, injection=None)
    request = SimpleNamespace(engine=engine, question=QUESTION)
    out = SimpleNamespace(
        evidence=[SimpleNamespace(n=n, id=f"c{n}", kind="chunk", document_id=doc)
                  for n, (doc, _, _) in enumerate(SOURCES, 1)],
        sources=[SimpleNamespace(n=n, title=title, text=text, flagged=())
                 for n, (_, title, text) in enumerate(SOURCES, 1)])
    return request, out


def test_the_answer_quotes_the_first_document_then_the_one_it_names():
    request, out = _retrieved()
    first, second = _bridge_answer(request, out, ["singer"]).splitlines()
    assert first.startswith("Transfiguration of Vincent, released in 2003") and first.endswith("[1]")
    assert "state of Oregon" in second and second.endswith("[3]")


def test_no_bridge_answer_without_a_document_reached_through_a_title():
    request, out = _retrieved()
    assert _bridge_answer(request, out, ["elsewhere"]) is None


def test_no_bridge_answer_when_the_first_sentence_names_no_document_reached():
    """One passage of many under a title named another in passing: no bridge, the graded composition answers."""
    request, out = _retrieved()
    out.sources[2].title = "Portland"
    assert _bridge_answer(request, out, ["singer"]) is None
