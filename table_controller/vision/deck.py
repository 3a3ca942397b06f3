"""Card faces with markers: what `deck render` writes and the synthetic table draws.

A card is a poker-size face (63.5 x 88.9 mm) a person can read: rank and suit in two
corners, a large suit in the middle. Its marker is printed twice, in the other two
corners (top right and bottom left), each inside a white quiet zone, so a card half
covered by a hand still reads.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from table_controller.cards import Card, Suit
from table_controller.vision.layout import CARD_H, CARD_W
from table_controller.vision.markers import MarkerFamily

MARKER_MM = 18.0  # the printed marker's side
MARKER_MARGIN_MM = 3.0  # from the card's edge to the marker (the quiet zone)
RED = (200, 20, 30)
BLACK = (20, 20, 20)

Rgb = npt.NDArray[np.uint8]


def marker_boxes(px_per_mm: float) -> list[tuple[int, int, int]]:
    """(left, top, side) in card pixels of the two markers: top right, bottom left."""
    side = round(MARKER_MM * px_per_mm)
    m = round(MARKER_MARGIN_MM * px_per_mm)
    w, h = round(CARD_W * px_per_mm), round(CARD_H * px_per_mm)
    return [(w - m - side, m, side), (m, h - m - side, side)]


def _suit_shape(draw: ImageDraw.ImageDraw, suit: Suit, cx: float, cy: float, r: float) -> None:
    """A suit symbol of radius ``r`` drawn as vector shapes (no font needed)."""
    colour = RED if suit in (Suit.H, Suit.D) else BLACK
    if suit is Suit.D:
        draw.polygon([(cx, cy - r), (cx + 0.75 * r, cy), (cx, cy + r), (cx - 0.75 * r, cy)], colour)
        return
    if suit is Suit.H:
        q = r * 0.52
        draw.ellipse([cx - 2 * q, cy - r * 0.75, cx, cy - r * 0.75 + 2 * q], colour)
        draw.ellipse([cx, cy - r * 0.75, cx + 2 * q, cy - r * 0.75 + 2 * q], colour)
        draw.polygon(
            [(cx - 2 * q + 1, cy - r * 0.2), (cx + 2 * q - 1, cy - r * 0.2), (cx, cy + r)], colour
        )
        return
    if suit is Suit.S:
        q = r * 0.5
        draw.polygon([(cx, cy - r), (cx + 2 * q, cy + 0.1 * r), (cx - 2 * q, cy + 0.1 * r)], colour)
        draw.ellipse([cx - 2 * q, cy - 0.35 * r, cx, cy - 0.35 * r + 2 * q], colour)
        draw.ellipse([cx, cy - 0.35 * r, cx + 2 * q, cy - 0.35 * r + 2 * q], colour)
    else:  # clubs
        q = r * 0.42
        for ox, oy in ((0.0, -0.5 * r), (-0.5 * r, 0.15 * r), (0.5 * r, 0.15 * r)):
            draw.ellipse([cx + ox - q, cy + oy - q, cx + ox + q, cy + oy + q], colour)
    stem = r * 0.16
    draw.polygon(
        [(cx - stem, cy), (cx + stem, cy), (cx + 2.2 * stem, cy + r), (cx - 2.2 * stem, cy + r)],
        colour,
    )


def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=px)
    except TypeError:  # pragma: no cover - Pillow without FreeType
        return ImageFont.load_default()


def _index(draw: ImageDraw.ImageDraw, card: Card, x: float, y: float, s: float) -> None:
    """The corner index: rank above a small suit, ``s`` pixels per mm."""
    colour = RED if card.suit in (Suit.H, Suit.D) else BLACK
    rank = "10" if card.code[0] == "T" else card.code[0]
    draw.text((x, y), rank, fill=colour, font=_font(round(8 * s)), anchor="mt")
    _suit_shape(draw, card.suit, x, y + 13 * s, 3.2 * s)


def render_card(card: Card, family: MarkerFamily, px_per_mm: float = 12.0) -> Rgb:
    """The face of ``card`` as an RGB image, ``px_per_mm`` pixels a millimetre
    (12 is about 300 dpi)."""
    s = px_per_mm
    w, h = round(CARD_W * s), round(CARD_H * s)
    img = Image.new("RGB", (w, h), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    radius = round(3 * s)
    draw.rounded_rectangle(
        [0, 0, w - 1, h - 1], radius, outline=(150, 150, 150), width=max(1, round(0.3 * s))
    )
    _index(draw, card, 7 * s, 4 * s, s)
    # The same index turned half round, bottom right, as on a real card.
    corner = Image.new("RGB", (round(16 * s), round(22 * s)), (255, 255, 255))
    _index(ImageDraw.Draw(corner), card, 8 * s, 2 * s, s)
    img.paste(corner.rotate(180), (w - round(16 * s), h - round(22 * s)))
    _suit_shape(draw, card.suit, w / 2, h / 2, 13 * s)
    rank = "10" if card.code[0] == "T" else card.code[0]
    colour = RED if card.suit in (Suit.H, Suit.D) else BLACK
    draw.text((w / 2, h / 2 + 16 * s), rank, fill=colour, font=_font(round(9 * s)), anchor="mt")
    for left, top, side in marker_boxes(s):
        marker = Image.fromarray(family.image(int(card), side)).convert("RGB")
        img.paste(marker, (left, top))
    return np.asarray(img)


def card_size_px(px_per_mm: float) -> tuple[int, int]:
    return round(CARD_W * px_per_mm), round(CARD_H * px_per_mm)


__all__ = ["MARKER_MM", "card_size_px", "marker_boxes", "render_card"]
