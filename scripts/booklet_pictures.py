"""Make the pictures of docs/director.md's "Exporting results" and "From start to final
papers": the event of tests/export_event.py (two real simulated tables, one reneging).
The dashboard's Games and Standings once every round is in (dashboard-results.png), the
director confirms them final there (dashboard-final.png), then the export on A4: its
booklet's cover, its standings and the first score sheet with a renege, at 108 dpi.

    PYTHONPATH=. .venv/bin/python scripts/booklet_pictures.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pypdfium2 as pdfium  # noqa: E402
from conftest import ARGS, CHROMIUM  # noqa: E402
from export_event import EVENT, build_event  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402
from test_director_web import PASSWORD, Served  # noqa: E402

from table_controller.cli import main  # noqa: E402
from table_controller.director.store import DirectorStore  # noqa: E402
from table_controller.director.web import DirectorPage  # noqa: E402


def dashboard(database: Path) -> None:
    """The dashboard over the event's store: its results, then confirmed final."""
    store = DirectorStore(database)
    store.accounts.add_login("ann", PASSWORD)
    served = Served(DirectorPage(store, title=EVENT))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(served.url)
            page.fill("#login-name", "ann")
            page.fill("#login-password", PASSWORD)
            page.click("#login-button")
            page.wait_for_selector("#results-final-button", state="visible")
            shots = ROOT / "docs" / "images"
            page.locator("#standings-section").screenshot(path=shots / "dashboard-results.png")
            page.on("dialog", lambda d: d.accept())
            page.click("#results-final-button")
            page.wait_for_selector("#results-final-button", state="hidden")
            page.locator("#event-standings-heading").scroll_into_view_if_needed()
            box = page.locator("#event-section")
            box.screenshot(path=shots / "dashboard-final.png")
            print("docs/images/dashboard-results.png, dashboard-final.png")
            browser.close()
    finally:
        served.close()
        store.close()


def run() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        build_event(work / "director.sqlite").close()
        dashboard(work / "director.sqlite")
        argv = ["director", "export", "--database", str(work / "director.sqlite")]
        if main([*argv, "--out", str(work / "out"), "--event", EVENT]) != 0:
            sys.exit("the export failed (above)")
        pdf = pdfium.PdfDocument(work / "out" / "booklet.pdf")
        texts = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        sheet = next(i for i, t in enumerate(texts) if "Renege:" in t)
        for page, name in ((0, "booklet-cover"), (1, "booklet-standings"), (sheet, "booklet-page")):
            picture = pdf[page].render(scale=1.5).to_pil()
            picture.save(ROOT / "docs" / "images" / f"{name}.png", optimize=True)
            print(f"docs/images/{name}.png: page {page + 1}, {picture.size[0]}x{picture.size[1]}")
        pdf.close()


if __name__ == "__main__":
    run()
