"""``lakerag query`` follow-ups: ``--follow-up EARLIER`` in-process, ``--conversation-id`` with a server. Two
contracts share their wording; only the earlier question says which one a bare "E qual o valor mensal?" means."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lakerag.cli import main
from tests.fixtures.api import serve, settings_for

CLEANING = ("# Contrato CT-2024-0187 - Limpeza hospitalar\n\n## 1. Objeto\n\nO objeto deste contrato é a prestação de "
            "serviços de limpeza hospitalar nas alas de internação.\n\n## 2. Valor\n\nO valor mensal do contrato é "
            "de R$ 48.000,00, reajustado anualmente pelo IPCA.\n")
HOSTING = ("# Contrato CT-2023-0050 - Hospedagem em nuvem\n\n## 1. Objeto\n\nO objeto deste contrato é a hospedagem "
           "em nuvem do prontuário eletrônico.\n\n## 2. Valor\n\nO valor mensal do contrato é de R$ 12.500,00, pago "
           "até o quinto dia útil.\n")
EARLIER = "Qual o objeto do contrato CT-2024-0187?"
FOLLOW_UP = "E qual o valor mensal?"


@pytest.fixture(scope="module")
def contracts(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("follow-up")
    source = root / "src"
    (source / "Contratos").mkdir(parents=True)
    (source / "Contratos" / "ct-2024-0187.md").write_text(CLEANING, encoding="utf-8")
    (source / "Contratos" / "ct-2023-0050.md").write_text(HOSTING, encoding="utf-8")
    home = root / "home"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
        assert main(["index", "--quiet", "--source", str(source), "--home", str(home)]) == 0
    return source, home


@pytest.fixture
def fast_model(monkeypatch):
    monkeypatch.setenv("LAKERAG_EMBEDDING_MODEL", "wordllama")
    monkeypatch.delenv("LAKERAG_API_URL", raising=False)


def test_follow_up_in_process_answers_about_the_earlier_subject(contracts, fast_model, capsys):
    _, home = contracts
    assert main(["query", FOLLOW_UP, "--follow-up", EARLIER, "--mode", "basic", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert "48.000,00" in out and "12.500,00" not in out
    assert f"follow-up of: {EARLIER}" in out
    assert re.search(r"^searched as: .*CT-2024-0187", out, re.MULTILINE)


def test_without_the_earlier_question_the_follow_up_is_searched_as_asked(contracts, fast_model, capsys):
    _, home = contracts
    assert main(["query", FOLLOW_UP, "--mode", "basic", "--home", str(home), "--json"]) == 0
    assert '"rewritten_question":null' in capsys.readouterr().out


def test_a_server_conversation_continues_with_its_id(contracts, fast_model, capsys):
    source, home = contracts
    with serve(settings_for(home, source)) as server:
        assert main(["query", EARLIER, "--mode", "basic", "--server", server.url]) == 0
        first = capsys.readouterr().out
        found = re.search(r"^follow up with: --conversation-id (\S+)$", first, re.MULTILINE)
        assert found, first
        assert main(["query", FOLLOW_UP, "--mode", "basic", "--server", server.url,
                     "--conversation-id", found[1]]) == 0
        second = capsys.readouterr().out
        assert "48.000,00" in second and "12.500,00" not in second
        assert main(["query", FOLLOW_UP, "--follow-up", EARLIER, "--mode", "basic", "--server", server.url]) == 0
        assert "48.000,00" in capsys.readouterr().out
        assert main(["query", FOLLOW_UP, "--mode", "basic", "--server", server.url,
                     "--conversation-id", "no-such-conversation"]) == 2
        assert "conversation_id: no such conversation" in capsys.readouterr().err


def test_an_answer_in_a_pipe_is_whole_lines_like_the_servers(contracts, fast_model, capsys):
    source, home = contracts
    question = "Qual o valor mensal do contrato CT-2024-0187 de limpeza hospitalar das alas de internação?"
    assert main(["query", question, "--mode", "basic", "--home", str(home)]) == 0
    local = capsys.readouterr().out.splitlines()
    cited = re.compile(r"  \[\d\] Contrato CT-2024-0187 - Limpeza hospitalar \(Contratos/ct-2024-0187\.md\) 2\. Valor")
    assert any(cited.fullmatch(line) for line in local), local  # not folded at 80 columns
    with serve(settings_for(home, source)) as server:
        assert main(["query", question, "--mode", "basic", "--server", server.url]) == 0
        remote = capsys.readouterr().out.splitlines()
    assert local[1:3] == remote[1:3]  # the same answer and citation lines either way
