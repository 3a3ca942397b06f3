"""Print-ready PDFs for a marked deck: the whole deck on card stock, or marker stickers
for an existing deck on standard label sheets.

Everything is laid out in millimetres at true size. Markers are drawn as vector squares
(one per black module), so they are sharp at any printer resolution; card faces are
raster images at ``dpi`` (600 by default) under them. Each page says which marker family
it carries and to print at 100 % / actual size, and has a 50 mm bar to check that with
a ruler; the PDF also asks print dialogs not to scale it.

Label sheets are data (:data:`LABEL_SHEETS`): a new one is one more entry. A sticker
reproduces the printed card's geometry: its marker sits ``MARKER_MARGIN_MM`` from the two
die-cut edges that go into the card's corner, so a sticker stuck flush in a corner puts
the marker exactly where a printed card has it (what the reader expects).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from reportlab import rl_config  # type: ignore[import-untyped]
from reportlab.lib.utils import ImageReader  # type: ignore[import-untyped]
from reportlab.pdfbase.pdfmetrics import stringWidth  # type: ignore[import-untyped]
from reportlab.pdfgen.canvas import Canvas  # type: ignore[import-untyped]

from table_controller.cards import DECK, Card
from table_controller.errors import TableControllerError
from table_controller.vision.deck import (
    MARKER_MARGIN_MM,
    MARKER_MM,
    family_title,
    rank_label,
    render_face,
    suit_colour,
    suit_polygons,
)
from table_controller.vision.layout import CARD_H, CARD_W
from table_controller.vision.markers import FAMILIES, MarkerFamily
from table_controller.vision.markers import family as family_named

PT = 72 / 25.4  # PDF points per millimetre
PAPERS: dict[str, tuple[float, float]] = {"letter": (215.9, 279.4), "a4": (210.0, 297.0)}
CARDS_ACROSS, CARDS_DOWN = 3, 3
CARDS_PER_PAGE = CARDS_ACROSS * CARDS_DOWN
STICKERS_PER_CARD = 2
QUIET_BOX_MM = MARKER_MM + 2 * MARKER_MARGIN_MM  # the marker with its quiet zone
SCALE_BAR_MM = 50.0

Modules = npt.NDArray[np.bool_]


class PrintError(TableControllerError, ValueError):
    """A deck or sticker sheet that cannot be made, and what to do about it."""


@dataclass(frozen=True)
class LabelSheet:
    """A sheet of die-cut labels, in millimetres from the sheet's top-left corner."""

    name: str  # what --layout takes
    title: str
    paper: str  # a key of PAPERS
    label_w: float
    label_h: float
    columns: int
    rows: int
    left: float  # sheet edge to the first column's left edge
    top: float  # sheet edge to the first row's top edge
    pitch_x: float  # left edge to the next label's left edge
    pitch_y: float
    stickers_per_label: int = 1  # 2: the label is cut in half, one sticker each side
    also: tuple[str, ...] = ()  # other products with the same layout

    @property
    def per_sheet(self) -> int:
        return self.columns * self.rows

    @property
    def sticker_size(self) -> tuple[float, float]:
        """One sticker's (width, height) in mm."""
        return (self.label_w / self.stickers_per_label, self.label_h)

    def labels(self) -> Iterator[tuple[float, float]]:
        """Each label's (left, top) on the sheet, row by row."""
        for row in range(self.rows):
            for col in range(self.columns):
                yield (self.left + col * self.pitch_x, self.top + row * self.pitch_y)

    def problems(self) -> list[str]:
        """Why this layout cannot carry the stickers (empty when it can)."""
        out = []
        pw, ph = PAPERS[self.paper]
        right = self.left + (self.columns - 1) * self.pitch_x + self.label_w
        bottom = self.top + (self.rows - 1) * self.pitch_y + self.label_h
        if right > pw + 1e-6 or bottom > ph + 1e-6:
            out.append(f"the labels run off the {self.paper} page")
        if self.pitch_x < self.label_w or self.pitch_y < self.label_h:
            out.append("the pitch is smaller than a label")
        w, h = self.sticker_size
        if min(w, h) < QUIET_BOX_MM or max(w, h) - QUIET_BOX_MM < 5.0:
            out.append(
                f"a sticker ({w:.1f} x {h:.1f} mm) has no room for a {MARKER_MM:g} mm marker, "
                "its quiet zone and the card's code"
            )
        return out


LABEL_SHEETS: dict[str, LabelSheet] = {
    s.name: s
    for s in (
        LabelSheet(
            name="avery-5163",
            title='Avery 5163 / 8163 shipping labels, 2" x 4", 10 per US Letter sheet',
            paper="letter",
            label_w=101.6,  # 4 in
            label_h=50.8,  # 2 in
            columns=2,
            rows=5,
            left=3.96875,  # 5/32 in
            top=12.7,  # 1/2 in
            pitch_x=106.3625,  # 4-3/16 in
            pitch_y=50.8,  # 2 in
            stickers_per_label=2,
            also=("5263", "5523", "5963", "8463", "15163", "18163"),
        ),
        LabelSheet(
            name="avery-l7163",
            title="Avery L7163 address labels, 99.1 x 38.1 mm, 14 per A4 sheet",
            paper="a4",
            label_w=99.1,
            label_h=38.1,
            columns=2,
            rows=7,
            left=4.65,
            top=15.15,
            pitch_x=101.6,
            pitch_y=38.1,
            stickers_per_label=2,
            also=("J8163",),
        ),
    )
}


@dataclass(frozen=True)
class Written:
    """A PDF that was written: where, how many pages, and what to do with it."""

    path: Path
    pages: int
    summary: str


def label_sheet(name: str) -> LabelSheet:
    """A label layout by name (see :data:`LABEL_SHEETS`)."""
    try:
        return LABEL_SHEETS[name.strip().lower()]
    except KeyError:
        raise PrintError(
            f"unknown label layout {name!r}; layouts: " + ", ".join(LABEL_SHEETS)
        ) from None


def paper_size(paper: str) -> tuple[float, float]:
    """(width, height) in mm of ``letter`` or ``a4``."""
    try:
        return PAPERS[paper.strip().lower()]
    except KeyError:
        raise PrintError(f"unknown paper {paper!r}; papers: " + ", ".join(PAPERS)) from None


def _family(family: MarkerFamily | str) -> MarkerFamily:
    if not isinstance(family, str):
        return family
    try:
        return family_named(family)
    except ValueError as exc:
        raise PrintError(str(exc)) from None


def marker_modules(family: MarkerFamily, marker: int) -> Modules:
    """The marker as a grid of modules, True for black, quiet zone excluded."""
    cells = family.cells
    img = np.asarray(family.image(marker, cells))
    if img.shape != (cells, cells) or not np.isin(img, (0, 255)).all():
        raise PrintError(  # pragma: no cover - every family in FAMILIES draws module grids
            f"the {family.name} family did not draw marker {marker} as a {cells}x{cells} grid"
        )
    return np.asarray(img < 128)


# --- drawing in millimetres, y down from a local frame's top-left corner ----------------


class _Frame:
    """A local frame on a PDF page: mm from a rectangle's top-left corner, y down; the
    rectangle may be turned half round (what is drawn in it is then upside down)."""

    def __init__(
        self,
        c: Canvas,
        page_h: float,
        left: float,
        top: float,
        w: float,
        h: float,
        turned: bool = False,
    ) -> None:
        self.c = c
        self.args = (page_h, left, top, w, h, turned)

    def __enter__(self) -> _Frame:
        page_h, left, top, w, h, turned = self.args
        self.c.saveState()
        self.c.translate(left * PT, (page_h - top) * PT)
        if turned:
            self.c.translate(w * PT, -h * PT)
            self.c.rotate(180)
        return self

    def __exit__(self, *exc: object) -> None:
        self.c.restoreState()

    def marker(self, modules: Modules, left: float, top: float, side: float) -> None:
        """The marker's black modules as one vector path (no seams between modules)."""
        n = modules.shape[0]
        cell = side / n
        path = self.c.beginPath()
        for row in range(n):
            col = 0
            while col < n:
                if not modules[row, col]:
                    col += 1
                    continue
                start = col
                while col < n and modules[row, col]:
                    col += 1
                x, y = left + start * cell, top + (row + 1) * cell
                path.rect(x * PT, -y * PT, (col - start) * cell * PT, cell * PT)
        self.c.setFillColorRGB(0, 0, 0)
        self.c.drawPath(path, stroke=0, fill=1)

    def suit(self, card: Card, cx: float, cy: float, r: float) -> None:
        self.c.setFillColorRGB(*(v / 255 for v in suit_colour(card.suit)))
        for poly in suit_polygons(card.suit):
            path = self.c.beginPath()
            pts = [((cx + r * float(ux)) * PT, -(cy + r * float(uy)) * PT) for ux, uy in poly]
            path.moveTo(*pts[0])
            for x, y in pts[1:]:
                path.lineTo(x, y)
            path.close()
            self.c.drawPath(path, stroke=0, fill=1)

    def text(self, x: float, top: float, text: str, cap: float, rgb: tuple[int, ...]) -> None:
        """``text`` centred on ``x``, its capitals from ``top`` down ``cap`` mm."""
        size = cap / 0.718 * PT  # Helvetica-Bold's cap height is 0.718 em
        self.c.setFillColorRGB(*(v / 255 for v in rgb))
        self.c.setFont("Helvetica-Bold", size)
        self.c.drawCentredString(x * PT, -(top + cap) * PT, text)


def _text_width(text: str, cap: float) -> float:
    return float(stringWidth(text, "Helvetica-Bold", cap / 0.718 * PT)) / PT


_HEADER_PT = 6.5  # the small print's font size
_LINE_MM = 2.8  # and its line spacing


def _header(c: Canvas, paper: tuple[float, float], lines: list[str], room: float) -> None:
    """Small print for people along the top margin (or up the left one when the top is
    too narrow), the last line ending with a 50 mm bar to check the print's scale."""
    ph = paper[1]
    n = len(lines)
    c.setFillColorRGB(0, 0, 0)
    c.setStrokeColorRGB(0, 0, 0)
    c.setFont("Helvetica", _HEADER_PT)
    c.saveState()
    if room >= _LINE_MM * n + 2.5:  # across the top margin
        c.translate(0, ph * PT)
        x0, first = 12.0, (room - _LINE_MM * n) / 2 + 2.2
    else:  # up the left margin, reading from the bottom of the page
        c.rotate(90)
        x0, first = 12.0, 4.5 - _LINE_MM * (n - 1)
    for i, line in enumerate(lines):
        c.drawString(x0 * PT, -(first + _LINE_MM * i) * PT, line)
    bar_x = x0 + c.stringWidth(lines[-1], "Helvetica", _HEADER_PT) / PT + 2.0
    bar_y = first + _LINE_MM * (n - 1) - 0.8
    c.setLineWidth(0.6)
    c.line(bar_x * PT, -bar_y * PT, (bar_x + SCALE_BAR_MM) * PT, -bar_y * PT)
    for x in (bar_x, bar_x + SCALE_BAR_MM):
        c.line(x * PT, -(bar_y - 1.1) * PT, x * PT, -(bar_y + 1.1) * PT)
    c.restoreState()


@contextmanager
def _binary_streams() -> Iterator[None]:
    """Write the PDF's streams as binary, not ASCII85 text: a quarter smaller, and much
    quicker for the card images (reportlab's encoder is pure Python)."""
    before = rl_config.useA85
    rl_config.useA85 = 0
    try:
        yield
    finally:
        rl_config.useA85 = before


def _canvas(tmp: Path, paper: tuple[float, float], title: str) -> Canvas:
    c = Canvas(str(tmp), pagesize=(paper[0] * PT, paper[1] * PT), invariant=1, pageCompression=1)
    c.setTitle(title)
    c.setAuthor("table-controller")
    c.setSubject("Print at 100% / actual size")
    c.setViewerPreference("PrintScaling", "None")  # print dialogs: no "fit to page"
    return c


def _save(c: Canvas, tmp: Path, path: Path, pages: int) -> None:
    """Finish the PDF, check it has the pages it should, and put it in place."""
    try:
        c.save()
        found = pdf_page_count(tmp)
        if found != pages:
            raise PrintError(  # pragma: no cover - a bug, not a user's mistake
                f"the PDF came out with {found} pages instead of {pages}: please report this"
            )
        tmp.replace(path)
    except OSError as exc:
        raise PrintError(_cannot_write(path, exc)) from None
    finally:
        tmp.unlink(missing_ok=True)


def _cannot_write(path: Path, exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return f"cannot write {path} ({reason}): choose a file in a folder you can write to"


def _prepare(path: str | os.PathLike[str], suffix: str = ".pdf") -> tuple[Path, Path]:
    """The output path and a temporary file beside it; the folder is created if need be."""
    p = Path(path)
    if p.is_dir():
        raise PrintError(f"{p} is a folder: give a file name, such as {p / ('deck' + suffix)}")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PrintError(_cannot_write(p, exc)) from None
    return p, p.with_name(f".{p.name}.tmp")


def pdf_page_count(path: str | os.PathLike[str]) -> int:
    """How many pages a PDF written here has (its page objects, counted in the file)."""
    data = Path(path).read_bytes()
    return len(re.findall(rb"/Type\s*/Page(?![A-Za-z])", data))


# --- the deck --------------------------------------------------------------------------


def deck_layout(paper: str) -> list[tuple[int, Card, float, float]]:
    """Where each card goes: (page, card, left, top) in mm, nine to a page."""
    pw, ph = paper_size(paper)
    x0 = (pw - CARDS_ACROSS * CARD_W) / 2
    y0 = (ph - CARDS_DOWN * CARD_H) / 2
    out = []
    for i, card in enumerate(DECK):
        page, slot = divmod(i, CARDS_PER_PAGE)
        row, col = divmod(slot, CARDS_ACROSS)
        out.append((page, card, x0 + col * CARD_W, y0 + row * CARD_H))
    return out


def _cut_marks(c: Canvas, paper: tuple[float, float], x0: float, y0: float, rows: int) -> None:
    """Thin marks in the margins on every cutting line of ``rows`` rows of cards, clear
    of the cards."""
    pw, ph = paper
    x1, y1 = x0 + CARDS_ACROSS * CARD_W, y0 + rows * CARD_H
    gap, length = 1.0, 4.0
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(0.25)

    def seg(ax: float, ay: float, bx: float, by: float) -> None:
        c.line(ax * PT, (ph - ay) * PT, bx * PT, (ph - by) * PT)

    for i in range(CARDS_ACROSS + 1):
        x = x0 + i * CARD_W
        seg(x, y0 - gap, x, max(0.5, y0 - gap - length))
        seg(x, y1 + gap, x, min(ph - 0.5, y1 + gap + length))
    for j in range(rows + 1):
        y = y0 + j * CARD_H
        seg(x0 - gap, y, max(0.5, x0 - gap - length), y)
        seg(x1 + gap, y, min(pw - 0.5, x1 + gap + length), y)


def deck_pdf(
    path: str | os.PathLike[str],
    family: MarkerFamily | str = "aruco",
    paper: str = "letter",
    dpi: int = 600,
    progress: Callable[[int, int], None] | None = None,
) -> Written:
    """All 24 cards at true size (63.5 x 88.9 mm), nine to a page with cut marks: faces
    at ``dpi``, markers as vectors. Print on card stock at 100 % / actual size.
    ``progress(done, pages)`` is told after each page (a page takes seconds at 600 dpi)."""
    fam = _family(family)
    size = paper_size(paper)
    if not 150 <= dpi <= 1200:
        raise PrintError(f"dpi {dpi} is out of range: use 150 to 1200 (600 is the default)")
    out, tmp = _prepare(path)
    slots = deck_layout(paper)
    pages = slots[-1][0] + 1
    pw, ph = size
    x0, y0 = (pw - CARDS_ACROSS * CARD_W) / 2, (ph - CARDS_DOWN * CARD_H) / 2
    title = f"Euchre deck, {family_title(fam)}"
    with _binary_streams():
        c = _canvas(tmp, size, title)
        side_pos = (CARD_W - MARKER_MARGIN_MM - MARKER_MM, MARKER_MARGIN_MM)
        for page in range(pages):
            on_page = [s for s in slots if s[0] == page]
            for _, card, left, top in on_page:
                face = render_face(card, dpi / 25.4)
                c.drawImage(
                    ImageReader(face),
                    left * PT,
                    (ph - top - CARD_H) * PT,
                    CARD_W * PT,
                    CARD_H * PT,
                )
                modules = marker_modules(fam, int(card))
                for turned in (False, True):  # top right, then bottom left turned round
                    with _Frame(c, ph, left, top, CARD_W, CARD_H, turned) as f:
                        f.marker(modules, *side_pos, MARKER_MM)
            _cut_marks(c, size, x0, y0, math.ceil(len(on_page) / CARDS_ACROSS))
            _header(
                c,
                size,
                [
                    f"{title} - page {page + 1} of {pages} - print at 100% / actual size "
                    "(not 'fit to page') on card stock, cut on the marks. This bar is 50 mm:"
                ],
                y0 - 5.5,  # above the cut marks
            )
            c.showPage()
            if progress is not None:
                progress(page + 1, pages)
        _save(c, tmp, out, pages)
    return Written(
        out,
        pages,
        f"{pages} pages, {paper}, {family_title(fam)}: print at 100% / actual size on card "
        "stock, then cut on the marks",
    )


# --- stickers for an existing deck -------------------------------------------------------


def sticker_slots(sheet: LabelSheet) -> list[tuple[int, Card, float, float, bool]]:
    """Each sticker: (page, card, left, top, turned) in mm. A card's two stickers are
    side by side; a sticker is drawn turned half round when its marker should sit at the
    label's left edge, so markers are always against die-cut edges, never the cut."""
    w = sheet.sticker_size[0]
    labels = list(sheet.labels())
    out = []
    for n in range(len(DECK) * STICKERS_PER_CARD):
        card = DECK[n // STICKERS_PER_CARD]
        label, piece = divmod(n, sheet.stickers_per_label)
        page, slot = divmod(label, sheet.per_sheet)
        left, top = labels[slot]
        turned = sheet.stickers_per_label == 2 and piece == 0
        out.append((page, card, left + piece * w, top, turned))
    return out


def _sticker(f: _Frame, card: Card, modules: Modules, w: float, h: float) -> None:
    """One sticker, upright: the marker in its top-right corner, the card's code in the
    room left (beside the marker or below it, whichever is roomier)."""
    f.marker(modules, w - MARKER_MARGIN_MM - MARKER_MM, MARKER_MARGIN_MM, MARKER_MM)
    colour = suit_colour(card.suit)
    label = rank_label(card)
    pad = 1.2
    side_w, below_h = w - QUIET_BOX_MM, h - QUIET_BOX_MM
    if below_h >= side_w:  # a band under the marker, the full width: rank and suit in a row
        band = below_h - pad
        cap = min(6.0, band * 0.62)
        r = cap * 0.55
        text_w = _text_width(label, cap)
        gap = cap * 0.35
        x = (w - (text_w + gap + 2 * r)) / 2
        cy = QUIET_BOX_MM + band / 2
        f.text(x + text_w / 2, cy - cap / 2, label, cap, colour)
        f.suit(card, x + text_w + gap + r, cy, r)
    else:  # a strip beside the marker: rank over suit
        strip = side_w - pad
        cap = min(6.0, strip * 0.5, h * 0.22)
        while _text_width(label, cap) > strip - 0.6 and cap > 1.5:
            cap *= 0.92
        r = cap * 0.6
        total = cap + cap * 0.45 + 2 * r
        top = (h - total) / 2
        cx = pad + strip / 2
        f.text(cx, top, label, cap, colour)
        f.suit(card, cx, top + cap + cap * 0.45 + r, r)


def sticker_pdf(
    path: str | os.PathLike[str], family: MarkerFamily | str, layout: str | LabelSheet
) -> Written:
    """Marker stickers to mark an existing deck: two per card (one for its top-right
    corner, one for its bottom-left), each the marker and the card's code, laid out on
    the label sheet ``layout`` (a name in :data:`LABEL_SHEETS`)."""
    fam = _family(family)
    sheet = layout if isinstance(layout, LabelSheet) else label_sheet(layout)
    problems = sheet.problems()
    if problems:
        raise PrintError(f"label layout {sheet.name} cannot be used: " + "; ".join(problems))
    out, tmp = _prepare(path)
    size = PAPERS[sheet.paper]
    ph = size[1]
    slots = sticker_slots(sheet)
    pages = slots[-1][0] + 1
    w, h = sheet.sticker_size
    title = f"Marker stickers for a Euchre deck, {family_title(fam)}"
    with _binary_streams():
        c = _canvas(tmp, size, title)
        how = (
            "Cut each label in half on the dashed line."
            if sheet.stickers_per_label == 2
            else "Each card takes two stickers."
        )
        modules = {card: marker_modules(fam, int(card)) for card in DECK}
        for page in range(pages):
            for _, card, left, top, turned in (s for s in slots if s[0] == page):
                with _Frame(c, ph, left, top, w, h, turned) as f:
                    _sticker(f, card, modules[card], w, h)
            if sheet.stickers_per_label == 2:
                c.setStrokeColorRGB(0.6, 0.6, 0.6)
                c.setLineWidth(0.4)
                c.setDash(2, 2)
                for left, top in list(sheet.labels())[: math.ceil(len(slots) / 2)]:
                    x = left + sheet.label_w / 2
                    c.line(x * PT, (ph - top - 1.5) * PT, x * PT, (ph - top - h + 1.5) * PT)
                c.setDash()
            _header(
                c,
                size,
                [
                    f"{title} - page {page + 1} of {pages} - for {sheet.title}",
                    "Print at 100% / actual size (not 'fit to page'); test on plain paper "
                    f"held against a label sheet first. {how}",
                    "Stick each with its marker tucked into a card corner: one top right, "
                    "one (upside down) bottom left. This bar is 50 mm:",
                ],
                sheet.top,
            )
            c.showPage()
        _save(c, tmp, out, pages)
    sheets = "sheet" if pages == 1 else "sheets"
    return Written(
        out,
        pages,
        f"{pages} {sheets} of {sheet.title}, {family_title(fam)}: print at 100% / actual size",
    )


__all__ = [
    "FAMILIES",
    "LABEL_SHEETS",
    "PAPERS",
    "LabelSheet",
    "PrintError",
    "Written",
    "deck_layout",
    "deck_pdf",
    "label_sheet",
    "marker_modules",
    "paper_size",
    "pdf_page_count",
    "sticker_pdf",
    "sticker_slots",
]
