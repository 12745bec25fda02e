"""The page keeps a thread in headless Chromium: earlier turns stay visible, a follow-up is understood from the
conversation, and "Nova conversa" clears it."""

from __future__ import annotations

from tests.fixtures.api import TRAVEL
from tests.serving.api.test_api_page import browser_page  # noqa: F401 - the shared Chromium fixture


def _ask(page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask")


def test_page_keeps_a_thread_and_starts_a_new_one(api, browser_page):  # noqa: F811
    page, requests, errors = browser_page
    page.select_option("#mode", "basic")
    _ask(page, TRAVEL)
    page.wait_for_function("document.getElementById('answer').textContent.includes('dias úteis')")
    assert page.locator("#thread li").count() == 0

    _ask(page, "E o limite diário de alimentação nas capitais?")
    page.wait_for_selector("#thread li")
    assert page.text_content("#thread li .turn-question") == TRAVEL
    assert "dias úteis" in page.text_content("#thread li")
    page.wait_for_function("document.getElementById('answer').textContent.includes('120')")
    assert "despesas de viagem" in page.text_content("#answer-rewritten")

    page.click("#new-conversation")
    assert page.locator("#thread li").count() == 0 and page.locator("#result").is_hidden()
    _ask(page, "E o limite diário de alimentação nas capitais?")
    page.wait_for_selector("#result:not([hidden])")
    assert page.is_hidden("#answer-rewritten") and page.locator("#thread li").count() == 0
    assert not errors
