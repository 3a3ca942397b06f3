"""Shared fixtures: one way to start Debian's headless Chromium for the page tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Per module: Playwright's sync API must not stay open while other modules run
    their own asyncio loops."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"the page tests need Debian's chromium at {CHROMIUM}, which is missing: run "
            "`make test` (it installs it), or `apt-get install chromium`"
        )
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield chromium
        chromium.close()
