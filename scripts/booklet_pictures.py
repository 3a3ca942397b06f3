"""Make docs/images/booklet-cover.png and booklet-page.png (docs/director.md, "Exporting
results"): the event of tests/export_event.py (two real simulated tables, one reneging)
exported on A4, its booklet's cover and the first score sheet with a renege, at 108 dpi.

    PYTHONPATH=. .venv/bin/python scripts/booklet_pictures.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import pypdfium2 as pdfium  # noqa: E402
from export_event import EVENT, build_event  # noqa: E402

from table_controller.cli import main  # noqa: E402


def run() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        build_event(work / "director.sqlite").close()
        argv = ["director", "export", "--database", str(work / "director.sqlite")]
        if main([*argv, "--out", str(work / "out"), "--event", EVENT]) != 0:
            sys.exit("the export failed (above)")
        pdf = pdfium.PdfDocument(work / "out" / "booklet.pdf")
        texts = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
        sheet = next(i for i, t in enumerate(texts) if "Renege:" in t)
        for page, name in ((0, "booklet-cover"), (sheet, "booklet-page")):
            picture = pdf[page].render(scale=1.5).to_pil()
            picture.save(ROOT / "docs" / "images" / f"{name}.png", optimize=True)
            print(f"docs/images/{name}.png: page {page + 1}, {picture.size[0]}x{picture.size[1]}")
        pdf.close()


if __name__ == "__main__":
    run()
