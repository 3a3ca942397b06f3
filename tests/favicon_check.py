"""Every page's tab icon: the page links it, the browser asks for it, and the server
answers 200 (no 404 left in the log), for /favicon.ico too (asked for unbidden)."""

from __future__ import annotations

import urllib.request
from urllib.parse import urljoin

from playwright.sync_api import Browser, Response

from table_controller.favicon import LINK, PATHS, icon_bytes

WAIT_MS = 120_000  # only against a hang


def the_icon_is_served(browser: Browser, url: str) -> None:
    """Open ``url`` in Chromium: its icon request answers 200 with the SVG, and nothing
    the page asks for while loading is missing (404)."""
    context = browser.new_context()
    tab = context.new_page()
    answers: list[Response] = []
    tab.on("response", lambda answer: answers.append(answer))
    try:
        with tab.expect_response(lambda r: "/favicon" in r.url, timeout=WAIT_MS) as asked:
            tab.goto(url)
        icon = asked.value
        assert icon.status == 200, f"{icon.url}: {icon.status}"
        assert icon.headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in icon.body()
        assert tab.locator('head link[rel="icon"]').count() == 1
        missing = [r.url for r in answers if r.status == 404]
        assert missing == [], missing
    finally:
        context.close()
    the_icon_answers(url)


def the_icon_answers(url: str) -> None:
    """Over HTTP: the page at ``url`` links the icon, and both its addresses answer."""
    with urllib.request.urlopen(url, timeout=10) as answer:
        assert LINK.encode() in answer.read()
    for path in PATHS:
        with urllib.request.urlopen(urljoin(url, path), timeout=10) as answer:
            assert answer.status == 200
            assert answer.headers["Content-Type"].startswith("image/svg+xml")
            assert answer.read() == icon_bytes()
