"""``table-controller deck``: make a marked deck.

    deck render   --out DIR [--family F] [--dpi 300]   one PNG per card (JH.png ...)
    deck print    --out FILE.pdf [--paper letter|a4] [--family F]   the deck, 9 to a page
    deck stickers --out FILE.pdf --layout NAME [--family F]   stickers for an existing deck

Every failure says what went wrong and what to do, and exits non-zero: 2 for a choice
that does not exist (family, paper, layout, dpi), 1 when the output cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from table_controller.commands import help_of
from table_controller.paper import default_paper, paper_help

if TYPE_CHECKING:
    from table_controller.vision.markers import MarkerFamily

# What the options offer, named here so that building the parser imports neither OpenCV
# nor reportlab (the tests check these against markers.FAMILIES and printing.LABEL_SHEETS).
FAMILY_NAMES = ("aruco", "qr-zxing", "qr-zbar")
DEFAULT_FAMILY = "aruco"
LAYOUTS = {
    "avery-5163": 'Avery 5163 / 8163, 2" x 4", 10 per US Letter sheet',
    "avery-l7163": "Avery L7163, 99.1 x 38.1 mm, 14 per A4 sheet",
}
RENDER_DPI = (50, 1200)
PRINT_DPI = (150, 1200)


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _family(name: str) -> MarkerFamily | None:
    from table_controller.vision.markers import family

    try:
        return family(name.strip().lower())
    except ValueError:
        _error(
            f"unknown marker family {name!r}; families: {', '.join(FAMILY_NAMES)} "
            f"(use the one your table is calibrated for; {DEFAULT_FAMILY} if unsure)"
        )
        return None


def cmd_render(args: argparse.Namespace, out: TextIO) -> int:
    from PIL import Image

    from table_controller.cards import DECK
    from table_controller.vision.deck import family_title, render_card

    fam = _family(args.family)
    if fam is None:
        return 2
    lo, hi = RENDER_DPI
    if not lo <= args.dpi <= hi:
        _error(f"--dpi {args.dpi} is out of range: use {lo} to {hi} (300 is the default)")
        return 2
    folder = Path(args.out)
    if folder.exists() and not folder.is_dir():
        _error(f"{folder} is a file, not a folder: give --out a folder for the 24 PNGs")
        return 1
    written = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for card in DECK:
            path = folder / f"{card.code}.png"
            img = Image.fromarray(render_card(card, fam, args.dpi / 25.4))
            img.save(path, dpi=(args.dpi, args.dpi))
            written.append(path)
    except OSError as exc:
        _error(
            f"cannot write the cards to {folder} ({exc.strerror or exc}): "
            "choose a folder you can write to"
        )
        return 1
    out.write(
        f"wrote {len(written)} cards to {folder}/ ({written[0].name} ... {written[-1].name}), "
        f"{args.dpi} dpi, {family_title(fam)}\n"
    )
    return 0


def cmd_print(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.printing import PrintError, deck_pdf, paper_size

    fam = _family(args.family)
    if fam is None:
        return 2
    args.paper = args.paper or default_paper()
    try:
        paper_size(args.paper)
    except PrintError as exc:
        _error(str(exc))
        return 2
    lo, hi = PRINT_DPI
    if not lo <= args.dpi <= hi:
        _error(f"--dpi {args.dpi} is out of range: use {lo} to {hi} (600 is the default)")
        return 2
    try:
        result = deck_pdf(args.out, fam, args.paper.strip().lower(), args.dpi, progress=_page_done)
    except PrintError as exc:
        _error(str(exc))
        return 1
    out.write(f"wrote {result.path}: {result.summary}\n")
    return 0


def _page_done(done: int, pages: int) -> None:
    print(f"page {done} of {pages} drawn", file=sys.stderr, flush=True)


def cmd_stickers(args: argparse.Namespace, out: TextIO) -> int:
    from table_controller.vision.printing import PrintError, label_sheet, sticker_pdf

    fam = _family(args.family)
    if fam is None:
        return 2
    if args.layout is None:
        _error(
            "say which label sheet you print on with --layout NAME: "
            + "; ".join(f"{name} ({title})" for name, title in LAYOUTS.items())
        )
        return 2
    try:
        sheet = label_sheet(args.layout)
    except PrintError as exc:
        _error(f"{exc} (see docs/deck.md for their sizes)")
        return 2
    try:
        result = sticker_pdf(args.out, fam, sheet)
    except PrintError as exc:
        _error(str(exc))
        return 1
    out.write(f"wrote {result.path}: {result.summary}\n")
    return 0


def add_commands(subparsers: Any) -> None:
    """Add the ``deck`` command group to a ``table-controller`` parser's subparsers (what
    ``ArgumentParser.add_subparsers`` returned)."""
    deck = subparsers.add_parser(
        "deck",
        help=help_of("deck"),
        description="Make a marked deck the table can read: print one on card stock, "
        "or print marker stickers for a deck you already have.",
    )
    sub = deck.add_subparsers(dest="deck_command", required=True, metavar="COMMAND")
    families = ", ".join(FAMILY_NAMES)

    def family_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--family",
            default=DEFAULT_FAMILY,
            metavar="NAME",
            help=f"marker family: {families} (default {DEFAULT_FAMILY})",
        )

    render = sub.add_parser("render", help="write one PNG per card (JH.png ...)")
    render.add_argument("--out", required=True, metavar="DIR", help="folder for the PNGs")
    family_option(render)
    render.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    render.set_defaults(func=cmd_render)

    pr = sub.add_parser("print", help="a PDF of the whole deck, 9 cards to a page")
    pr.add_argument("--out", required=True, metavar="FILE.pdf", help="the PDF to write")
    pr.add_argument("--paper", metavar="PAPER", help=paper_help())
    family_option(pr)
    pr.add_argument(
        "--dpi", type=int, default=600, help="resolution of the card faces (default 600)"
    )
    pr.set_defaults(func=cmd_print)

    st = sub.add_parser("stickers", help="a PDF of marker stickers for an existing deck")
    st.add_argument("--out", required=True, metavar="FILE.pdf", help="the PDF to write")
    st.add_argument(
        "--layout",
        metavar="NAME",
        help="label sheet: " + "; ".join(f"{name} ({title})" for name, title in LAYOUTS.items()),
    )
    family_option(st)
    st.set_defaults(func=cmd_stickers)


__all__ = ["add_commands", "cmd_print", "cmd_render", "cmd_stickers"]
