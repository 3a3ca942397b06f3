"""Marked decks: card faces that read back, the printable deck and sticker PDFs, and the
``deck`` commands (render, print, stickers) with their errors."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from table_controller import paper
from table_controller.cards import DECK, Card, Suit
from table_controller.vision.cli import deck_cli
from table_controller.vision.deck import (
    MARKER_MARGIN_MM,
    MARKER_MM,
    card_size_px,
    marker_boxes,
    render_card,
    render_face,
    suit_polygons,
)
from table_controller.vision.detect import card_center_px
from table_controller.vision.layout import CARD_H, CARD_W
from table_controller.vision.markers import FAMILIES, MarkerFamily, Sighting, family
from table_controller.vision.printing import (
    LABEL_SHEETS,
    PAPERS,
    LabelSheet,
    PrintError,
    deck_layout,
    deck_pdf,
    pdf_page_count,
    sticker_pdf,
    sticker_slots,
)

Gray = npt.NDArray[np.uint8]
FAMILY_NAMES = list(FAMILIES)
TABLE_GREY = 70  # what surrounds a card on the table
SKIN = (224, 172, 125)
SKIN_GREY = round(0.299 * SKIN[0] + 0.587 * SKIN[1] + 0.114 * SKIN[2])


def get_family(name: str) -> MarkerFamily:
    if name == "qr-zbar":
        try:
            from pyzbar import pyzbar  # type: ignore[import-untyped]  # noqa: F401
        except ImportError:  # pragma: no cover - depends on the machine
            pytest.skip("pyzbar needs the system's libzbar0 (`make test` installs it)")
    return family(name)


def grey(rgb: npt.NDArray[np.uint8]) -> Gray:
    return np.asarray(cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2GRAY), np.uint8)


@cache
def card_grey(name: str, code: str, ppm: float) -> Gray:
    """A rendered card in grey (what the readers see), kept for the tests that share it."""
    img = grey(render_card(Card.parse(code), family(name), ppm))
    img.setflags(write=False)
    return img


def on_table(gray: Gray, pad: int = 20) -> Gray:
    """The card with the table around it."""
    return np.pad(gray, pad, constant_values=TABLE_GREY)


def side_px(s: Sighting) -> float:
    c = s.corners
    return float(np.mean([np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4)]))


def corner_error(
    name: str, corners: npt.NDArray[np.float32], want: npt.NDArray[np.float64]
) -> float:
    """How far read corners are from where they should be (px). pyzbar reports corners in
    image order, not the symbol's, so for it only the positions are compared."""
    if name == "qr-zbar":
        got = np.asarray(corners, np.float64)
        return float(max(np.linalg.norm(got - w, axis=1).min() for w in want))
    return float(np.abs(corners - want).max())


def box_corners(left: float, top: float, side: float, turned: bool) -> npt.NDArray[np.float64]:
    """A marker's corners clockwise from its own top-left (the box's bottom-right when it
    is printed turned half round)."""
    box = np.array(
        [[left, top], [left + side, top], [left + side, top + side], [left, top + side]],
        np.float64,
    )
    return np.roll(box, 2, axis=0) if turned else box


# --- the faces ---------------------------------------------------------------------------


@pytest.mark.parametrize("ppm", [12.0, 3.0], ids=["300dpi", "low-res"])
@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_every_card_reads_as_itself_from_both_markers(name: str, ppm: float) -> None:
    fam = get_family(name)
    pad = 20
    boxes = marker_boxes(ppm)
    for card in DECK:
        found = fam.read(on_table(card_grey(name, card.code, ppm), pad))
        assert sorted(s.marker for s in found) == [int(card), int(card)], (name, card.code)
        # One at the top right, upright; one at the bottom left, turned half round.
        for (left, top, side), turned in zip(boxes, (False, True), strict=True):
            want = box_corners(left + pad, top + pad, side, turned)
            best = min(corner_error(name, s.corners, want) for s in found)
            assert best <= max(2.0, 0.08 * side), (name, card.code, turned, best)


@pytest.mark.parametrize("name", FAMILY_NAMES)
@pytest.mark.parametrize("covered", [0, 1], ids=["top-right-covered", "bottom-left-covered"])
def test_a_card_with_one_marker_covered_still_reads(name: str, covered: int) -> None:
    fam = get_family(name)
    ppm, pad = 6.0, 20
    left, top, side = marker_boxes(ppm)[covered]
    m = round(MARKER_MARGIN_MM * ppm)
    for card in DECK:
        img = card_grey(name, card.code, ppm).copy()
        # A thumb over the corner: the marker, its quiet zone and a bit more.
        img[max(0, top - m) : top + side + m, max(0, left - m) : left + side + m] = SKIN_GREY
        found = fam.read(on_table(img, pad))
        assert [s.marker for s in found] == [int(card)], (name, card.code)
        other = 1 - covered
        o_left, o_top, o_side = marker_boxes(ppm)[other]
        want = box_corners(o_left + pad, o_top + pad, o_side, other == 1)
        assert corner_error(name, found[0].corners, want) <= max(2.0, 0.08 * side)
        if name == "qr-zbar":
            continue  # its corners carry no orientation (see corner_error)
        # Either marker alone places the card: the reader's contract with the faces.
        w, h = card_size_px(ppm)
        cx, cy = card_center_px(found[0].corners)
        assert abs(cx - (pad + w / 2)) <= ppm and abs(cy - (pad + h / 2)) <= ppm, card.code


def test_marker_boxes_are_where_other_code_expects_them() -> None:
    assert marker_boxes(12.0) == [(366, 36, 360), (36, 671, 360)]
    assert card_size_px(12.0) == (762, 1067)
    for ppm in (3.0, 6.0, 11.8, 23.6):
        w, h = card_size_px(ppm)
        (tl, tt, side), (bl, bt, side2) = marker_boxes(ppm)
        assert side == side2 == round(MARKER_MM * ppm)
        assert tt == bl == round(MARKER_MARGIN_MM * ppm)
        # The two boxes are each other turned half round about the card's centre.
        assert (w - tl - side, h - tt - side) == (bl, bt)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_markers_sit_in_a_white_quiet_zone(name: str) -> None:
    fam = family(name)
    ppm = 12.0
    cell = MARKER_MM / fam.cells  # mm
    ring = round(min(cell, MARKER_MARGIN_MM) * ppm)
    edge = round(1.5 * ppm)  # the card's thin outline and its rounded corners live here
    w, h = card_size_px(ppm)
    for card in DECK:
        gray = card_grey(name, card.code, ppm)
        for left, top, side in marker_boxes(ppm):
            zone = np.zeros((h, w), bool)
            zone[
                max(0, top - ring) : top + side + ring, max(0, left - ring) : left + side + ring
            ] = True
            zone[top : top + side, left : left + side] = False
            inner = zone.copy()
            inner[:edge, :] = inner[-edge:, :] = False
            inner[:, :edge] = inner[:, -edge:] = False
            assert gray[inner].min() >= 250, (name, card.code)
            assert gray[zone].min() >= 150, (name, card.code)


def test_faces_read_like_real_cards() -> None:
    ppm = 12.0
    w, h = card_size_px(ppm)
    iw, ih = round(13 * ppm), round(21 * ppm)  # the corner index and a little more
    for card in DECK:
        face = np.asarray(render_face(card, ppm))
        assert face.shape == (h, w, 3) and face.dtype == np.uint8
        # The bottom-right index is the top-left one turned half round, outline and all.
        turned = face[::-1, ::-1]
        assert np.array_equal(face[:ih, :iw], turned[:ih, :iw]), card.code
        # ... and there is ink in it (rank and suit), not just white.
        assert (face[:ih, :iw].min(axis=2) < 100).sum() > 0.05 * iw * ih
        # The card's outline runs unbroken along the bottom edge, under that index.
        assert (face[h - 2 :, w - iw : w - round(4 * ppm)].min(axis=(0, 2)) < 220).all(), card.code
        red = (face[..., 0] > 150) & (face[..., 1] < 90) & (face[..., 2] < 90)
        if card.suit in (Suit.H, Suit.D):
            assert red.sum() > 0.01 * w * h, card.code
        else:
            assert not red.any(), card.code


def test_card_images_are_rgb_uint8_at_the_asked_size() -> None:
    for ppm in (3.0, 12.0):
        img = render_card(DECK[0], family("aruco"), ppm)
        assert img.shape == (*card_size_px(ppm)[::-1], 3) and img.dtype == np.uint8
    with pytest.raises(ValueError, match="positive"):
        render_face(DECK[0], 0)


def test_suit_symbols_fill_their_unit_box() -> None:
    for suit in Suit:
        pts = np.vstack(suit_polygons(suit))
        assert pts[:, 0].min() >= -1.0 and pts[:, 0].max() <= 1.0, suit
        assert pts[:, 1].min() >= -1.0 - 1e-9 and pts[:, 1].max() <= 1.0 + 1e-9, suit
        assert pts[:, 1].max() - pts[:, 1].min() > 1.9, suit


# --- the PDFs ----------------------------------------------------------------------------

RASTER_DPI = 150


def open_pdf(path: Path):  # type: ignore[no-untyped-def]
    pdfium = pytest.importorskip(
        "pypdfium2", reason="pypdfium2 (a test dependency) rasterises the PDFs"
    )
    return pdfium.PdfDocument(str(path))


def raster_pages(path: Path, dpi: int = RASTER_DPI) -> Iterator[tuple[Gray, tuple[float, float]]]:
    """Each page as a grey image at ``dpi``, with the page's size in mm."""
    pdf = open_pdf(path)
    try:
        for page in pdf:
            w_pt, h_pt = page.get_size()
            gray = page.render(scale=dpi / 72, grayscale=True).to_numpy()
            yield (
                np.ascontiguousarray(gray[..., 0] if gray.ndim == 3 else gray),
                (
                    w_pt * 25.4 / 72,
                    h_pt * 25.4 / 72,
                ),
            )
    finally:
        pdf.close()


def pdf_text(path: Path) -> str:
    pdf = open_pdf(path)
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in pdf)
    finally:
        pdf.close()


def read_page(
    fam: MarkerFamily, gray: Gray, want: list[tuple[int, int, float, float, bool]], ppm: float
) -> list[Sighting]:
    """The markers on a rasterised page. pyzbar misses QR codes packed tightly on a sheet,
    so for it each marker is read on its own, as it is once on its card."""
    if fam.name != "qr-zbar":
        return fam.read(gray)
    found = []
    for _, _, left, top, _ in want:
        x0, y0 = round((left - 5) * ppm), round((top - 5) * ppm)
        size = round((MARKER_MM + 10) * ppm)
        tile = np.ascontiguousarray(gray[y0 : y0 + size, x0 : x0 + size])
        found += [
            Sighting(s.marker, s.corners + np.array([x0, y0], np.float32), s.confidence)
            for s in fam.read(tile)
            if np.all(s.corners.mean(axis=0) > 0.25 * size)  # not a neighbour's edge
            and np.all(s.corners.mean(axis=0) < 0.75 * size)
        ]
    return found


def check_markers(
    path: Path,
    fam: MarkerFamily,
    expected: list[tuple[int, int, float, float, bool]],  # page, marker, left mm, top mm, turned
    paper_mm: tuple[float, float],
) -> None:
    """Every expected marker is on its page, where it should be, the right way up, and
    ``MARKER_MM`` across; nothing else is."""
    ppm = RASTER_DPI / 25.4
    pages = list(raster_pages(path))
    assert len(pages) == 1 + max(e[0] for e in expected)
    found_total = 0
    for number, (gray, size) in enumerate(pages):
        assert size == pytest.approx(paper_mm, abs=0.2)
        want = [e for e in expected if e[0] == number]
        found = read_page(fam, gray, want, ppm)
        assert sorted(s.marker for s in found) == sorted(e[1] for e in want), number
        for _, marker, left, top, turned in want:
            corners = box_corners(left * ppm, top * ppm, MARKER_MM * ppm, turned)
            errors = [
                corner_error(fam.name, s.corners, corners) for s in found if s.marker == marker
            ]
            # under 0.6 mm (QR readers place corners to about half a module)
            tolerance = 0.6 if fam.name == "aruco" else max(0.6, 0.7 * MARKER_MM / fam.cells)
            assert min(errors) <= tolerance * ppm, (number, marker, min(errors) / ppm)
        for s in found:
            assert side_px(s) / ppm == pytest.approx(MARKER_MM, rel=0.03)  # true size
        found_total += len(found)
    assert found_total == len(expected) == 2 * len(DECK)


def deck_expected(paper: str) -> list[tuple[int, int, float, float, bool]]:
    out = []
    for page, card, left, top in deck_layout(paper):
        out.append(
            (
                page,
                int(card),
                left + CARD_W - MARKER_MARGIN_MM - MARKER_MM,
                top + MARKER_MARGIN_MM,
                False,
            )
        )
        out.append(
            (
                page,
                int(card),
                left + MARKER_MARGIN_MM,
                top + CARD_H - MARKER_MARGIN_MM - MARKER_MM,
                True,
            )
        )
    return out


def sticker_expected(sheet: LabelSheet) -> list[tuple[int, int, float, float, bool]]:
    w, h = sheet.sticker_size
    out = []
    for page, card, left, top, turned in sticker_slots(sheet):
        if turned:  # the marker against the label's left edge, at the bottom
            out.append(
                (
                    page,
                    int(card),
                    left + MARKER_MARGIN_MM,
                    top + h - MARKER_MARGIN_MM - MARKER_MM,
                    True,
                )
            )
        else:
            out.append(
                (
                    page,
                    int(card),
                    left + w - MARKER_MARGIN_MM - MARKER_MM,
                    top + MARKER_MARGIN_MM,
                    False,
                )
            )
    return out


def test_deck_pdf_a4_with_qr_markers(tmp_path: Path) -> None:
    fam = get_family("qr-zxing")
    path = tmp_path / "deck.pdf"
    result = deck_pdf(path, fam, "a4", dpi=200)
    assert result.path == path and result.pages == 3 == pdf_page_count(path)
    check_markers(path, fam, deck_expected("a4"), PAPERS["a4"])
    text = pdf_text(path)
    assert "print at 100% / actual size" in text and "qr-zxing" in text
    assert b"/PrintScaling /None" in path.read_bytes()
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("layout", list(LABEL_SHEETS))
def test_sticker_sheets_carry_every_card_twice_at_true_size(tmp_path: Path, layout: str) -> None:
    sheet = LABEL_SHEETS[layout]
    assert sheet.problems() == []
    fam = family("aruco")
    path = tmp_path / f"{layout}.pdf"
    result = sticker_pdf(path, fam, layout)
    assert (
        result.pages
        == pdf_page_count(path)
        == -(-len(DECK) * 2 // (sheet.per_sheet * sheet.stickers_per_label))
    )
    check_markers(path, fam, sticker_expected(sheet), PAPERS[sheet.paper])
    # Every sticker lies on its label, clear of the cut between a label's two halves.
    w = sheet.sticker_size[0]
    labels = list(sheet.labels())
    for _, _, left, top, _ in sticker_slots(sheet):
        assert any(
            lx - 1e-6 <= left and left + w <= lx + sheet.label_w + 1e-6 and ly == top
            for lx, ly in labels
        )
    text = pdf_text(path).lower()
    assert "print at 100% / actual size" in text and "aruco" in text


def test_qr_stickers_read_too(tmp_path: Path) -> None:
    fam = get_family("qr-zbar")
    sheet = LABEL_SHEETS["avery-5163"]
    path = tmp_path / "qr.pdf"
    sticker_pdf(path, fam, sheet)
    check_markers(path, fam, sticker_expected(sheet), PAPERS[sheet.paper])


def test_a_label_sheet_too_small_for_a_marker_is_refused(tmp_path: Path) -> None:
    tiny = LabelSheet("tiny", "mini labels", "a4", 38.1, 21.2, 5, 13, 4.7, 10.7, 38.1, 21.2)
    assert tiny.problems()
    with pytest.raises(PrintError, match="no room for a 30 mm marker"):
        sticker_pdf(tmp_path / "x.pdf", "aruco", tiny)
    assert not (tmp_path / "x.pdf").exists()


# --- the commands ------------------------------------------------------------------------


def run(*argv: str) -> tuple[int, str]:
    ap = argparse.ArgumentParser(prog="table-controller")
    sub = ap.add_subparsers(dest="command", required=True)
    deck_cli.add_commands(sub)
    args = ap.parse_args(list(argv))
    out = io.StringIO()
    code: int = args.func(args, out)
    return code, out.getvalue()


def test_the_commands_offer_what_the_library_has() -> None:
    assert set(deck_cli.FAMILY_NAMES) == set(FAMILIES)
    assert set(deck_cli.LAYOUTS) == set(LABEL_SHEETS)
    assert set(paper.PAPERS) == set(PAPERS)


def test_deck_render_writes_a_png_per_card_that_reads_back(tmp_path: Path) -> None:
    folder = tmp_path / "new" / "cards"
    code, out = run("deck", "render", "--out", str(folder), "--dpi", "150")
    assert code == 0
    assert "24 cards" in out and str(folder) in out
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{c.code}.png" for c in DECK)
    fam = family("aruco")
    for card in DECK:
        with Image.open(folder / f"{card.code}.png") as img:
            assert img.mode == "RGB" and img.size == card_size_px(150 / 25.4)
            assert img.info["dpi"] == pytest.approx((150, 150), abs=0.1)
            rgb = np.asarray(img)
        assert [s.marker for s in fam.read(on_table(grey(rgb)))] == [int(card)] * 2, card.code


def test_deck_print_writes_the_deck_at_true_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deck.pdf"
    monkeypatch.setenv("TABLE_CONTROLLER_PAPER", "letter")  # whatever this machine's is
    code, out = run("deck", "print", "--out", str(path))  # letter, 600 dpi, aruco
    assert "page 3 of 3 drawn" in capsys.readouterr().err  # progress while it draws
    assert code == 0
    assert str(path) in out and "3 pages" in out and "100%" in out
    check_markers(path, family("aruco"), deck_expected("letter"), PAPERS["letter"])
    assert "ArUco" in pdf_text(path)


def test_deck_stickers_command(tmp_path: Path) -> None:
    path = tmp_path / "stickers.pdf"
    code, out = run("deck", "stickers", "--out", str(path), "--layout", "avery-l7163")
    assert code == 0
    assert str(path) in out and "2 sheets" in out and "L7163" in out
    assert pdf_page_count(path) == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["deck", "render", "--family", "barcode"],
        ["deck", "print", "--family", "barcode"],
        ["deck", "stickers", "--layout", "avery-5163", "--family", "barcode"],
    ],
)
def test_an_unknown_family_lists_the_families(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run(*argv, "--out", str(tmp_path / "x"))
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown marker family 'barcode'" in err and "aruco, qr-zxing, qr-zbar" in err
    assert not (tmp_path / "x").exists()


def test_an_unknown_layout_or_paper_lists_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _ = run("deck", "stickers", "--out", str(tmp_path / "s.pdf"), "--layout", "avery-9999")
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown label layout 'avery-9999'" in err
    assert "avery-5163, avery-l7163" in err
    code, _ = run("deck", "print", "--out", str(tmp_path / "d.pdf"), "--paper", "legal")
    assert code == 2
    assert "unknown paper 'legal'; papers: letter, a4" in capsys.readouterr().err
    for argv in (["render", "--dpi", "5"], ["print", "--dpi", "5000"]):
        code, _ = run("deck", *argv, "--out", str(tmp_path / "o"))
        assert code == 2
        assert "out of range" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["deck", "render", "--dpi", "60"],
        ["deck", "print", "--dpi", "150"],
        ["deck", "stickers", "--layout", "avery-5163"],
    ],
)
def test_an_unwritable_output_says_so(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    code, out = run(*argv, "--out", str(blocker / "inside" / "out.pdf"))
    assert code == 1 and out == ""
    err = capsys.readouterr().err
    assert "cannot write" in err and "a-file" in err and "choose" in err


def test_render_into_a_file_or_print_onto_a_folder_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "cards.png"
    blocker.write_text("x")
    assert run("deck", "render", "--out", str(blocker))[0] == 1
    assert "is a file, not a folder" in capsys.readouterr().err
    assert run("deck", "print", "--out", str(tmp_path), "--dpi", "150")[0] == 1
    assert "is a folder: give a file name" in capsys.readouterr().err


def test_one_paper_default_for_every_printable(tmp_path: Path) -> None:
    from table_controller.paper import default_paper, paper_of_locale

    none = tmp_path / "no-papersize"
    assert default_paper({}, none) == "letter"  # no locale: Euchre's home
    assert default_paper({"LANG": "de_DE.UTF-8"}, none) == "a4"
    assert default_paper({"LANG": "en_CA.UTF-8"}, none) == "letter"
    assert default_paper({"LANG": "en_US.UTF-8", "LC_PAPER": "en_GB.UTF-8"}, none) == "a4"
    assert default_paper({"LC_ALL": "en_US.UTF-8", "LC_PAPER": "en_GB.UTF-8"}, none) == "letter"
    assert paper_of_locale("C.UTF-8") is None and paper_of_locale("fr_FR@euro") == "a4"
    papersize = tmp_path / "papersize"
    papersize.write_text("# written by paperconfig\na4\n")
    assert default_paper({"LANG": "en_US.UTF-8"}, papersize) == "a4"
    assert default_paper({"TABLE_CONTROLLER_PAPER": "Letter"}, papersize) == "letter"
    # the deck, the mat and the board all take it when --paper is not given
    from table_controller.cli import parser

    ap = parser()
    for argv in (
        ["deck", "print", "--out", "d.pdf"],
        ["calibrate", "mat", "--out", "m.pdf"],
        ["calibrate", "board", "--out", "b.pdf"],
    ):
        assert ap.parse_args(argv).paper is None  # resolved by default_paper() when run


def test_stickers_without_a_layout_list_the_layouts(capsys: pytest.CaptureFixture[str]) -> None:
    assert run("deck", "stickers", "--out", "x.pdf")[0] == 2
    err = capsys.readouterr().err
    assert all(name in err for name in LABEL_SHEETS)
