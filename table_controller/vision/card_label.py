"""A card's face drawn on a camera picture: its rank and its suit's symbol ("10♦").

OpenCV's fonts hold ASCII only, so the live view labelled cards with their codes ("TD",
"AS"), which a director setting up a table does not read. The suit is drawn as a shape
instead (a diamond, a heart, a spade, a club, red or white on a dark box), so the label
needs no font file on the machine.
"""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.cards import Card, Suit

RED = (60, 60, 235)  # BGR
WHITE = (245, 245, 245)
_BOX = (20, 20, 20)
_UNIT = 16  # a glyph's design size in px, scaled by ``size``


def _heart(cx: float, cy: float, r: float) -> npt.NDArray[np.int32]:
    t = np.linspace(0, 2 * np.pi, 60)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    pts = np.stack([cx + x * r / 17, cy + y * r / 17], axis=1)
    return np.round(pts).astype(np.int32)


def draw_suit(img: npt.NDArray[np.uint8], suit: Suit, centre: tuple[int, int], r: float) -> None:
    """The suit's symbol, ``r`` px from its centre to its widest point."""
    cx, cy = centre
    colour = RED if suit in (Suit.D, Suit.H) else WHITE
    if suit is Suit.D:
        pts = np.array([[cx, cy - r], [cx + 0.75 * r, cy], [cx, cy + r], [cx - 0.75 * r, cy]])
        cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)
    elif suit is Suit.H:
        cv2.fillPoly(img, [_heart(cx, cy, r)], colour, cv2.LINE_AA)
    elif suit is Suit.S:
        flipped = _heart(cx, cy - 0.15 * r, 0.9 * r)
        flipped[:, 1] = 2 * (cy - 0.15 * r) - flipped[:, 1]
        cv2.fillPoly(img, [flipped], colour, cv2.LINE_AA)
        stem = np.array([[cx, cy + 0.2 * r], [cx + 0.35 * r, cy + r], [cx - 0.35 * r, cy + r]])
        cv2.fillPoly(img, [np.round(stem).astype(np.int32)], colour, cv2.LINE_AA)
    else:
        lobe = max(1, round(0.38 * r))
        for dx, dy in ((0.0, -0.45), (-0.45, 0.1), (0.45, 0.1)):
            cv2.circle(img, (round(cx + dx * r), round(cy + dy * r)), lobe, colour, -1, cv2.LINE_AA)
        stem = np.array([[cx, cy], [cx + 0.35 * r, cy + r], [cx - 0.35 * r, cy + r]])
        cv2.fillPoly(img, [np.round(stem).astype(np.int32)], colour, cv2.LINE_AA)


def draw_card_label(
    img: npt.NDArray[np.uint8], card: Card, at: tuple[int, int], size: float = 1.0
) -> None:
    """ "10♦" on a dark box whose lower left corner is ``at``, drawn in place."""
    rank = "10" if card.code[0] == "T" else card.code[0]
    font, scale, thick = cv2.FONT_HERSHEY_SIMPLEX, 0.7 * size, max(1, round(2 * size))
    (tw, th), base = cv2.getTextSize(rank, font, scale, thick)
    r = 0.5 * _UNIT * size
    x, y = at
    width = tw + round(2.6 * r) + 6
    cv2.rectangle(img, (x - 3, y - th - 6), (x + width, y + base), _BOX, -1)
    colour = RED if card.suit in (Suit.D, Suit.H) else WHITE
    cv2.putText(img, rank, (x, y), font, scale, colour, thick, cv2.LINE_AA)
    draw_suit(img, card.suit, (x + tw + round(1.3 * r) + 3, y - th // 2), r)


__all__ = ["draw_card_label", "draw_suit"]
