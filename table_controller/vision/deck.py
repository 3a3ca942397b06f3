"""Card faces with markers: what `deck render` writes, `deck print` lays out and the
synthetic table draws.

A card is a poker-size face (63.5 x 88.9 mm) a person can read across a table: a large
rank and suit in the top-left corner and again, turned half round, in the bottom-right
one; across the middle a row of nine or ten small pips, one large pip (aces) or the
rank's name on a panel (jacks, queens, kings); red for hearts and diamonds. Suit
symbols are vector shapes and the only text font is the one built into Pillow, so no
font files are needed.

The card's marker is printed twice, in the two other corners: upright at the top right
and turned half round at the bottom left, so that the whole face is the same either way
up and, in each marker's own frame, the card's centre is at the same offset (what the
reader relies on: either marker alone places the card). Each marker sits
``MARKER_MARGIN_MM`` from the card's two nearest edges, inside a white quiet zone that
nothing else is drawn on. The markers are large (``MARKER_MM``, 30 mm: 5 mm cells) so
that a 1280x720 camera over the whole table sees about 4 pixels a cell, which is what
lets the reader run every frame in a few milliseconds (docs/vision.md).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageChops, ImageDraw, ImageFont

from table_controller.cards import Card, Rank, Suit
from table_controller.vision.layout import CARD_H, CARD_W
from table_controller.vision.markers import MarkerFamily

MARKER_MM = 30.0  # the printed marker's side: 5 mm cells, 4 px a cell at 720p (docs/vision.md)
MARKER_MARGIN_MM = 3.0  # from the card's edge to the marker (the quiet zone)
QUIET_MM = 3.0  # white kept around each marker inside the card, beyond its margin
RED = (200, 20, 30)
BLACK = (20, 20, 20)
OUTLINE = (175, 175, 175)  # the card's thin outline (a cutting guide when printed)
OUTLINE_MM = 0.25
CORNER_MM = 3.0  # the card's corner radius
COURT_FILL = (253, 248, 232)
FAMILY_TITLES = {
    "aruco": "ArUco 4x4 markers (family: aruco)",
    "qr-zxing": "QR code markers (family: qr-zxing)",
    "qr-zbar": "QR code markers (family: qr-zbar)",
}

Rgb = npt.NDArray[np.uint8]
Colour = tuple[int, int, int]
Polygon = npt.NDArray[np.float64]  # N x 2

# Where things go on the face, in mm from the card's top-left corner. Everything here is
# drawn in the top half and repeated turned half round, except what is marked upright.
# The markers take the top-right and bottom-left corners; the face lives in the other
# two corners (a large index a player reads across the table) and in the band across
# the middle, all clear of the markers' quiet zones.
_CX, _CY = CARD_W / 2, CARD_H / 2
_FREE_W = CARD_W - MARKER_MARGIN_MM - MARKER_MM - QUIET_MM  # the corner column's width
_BAND = MARKER_MARGIN_MM + MARKER_MM + QUIET_MM  # the middle band starts this far down
_INDEX_X = _FREE_W / 2  # centre of the corner index
_INDEX_TOP = 4.0  # top of the rank
_INDEX_CAP = 10.0  # cap height of the rank
_INDEX_SUIT_Y = 23.0  # centre of the index's suit
_INDEX_SUIT_R = 6.0
_MIDDLE_R = (CARD_H / 2 - _BAND) * 0.92  # the suit in the middle band (its half height)
_COURT_WORD = {Rank.JACK: "JACK", Rank.QUEEN: "QUEEN", Rank.KING: "KING"}


def marker_boxes(px_per_mm: float) -> list[tuple[int, int, int]]:
    """(left, top, side) in card pixels of the two markers: top right, bottom left.

    The bottom-left marker is printed turned half round (see :func:`render_card`)."""
    side = round(MARKER_MM * px_per_mm)
    m = round(MARKER_MARGIN_MM * px_per_mm)
    w, h = round(CARD_W * px_per_mm), round(CARD_H * px_per_mm)
    return [(w - m - side, m, side), (m, h - m - side, side)]


def card_size_px(px_per_mm: float) -> tuple[int, int]:
    """The face's (width, height) in pixels at ``px_per_mm``."""
    return round(CARD_W * px_per_mm), round(CARD_H * px_per_mm)


def suit_colour(suit: Suit) -> Colour:
    return RED if suit in (Suit.H, Suit.D) else BLACK


def rank_label(card: Card) -> str:
    """The rank as printed: 9, 10, J, Q, K or A."""
    return "10" if card.rank is Rank.TEN else card.code[0]


# --- suit symbols: polygons in a unit box (y down, from -1 at the top to 1 at the bottom) ---


def _bezier(
    p0: tuple[float, float], c: tuple[float, float], p1: tuple[float, float], n: int = 12
) -> Polygon:
    t = np.linspace(0.0, 1.0, n)[:, None]
    a, b, d = np.array(p0), np.array(c), np.array(p1)
    return np.asarray((1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * d, np.float64)


def _circle(cx: float, cy: float, r: float, n: int = 48) -> Polygon:
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([cx + r * np.cos(t), cy + r * np.sin(t)])


def _heart(n: int = 96) -> Polygon:
    """The classic heart curve, point down, scaled to fill y in [-1, 1]."""
    t = np.linspace(0.0, 2 * math.pi, n, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    lo, hi = y.min(), y.max()
    scale = 2.0 / (hi - lo)
    return np.column_stack([x * scale * 0.9, (y - lo) * scale - 1.0])


def _stem(top: float, half_top: float, half_foot: float) -> Polygon:
    """A flared stem from ``top`` down to the bottom of the box (y = 1)."""
    left = _bezier((-half_top, top), (-half_top * 0.9, 0.85), (-half_foot, 1.0))
    right = _bezier((half_foot, 1.0), (half_top * 0.9, 0.85), (half_top, top))
    return np.vstack([left, right])


@lru_cache(maxsize=4)
def suit_polygons(suit: Suit) -> tuple[Polygon, ...]:
    """The filled polygons that draw ``suit`` in a unit box: x and y in [-1, 1], y down.
    Drawn in one colour, their union is the symbol."""
    if suit is Suit.H:
        return (_heart(),)
    if suit is Suit.D:
        top, right, bottom, left = (0.0, -1.0), (0.74, 0.0), (0.0, 1.0), (-0.74, 0.0)
        pull = 0.12  # the sides curve in a little, as on printed cards
        sides = [
            _bezier(top, (0.37 - pull, -0.5 + pull), right),
            _bezier(right, (0.37 - pull, 0.5 - pull), bottom),
            _bezier(bottom, (-0.37 + pull, 0.5 - pull), left),
            _bezier(left, (-0.37 + pull, -0.5 + pull), top),
        ]
        return (np.vstack(sides),)
    if suit is Suit.S:
        body = _heart()
        body = np.column_stack([body[:, 0] * 0.78, -body[:, 1] * 0.74 - 0.26])  # point up
        return (body, _stem(0.15, 0.09, 0.42))
    # clubs: three leaves and a stem
    r = 0.37
    return (
        _circle(0.0, -0.62, r),
        _circle(-0.44, 0.02, r),
        _circle(0.44, 0.02, r),
        _circle(0.0, -0.12, 0.24),
        _stem(0.0, 0.09, 0.42),
    )


# --- drawing in millimetres on a (supersampled) image -------------------------------------


@lru_cache(maxsize=64)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=max(1, px))
    except (TypeError, OSError):  # pragma: no cover - Pillow built without FreeType
        return ImageFont.load_default()


_CAP = 0.70  # cap height of Pillow's built-in font, per em


class _Painter:
    """Draws on an image in card millimetres."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)
        self.sx = image.width / CARD_W
        self.sy = image.height / CARD_H

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (x * self.sx, y * self.sy)

    def polygon(self, points: Polygon, colour: Colour) -> None:
        pts = [self.px(float(x), float(y)) for x, y in points]
        self.draw.polygon(pts, fill=colour)

    def suit(self, suit: Suit, cx: float, cy: float, r: float, turned: bool = False) -> None:
        """The suit symbol centred on (cx, cy), ``r`` mm from its centre to its top."""
        sign = -1.0 if turned else 1.0
        for poly in suit_polygons(suit):
            self.polygon(
                np.column_stack([cx + sign * r * poly[:, 0], cy + sign * r * poly[:, 1]]),
                suit_colour(suit),
            )

    def text(
        self, x: float, top: float, text: str, cap_mm: float, colour: Colour, bold: float = 0.05
    ) -> None:
        """``text`` centred on ``x`` with its capitals from ``top`` down ``cap_mm``."""
        size = round(cap_mm / _CAP * self.sy)
        font = _font(size)
        bx, by = self.px(x, top + cap_mm)
        self.draw.text(
            (bx, by),
            text,
            fill=colour,
            font=font,
            anchor="ms",
            stroke_width=max(0, round(bold * size)),
            stroke_fill=colour,
        )

    def rect(
        self,
        box: tuple[float, float, float, float],
        outline: Colour,
        width_mm: float,
        radius_mm: float = 0.0,
        fill: Colour | None = None,
    ) -> None:
        x0, y0 = self.px(box[0], box[1])
        x1, y1 = self.px(box[2], box[3])
        self.draw.rounded_rectangle(
            [x0, y0, x1 - 1, y1 - 1],
            radius=round(radius_mm * self.sx),
            outline=outline,
            fill=fill,
            width=max(1, round(width_mm * self.sx)),
        )

    def line(
        self, x0: float, y0: float, x1: float, y1: float, colour: Colour, width_mm: float
    ) -> None:
        self.draw.line(
            [self.px(x0, y0), self.px(x1, y1)], fill=colour, width=max(1, round(width_mm * self.sx))
        )


def _index(p: _Painter, card: Card) -> None:
    """The top-left corner index: the rank over its suit, large."""
    colour = suit_colour(card.suit)
    label = rank_label(card)
    cap = _INDEX_CAP * (0.78 if len(label) > 1 else 1.0)
    p.text(_INDEX_X, _INDEX_TOP + (_INDEX_CAP - cap), label, cap, colour, bold=0.07)
    p.suit(card.suit, _INDEX_X, _INDEX_SUIT_Y, _INDEX_SUIT_R)


def _middle(p: _Painter, card: Card) -> None:
    """The band across the middle: nine or ten small pips in a row for the spot cards
    (their count is the rank), one large suit for an ace, the rank's name on a panel for
    a court card. Drawn upright; it is symmetric enough to read either way up."""
    colour = suit_colour(card.suit)
    if card.rank is Rank.ACE:
        p.suit(card.suit, _CX, _CY, _MIDDLE_R)
    elif card.rank in (Rank.NINE, Rank.TEN):
        n = 9 if card.rank is Rank.NINE else 10
        r = min(_MIDDLE_R * 0.45, (CARD_W - 8.0) / (2 * n + (n - 1) * 0.5) * 1.0)
        step = (CARD_W - 8.0 - 2 * r) / (n - 1)
        for i in range(n):
            row = -1 if i % 2 == 0 else 1
            p.suit(card.suit, 4.0 + r + i * step, _CY + row * r * 1.1, r)
    else:
        word = _COURT_WORD[card.rank]
        box = (4.0, _BAND + 1.0, CARD_W - 4.0, CARD_H - _BAND - 1.0)
        p.rect(box, colour, 0.4, radius_mm=1.5, fill=COURT_FILL)
        cap = min(5.0, (box[3] - box[1]) * 0.55)
        p.text(_CX, _CY - cap / 2, word, cap, colour, bold=0.05)


def _face_art(card: Card, size: tuple[int, int]) -> Image.Image:
    """The face without its markers, drawn at ``size`` pixels."""
    img = Image.new("RGB", size, (255, 255, 255))
    _middle(_Painter(img), card)
    half = Image.new("RGB", size, (255, 255, 255))  # what is repeated turned half round
    _index(_Painter(half), card)
    # Ink on white: the darker of the layers lays each drawing over the others.
    img = ImageChops.darker(img, half)
    img = ImageChops.darker(img, half.transpose(Image.Transpose.ROTATE_180))
    _Painter(img).rect((0.0, 0.0, CARD_W, CARD_H), OUTLINE, OUTLINE_MM, radius_mm=CORNER_MM)
    return img


def _supersampling(px_per_mm: float) -> int:
    """How many times finer to draw before scaling down: smooth edges at screen sizes."""
    if px_per_mm >= 16:
        return 1
    return 2 if px_per_mm >= 6 else 4


def render_face(card: Card, px_per_mm: float = 12.0) -> Image.Image:
    """The face of ``card`` without its markers (white where they go), as a Pillow image."""
    if not px_per_mm > 0:
        raise ValueError(f"px_per_mm must be positive, not {px_per_mm!r}")
    w, h = card_size_px(px_per_mm)
    k = _supersampling(px_per_mm)
    art = _face_art(card, (w * k, h * k))
    if k > 1:
        art = art.reduce(k)
    return art


def render_card(
    card: Card, family: MarkerFamily, px_per_mm: float = 12.0, marker_id: int | None = None
) -> Rgb:
    """The face of ``card`` as an RGB image (H x W x 3, uint8), ``px_per_mm`` pixels a
    millimetre (12 is about 300 dpi): the face of :func:`render_face` with the card's
    marker at the top right and, turned half round, at the bottom left. ``marker_id``
    prints another marker instead (a card of another deck, for the tests and benches)."""
    img = render_face(card, px_per_mm)
    (tr_left, tr_top, side), (bl_left, bl_top, _) = marker_boxes(px_per_mm)
    number = int(card) if marker_id is None else marker_id
    marker = Image.fromarray(np.ascontiguousarray(family.image(number, side))).convert("RGB")
    img.paste(marker, (tr_left, tr_top))
    img.paste(marker.transpose(Image.Transpose.ROTATE_180), (bl_left, bl_top))
    return np.asarray(img)


def family_title(family: MarkerFamily) -> str:
    """The family as the deck's files name it (here, not in printing.py: the PNGs need no
    reportlab)."""
    return FAMILY_TITLES.get(family.name, f"{family.name} markers")


__all__ = [
    "FAMILY_TITLES",
    "MARKER_MARGIN_MM",
    "MARKER_MM",
    "QUIET_MM",
    "card_size_px",
    "family_title",
    "marker_boxes",
    "rank_label",
    "render_card",
    "render_face",
    "suit_colour",
    "suit_polygons",
]
