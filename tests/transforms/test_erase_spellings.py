"""Erasing a person by name finds her as people write her: a soft hyphen inside the name, the middle name as an
initial, first and last name only after a title, the e-mail and CPF written beside the name or only in a
``mailto:`` link, and the graph's entity for the short form. After erase and gc an independent scan of the data
root finds none of the spellings the dry run listed."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.trace import traces

FULL = "Patrícia Souza Ramos"
DOCS = {
    "escala.md": "# Escala de enfermagem\n\nResponsável pelo turno: Patr\u00adícia Souza Ramos, enfermeira.\n",
    "contatos.md": "# Contatos\n\nPatrícia S. Ramos (patricia.ramos@hospital.org.br), CPF 123.456.789-09, ramal 4412.\n"
                   "Joana Lima (joana.lima@hospital.org.br), CPF 987.654.321-00, ramal 4413.\n"
                   "\nOutro contato: Joana Lima, ramal 4413.\n",
    "aviso.html": '<html><body><h1>Aviso</h1><p>Dúvidas sobre a escala: fale com a <a href="mailto:psramos@'
                  'hospital.org.br">coordenação</a>.</p><p>Horário das 7h às 19h.</p></body></html>',
    "reuniao.md": "# Ata da reunião\n\nA Enf.ª Patrícia Ramos apresentou o novo fluxo de passagem de plantão.\n"
                  "\nO grupo aprovou o fluxo por unanimidade.\n",
    "outro.md": "# Procedimento\n\nLavar as mãos antes do preparo da medicação.\n",
}


def test_erasing_a_name_finds_its_spellings_and_what_is_written_beside_it(tmp_path: Path, settings_for):
    from transforms.pipeline import run_index
    from transforms.purge import collect_garbage, erase, plan_subject

    source = tmp_path / "source"
    source.mkdir()
    for name, text in DOCS.items():
        (source / name).write_text(text, encoding="utf-8")
    settings = settings_for(source, ocr=False, embedding_model="wordllama")
    settings = settings.model_copy(update={"orchestration": settings.orchestration.model_copy(
        update={"retention_days": 0})})
    run_index(settings)
    plan = plan_subject(settings, FULL)
    listed = {n.casefold() for n in plan.needles}
    for spelling in ("patrícia ramos", "patrícia s. ramos", "patricia.ramos@hospital.org.br",
                     "psramos@hospital.org.br", "123.456.789-09", "12345678909"):
        assert spelling in listed, spelling  # the dry run names what it will look for
    assert not {"joana.lima@hospital.org.br", "987.654.321-00"} & listed  # the next line is another person
    assert {Path(p).name for p in plan.paths} >= {"escala.md", "contatos.md", "aviso.html", "reuniao.md"}
    assert "outro.md" not in {Path(p).name for p in plan.paths}

    receipt = erase(settings, plan, "test")
    collect_garbage(settings)
    assert receipt["files_still_mentioning"] == 0
    left = traces(settings.home, [FULL, "Patricia Ramos", "Patricia S. Ramos", "patricia.ramos@", "psramos@",
                                  "123.456.789-09", "12345678909"])
    assert left == {}, left
    assert traces(settings.home, ["Lavar as mãos"])  # the unrelated document stays
