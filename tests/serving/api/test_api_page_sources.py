"""Issue 23's page items in headless Chromium, checked as a user sees them (visible, where on screen, in what
order): a catalog document opens in a drawer that shows over the catalog, the catalog has a search box, Fontes
tell two versions of a document apart and list sources in the answer's numbering, cited passages never wear an
"incorreta" chip, and warnings about planted instructions are in the answer's language and name only sources
that are listed."""

from __future__ import annotations

import re

from tests.fixtures.api import AS_OF, TRAVEL
from tests.serving.api.test_api_page import browser_page  # noqa: F401 - the shared Chromium fixture

COMPLIANCE = "O contrato CT-2024-0187 atende à Política de Segurança da Informação para Terceiros?"
SUPPLIERS = "Qual é o prazo de pagamento de fornecedores?"  # the FAQ answers it; two of its passages are flagged
MARK = re.compile(r"\[(\d+)\]")


def _ask(page, question: str, mode: str = "basic") -> dict:
    page.evaluate("window.lastAnswer = null")
    page.fill("#question", question)
    page.select_option("#mode", mode)
    page.click("#ask")
    page.wait_for_function("window.lastAnswer !== null && window.lastAnswer !== undefined")
    return page.evaluate("window.lastAnswer")


def _on_top(page, selector: str) -> bool:
    """The element is what a user sees at its own centre (inside the viewport, nothing drawn over it)."""
    return page.evaluate("""(sel) => {
      const node = document.querySelector(sel), r = node.getBoundingClientRect();
      const x = r.left + r.width / 2, y = r.top + Math.min(r.height / 2, 40);
      return r.width > 0 && r.height > 0 && node.contains(document.elementFromPoint(x, y));
    }""", selector)


def _sources_on_screen(page) -> list[tuple[float, str]]:
    """(top edge, [n]) of each Fontes entry, top to bottom as drawn."""
    items = page.locator("#citations li")
    rows = []
    for i in range(items.count()):
        box = items.nth(i).bounding_box()
        assert box is not None and box["height"] > 0  # drawn, not just in the DOM
        rows.append((box["y"], items.nth(i).locator("a.cite").inner_text()))
    return sorted(rows)


def test_a_catalog_document_opens_in_a_drawer_shown_over_the_catalog(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    page.click("#tab-catalog")
    page.fill("#cat-due", "30")
    page.fill("#cat-asof", AS_OF)
    page.click("#catalog-search")
    page.wait_for_selector("#catalog-table tbody tr")
    link = page.locator("#catalog-table tbody tr a").first
    assert link.inner_text().startswith("POP-ENF-014")
    link.click()
    page.wait_for_function("document.getElementById('passage-text').textContent.includes('Higienização')")
    assert page.is_visible("#passage") and page.is_visible("#passage-text")
    box, viewport = page.locator("#passage").bounding_box(), page.viewport_size
    assert box["width"] > 200 and box["height"] > 200 and box["x"] + box["width"] <= viewport["width"] + 1
    assert _on_top(page, "#passage-title") and _on_top(page, "#passage-text")
    assert page.inner_text("#passage-title").startswith("POP-ENF-014")
    assert "Higienização" in page.inner_text("#passage-text")  # rendered text, not only DOM text
    assert page.is_visible("#catalog-table")  # the catalog stays where it was, beside the drawer

    page.keyboard.press("Escape")  # closes it, back on the link that opened it
    assert page.is_hidden("#passage") and page.evaluate("document.activeElement.textContent").startswith("POP-ENF")
    assert not errors


def test_the_catalog_search_box_lists_as_one_types_and_is_reached_by_keyboard(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    page.click("#tab-catalog")
    box = page.get_by_role("searchbox", name="Buscar")
    assert box.is_visible()
    for _ in range(6):  # Tab from the tab button reaches the search box
        if page.evaluate("document.activeElement.id") == "cat-q":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "cat-q"

    words = "higienização das mãos"
    page.keyboard.type(words)  # no click on "Listar": the list follows the typing
    page.wait_for_function("(document.querySelector('#catalog-table tbody tr a') || {}).textContent"
                           "?.startsWith('POP-ENF-014')")
    first = page.locator("#catalog-table tbody tr").first
    assert first.is_visible() and _on_top(page, "#catalog-table tbody tr")
    assert words in page.inner_text("#catalog-total")
    searched = [u for u in requests if "/v1/catalog?" in u and "q=" in u]
    assert 1 <= len(searched) < len(words) / 2  # debounced: one listing per pause, not one per key

    page.fill("#cat-q", "")
    page.keyboard.press("Enter")  # Enter lists at once; an empty box is the whole catalog
    page.wait_for_function("!document.getElementById('catalog-total').textContent.includes('para')")
    assert page.locator("#catalog-table tbody tr").count() > 5
    assert not errors


def test_sources_show_version_and_path_in_the_answers_numbering(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    data = _ask(page, TRAVEL)
    assert data["status"] == "answered"
    drawn = _sources_on_screen(page)
    numbers = [int(MARK.fullmatch(text).group(1)) for _, text in drawn]
    assert numbers == sorted(numbers) and len(numbers) >= 2  # [2] above [3], though the answer cites [3] first
    assert set(numbers) == {int(n) for n in MARK.findall(page.inner_text("#answer"))}

    items = page.locator("#citations li")
    texts = [items.nth(i).inner_text() for i in range(items.count())]
    assert len(set(texts)) == len(texts)  # v2 and v3 no longer read alike
    by_version = {v: t for t in texts for v in ("versão 2", "versão 3") if v in t}
    assert set(by_version) == {"versão 2", "versão 3"}
    assert "Políticas/Obsoletos/Política de Reembolso de Despesas de Viagem v2.pdf" in by_version["versão 2"]
    assert "Políticas/Política de Reembolso de Despesas de Viagem v3.pdf" in by_version["versão 3"]
    for i in range(items.count()):
        path = items.nth(i).locator(".path")
        assert path.is_visible() and path.bounding_box()["y"] >= items.nth(i).locator("a.cite").bounding_box()["y"]
    assert not errors


def test_cited_passages_never_wear_an_incorrect_chip(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    page.fill("#api-key", "k-juridico")
    data = _ask(page, COMPLIANCE, mode="auto")
    assert data["mode_used"] == "agentic" and data["status"] == "answered"
    cited = {c["n"] for c in data["citations"]}
    judged_out = sorted(e["n"] for e in data["evidence"] if e["n"] in cited and e["grade"] == "incorrect")
    assert judged_out  # the comparison relies on the policy's requirements, graded against the contract

    chips = page.locator("#citations li .grade")
    assert chips.count() == len(cited)
    shown = [chips.nth(i).inner_text() for i in range(chips.count())]
    assert all(chips.nth(i).is_visible() for i in range(chips.count()))
    assert "incorreta" not in shown and set(shown) <= {"correta", "ambígua", "citada"}
    page.locator(f"#citations li a.cite[data-n='{judged_out[0]}']").click()
    page.wait_for_selector("#passage:not([hidden])")
    assert page.is_visible("#passage-grade .grade") and "incorreta" not in page.inner_text("#passage-grade")
    assert page.inner_text("#passage-grade .grade") == "citada"
    assert not errors


def test_injection_warnings_are_in_portuguese_and_name_only_listed_sources(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    _ask(page, SUPPLIERS)
    warnings = page.locator("#warnings li")
    assert warnings.count() >= 1 and all(warnings.nth(i).is_visible() for i in range(warnings.count()))
    text = page.inner_text("#warnings")
    listed = {marker for _, marker in _sources_on_screen(page)}
    assert "instruções dirigidas a um assistente" in text and "addressed" not in text and "ignored" not in text
    assert {f"[{n}]" for n in MARK.findall(text)} <= listed and "[1]" in text  # the cited FAQ passage is named
    assert "um trecho consultado e não listado" in text  # the other flagged passage is counted, not named

    _ask(page, TRAVEL)  # the FAQ is read but not cited: it is not named
    text = page.inner_text("#warnings")
    assert "FAQ" not in text and not MARK.search(text) and "instruções dirigidas a um assistente" in text
    assert not errors


def test_an_english_question_gets_english_warnings_naming_only_cited_sources(api):
    body = api.client.post("/v1/query", json={"question": "How many days per week can staff work remotely?",
                                              "mode": "basic"}).json()
    assert body["language"] == "en" and body["status"] == "answered"
    cited = {c["n"] for c in body["citations"]}
    injected = [w for w in body["warnings"] if "instructions addressed to an assistant" in w]
    assert any(w.startswith("source [1] (REMOTE WORK") for w in injected) and 1 in cited
    assert {int(n) for w in injected for n in MARK.findall(w)} <= cited
    assert any(w.startswith("a passage read but not listed among the sources") for w in injected)
