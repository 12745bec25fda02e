"""Which strips an extractive answer quotes when two passages hold the same question words."""

from __future__ import annotations

from types import SimpleNamespace

from serving.answers.grading import Strip
from serving.answers.refine import _strips

HELD = frozenset({"anex", "requer"})


def _req(kind, second: str):
    strips = [Strip("O docente deverá anexar o formulário de requerimento de inscrição.", 0, 1.0, HELD),
              Strip(second, 1, 0.95, HELD)]
    return SimpleNamespace(q=SimpleNamespace(kind=kind), grades={1: SimpleNamespace(strips=strips)})


def test_a_close_second_with_the_same_words_is_quoted_when_no_kind_of_fact_is_asked():
    req = _req(None, "A acadêmica deverá entregar o requerimento anexando o laudo médico.")
    assert [s.text for _, s in _strips(req, [1])][-1].endswith("laudo médico.")


def test_a_close_second_is_left_out_when_it_would_state_a_competing_value():
    numbered = _req(None, "O requerimento deve ser anexado em até 5 dias.")
    asked = _req("deadline", "A acadêmica deverá entregar o requerimento anexando o laudo médico.")
    assert len(_strips(numbered, [1])) == 1 and len(_strips(asked, [1])) == 1
