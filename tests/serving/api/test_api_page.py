"""The analysts' page end to end in headless Chromium (Debian's browser driven by Playwright; nothing is
downloaded): ask, open a cited passage, see a refusal, use a key, list the catalog."""

from __future__ import annotations

import shutil

import pytest

from tests.fixtures.api import TRAVEL

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def browser_page(api, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    if not shutil.which("chromium") and not shutil.os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=CHROMIUM,
                                                       headless=True, args=ARGS)
        page = context.new_page()
        requests, errors = [], []
        page.on("request", lambda r: requests.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(api.url + "/")
        yield page, requests, errors
        context.close()


def test_page_asks_cites_and_lists(api, browser_page):
    page, requests, errors = browser_page
    page.fill("#question", TRAVEL)
    page.select_option("#mode", "basic")
    page.click("#ask")
    page.wait_for_selector("#result:not([hidden])")
    assert page.text_content("#answer-status") == "respondida"
    assert page.text_content("#answer-mode") == "basic"
    assert "dias úteis" in page.text_content("#answer")
    citation = page.locator("#answer a.cite").first
    number = citation.get_attribute("data-n")
    citation.click()
    page.wait_for_selector("#passage:not([hidden])")
    page.wait_for_function("document.getElementById('passage-text').textContent.length > 20")
    assert page.text_content("#passage-title").startswith(f"[{number}]")
    assert "prestação de contas" in page.text_content("#passage-text").lower()
    page.click("#passage-close")

    page.fill("#question", "Quantos leitos de UTI pediátrica o hospital possui?")
    page.select_option("#mode", "auto")
    page.click("#ask")
    page.wait_for_function("document.getElementById('answer-status').textContent === 'não encontrada'")
    assert page.text_content("#answer") == "Não encontrei essa informação nos documentos disponíveis."
    assert "responsáveis" in page.text_content("#suggestions")

    page.fill("#api-key", "k-rh")
    page.fill("#question", "Qual a faixa salarial do Analista de TI Pleno na tabela de faixas salariais?")
    page.click("#ask")
    page.wait_for_function("document.querySelector('#citations li') !== null")
    assert "Faixas Salariais" in page.text_content("#citations")

    page.click("#tab-catalog")
    page.fill("#cat-due", "30")
    page.fill("#cat-asof", "2026-11-29")
    page.click("#catalog-search")
    page.wait_for_selector("#catalog-table tbody tr")
    rows = page.locator("#catalog-table tbody tr")
    assert rows.count() == 5 and "due_soon" in rows.first.get_attribute("class")
    rows.first.locator("a").click()
    page.wait_for_function("document.getElementById('passage-title').textContent.startsWith('POP-ENF-014')")
    assert "Higienização" in page.text_content("#passage-text")

    assert not errors
    assert all(url.startswith(api.url) for url in requests), [u for u in requests if not u.startswith(api.url)]


RENDER = """() => {
  const box = document.createElement("div");
  box.appendChild(renderMarkdown(
    "[Doc — Seção]\\n## Título <img src=x onerror=\\"window.pwned=1\\">\\n\\nTexto com **negrito**.\\n\\n" +
    "- um\\n- dois\\n\\n1. primeiro\\n\\n| Risco | Escore |\\n|---|---|\\n| <script>window.pwned=2</script> | 10 |"));
  return {heading: box.querySelector("h4").textContent, strong: box.querySelector("p strong").textContent,
          bullets: box.querySelectorAll("ul > li").length, numbered: box.querySelectorAll("ol > li").length,
          header: [...box.querySelectorAll("th")].map((t) => t.textContent), cell: box.querySelector("td").textContent,
          markup: box.querySelectorAll("img, script").length, text: box.textContent};
}"""


def test_passages_render_as_safe_markdown_with_grades_and_partial_and_refused_answers_stand_out(api, browser_page):
    page, requests, errors = browser_page
    rendered = page.evaluate(RENDER)
    assert rendered["heading"] == 'Título <img src=x onerror="window.pwned=1">' and rendered["markup"] == 0
    assert rendered["strong"] == "negrito" and rendered["bullets"] == 2 and rendered["numbered"] == 1
    assert rendered["header"] == ["Risco", "Escore"] and rendered["cell"] == "<script>window.pwned=2</script>"
    assert "[Doc" not in rendered["text"] and page.evaluate("window.pwned === undefined")

    page.fill("#question", "Qual é o prazo para prestar contas de despesas de viagem?")
    page.select_option("#mode", "basic")
    page.click("#ask")
    page.wait_for_selector("#result:not([hidden])")
    assert page.text_content("#answer-status") == "respondida" and page.is_hidden("#answer-banner")
    items = page.locator("#citations li")
    assert items.count() >= 1 and page.locator("#citations li .grade").count() == items.count()
    assert {page.locator("#citations li .grade").nth(i).text_content() for i in range(items.count())} <= \
        {"correta", "ambígua"}
    items.first.locator("a.cite").click()
    page.wait_for_function("document.querySelector('#passage-text p, #passage-text li, #passage-text td') !== null")
    assert not page.text_content("#passage-text").lstrip().startswith("[")  # no internal "[Title — Section]"
    assert "correta" in page.text_content("#passage-grade") and "key terms" in page.text_content("#passage-grade")
    page.click("#passage-close")

    partial = {**page.evaluate("window.lastAnswer"), "status": "partial"}  # the same answer, marked partial
    page.evaluate("(data) => renderResult(data)", partial)
    assert page.text_content("#answer-status") == "parcial"
    assert page.is_visible("#answer-banner") and "parcial" in page.text_content("#answer-banner")

    page.fill("#question", "Quantos leitos de UTI pediátrica o hospital possui?")
    page.click("#ask")
    page.wait_for_function("document.getElementById('answer-status').textContent === 'não encontrada'")
    assert page.is_visible("#answer-banner") and "Nenhum documento" in page.text_content("#answer-banner")
    assert page.get_attribute("#result", "data-status") == "not_found"
    assert not errors
    assert all(url.startswith(api.url) for url in requests)
