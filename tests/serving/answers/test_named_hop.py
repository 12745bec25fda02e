"""A bridge whose second document the retriever never found: the quoted passage names a readable document by
its title ("she resigned to become a lobbyist for Harbor Light Brewing"), and that document, read for what the
quoted passage leaves open, answers the rest of the question. A real engine over a small corpus; the question's
retrieval is cut to its best chunks so that the named document is not among them."""

from __future__ import annotations

import pytest

from tests.fixtures.corpora import markdown, write_corpus

CONFIG = "default_groups: [public]\n"
PRIVATE = "default_groups: [public]\naccess:\n  - prefix: \"Private/\"\n    groups: [board]\n"
DOCS = {
    "People/Marta Quintell.md": markdown(
        "# Marta Quintell",
        "Marta Quintell is an American politician who served in the Massachusetts House of Representatives. "
        "She is a Salem resident and a member of the Democratic Party. She resigned from the House to become a "
        "lobbyist for Harbor Light Brewing."),
    "Companies/Harbor Light Brewing.md": markdown(
        "# Harbor Light Brewing",
        "Harbor Light Brewing is an American brewing company founded in 1988 by Ann Doyle. Its best known beer is "
        "Lighthouse Amber."),
    "Companies/Tidewater Brewery.md": markdown(
        "# Tidewater Brewery",
        "Tidewater Brewery is a brewery founded in 1991 in Salem. It brews an India pale ale."),
    "People/Paul Ferreira.md": markdown(
        "# Paul Ferreira",
        "Paul Ferreira is an American politician who succeeded Marta Quintell as the representative of "
        "Salem in the Massachusetts House of Representatives."),
}
QUESTION = "When was the company founded for which Marta Quintell resigned to be a lobbyist?"


def _service(root, docs, config):
    from lakehouse.settings import Settings
    from serving.answers import AnswerService
    from serving.answers.reloader import SnapshotHolder
    from transforms.pipeline import run_index

    settings = Settings(home=root / "home", source=write_corpus(root / "source", docs, config),
                        embedding_model="wordllama")
    run_index(settings)
    holder = SnapshotHolder(settings)
    holder.refresh()
    return AnswerService(holder)


def _ask(service, groups: frozenset[str] = frozenset({"public"})):
    from serving.answers import Caller, QueryRequest

    return service.query(QueryRequest(QUESTION, mode="basic", top_k=1), Caller("analyst", groups), "r")


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    return _service(tmp_path_factory.mktemp("named-hop"), DOCS, CONFIG)


def test_the_document_a_quoted_passage_names_answers_the_rest_of_the_question(service):
    answer = _ask(service)
    assert "lobbyist for Harbor Light Brewing" in answer.answer
    assert "founded in 1988" in answer.answer and "1991" not in answer.answer  # not the other brewery
    assert answer.answer.index("lobbyist") < answer.answer.index("1988")  # the hop follows the passage naming it
    cited = {c.title for c in answer.citations}
    assert cited == {"Marta Quintell", "Harbor Light Brewing"}


def test_a_named_document_the_caller_may_not_read_is_not_quoted(tmp_path_factory):
    docs = {("Private/Harbor Light Brewing.md" if path.startswith("Companies/Harbor") else path): text
            for path, text in DOCS.items()}
    service = _service(tmp_path_factory.mktemp("named-hop-private"), docs, PRIVATE)
    answer = _ask(service)
    assert "1988" not in answer.answer and "Harbor Light Brewing" not in {c.title for c in answer.citations}
    assert "1988" in _ask(service, frozenset({"public", "board"})).answer
