"""A ruled region is a figure, not a table, when its cells are mostly empty without a header row or label
column, or when it draws a plotted series and few cells hold text (``transforms/extraction/pdf_figures.py``)."""

from __future__ import annotations

from types import SimpleNamespace

from transforms.extraction.pdf_figures import is_figure

BBOX = (100.0, 100.0, 500.0, 300.0)


def _page(curves: list[dict] | None = None) -> SimpleNamespace:
    return SimpleNamespace(curves=curves or [], lines=[])


def _series() -> dict:
    pts = [(100 + 40 * k, 280 - 15 * k - 5 * (k % 2)) for k in range(10)]
    return {"x0": 100, "x1": 460, "top": 130, "bottom": 280, "pts": pts}


def test_chart_grid_with_scattered_labels_is_a_figure() -> None:
    rows = [["pico: 42"] + [""] * 8, [""] * 5 + ["nova polític", "a", "", ""], [""] * 8 + ["mínimo"]]
    assert is_figure(_page(), BBOX, rows)


def test_sparse_checklist_with_a_header_row_stays_a_table() -> None:
    rows = [["Etapa", "TI", "RH", "Jurídico", "DPO"], ["Coleta", "X", "", "", ""], ["Guarda", "", "", "", "X"],
            ["Descarte", "", "", "X", ""]]
    assert not is_figure(_page(), BBOX, rows)
    assert not is_figure(_page([_series()]), BBOX, rows)  # 11 of 20 cells hold text: still a table


def test_half_empty_grid_under_a_plotted_series_is_a_figure() -> None:
    rows = [["40", "", "meta", ""], ["30", "", "", "real"], ["20", "", "", ""]]
    assert not is_figure(_page(), BBOX, rows)  # its first column is filled: alone, it could be a table
    assert is_figure(_page([_series()]), BBOX, rows)
