"""Which zone holds a card: by the share of its whole outline inside each zone.

A card is placed by its outline (its 63.5 x 88.9 mm rectangle on the table, from its
marker's corners), not by its centre alone: the share of the card's area inside each zone
decides. The thresholds come from the geometry and the measured position errors:

- ``CLEAR_SHARE`` (0.54): a card is *in* a zone when at least this share of it lies there.
  Above one half, the estimated centre is inside the zone (a card is symmetric about its
  centre, so a convex zone holds more than half of it only if it holds its centre): a
  card is never placed in a zone its estimated centre is not in. How far above one half
  is what the card's position may be off: a share moves by the error over the card's
  extent across the line, at worst 88.9 mm (the long side across it), so 0.54 is the
  estimated centre 3.6 mm inside. A card whose centre is 8 mm inside a zone is placed
  there with its position 4 mm off (the issue's p99 was 3-7 mm; ``vision read`` measured
  0.6 mm median, 3.5 mm p99 on the synthetic table), and between two zones 5 mm apart
  (the kitty and a play zone) a card clearly in one needs a reading 8.6 mm off to be
  placed in the other.
- ``HOLD_SHARE`` (0.36): a card the tracker has reported in a zone stays there while at
  least this share of it remains inside and no other zone holds ``CLEAR_SHARE`` of it.
  The band from 0.54 down to 0.36 is 16 mm of the centre (long side across), twice the
  worst p99 reading error measured: two readings of a card lying still, off in opposite
  directions, never take it out of its zone.
- ``TOUCH_SHARE`` (0.05): a card in no zone with at least this share inside some zone
  lies across a zone's line (``on_line``): it is in no zone until it is moved clearly
  into one. Less is a corner brushing a line, within the reading's error.
- ``CENTRE_MM`` (3.6): a card that no other zone touches (under ``TOUCH_SHARE`` of it in
  any other) is in the zone holding its estimated centre this far inside, however much
  of it hangs over the zone's outer edge onto the open table. A card 88.9 mm long laid a
  little long in a 105 mm trick pile, or at an angle in a play zone's corner, has its
  centre well inside and less than half of its area there: the share alone would leave
  it in no zone, though it lies across no line (issue 31: 2.6 % of the clean cards). The
  allowance is the one ``CLEAR_SHARE`` gives a card between two zones (its centre 3.6 mm
  inside), so a card whose centre is truly on the open table is placed only on a reading
  as far off as it takes to place a card in the wrong one of two zones. Between two zones
  the share keeps deciding: the centre rule never applies where another zone holds 5 %.
- ``HOLD_MM`` (-12.4): a card the tracker has reported in such a zone stays there while
  its centre is no further outside it than this, no other zone touching it: the same
  16 mm band as ``HOLD_SHARE``'s, measured at the centre.

The shares are measured by sampling the card's area at ``SAMPLES`` points of a Fibonacci
lattice (well spread for every direction of a line, unlike a square grid, whose rows
line up with an edge) looked up in a millimetre grid of the zones: about 20 microseconds
a card, exact to about 1 % of the area.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.layout import CARD_H, CARD_W, Calibration, Zone

CLEAR_SHARE = 0.54
HOLD_SHARE = 0.36
TOUCH_SHARE = 0.05
CENTRE_MM = (CLEAR_SHARE - 0.5) * CARD_H  # 3.6 mm: CLEAR_SHARE's centre, long side across
HOLD_MM = CENTRE_MM - (CLEAR_SHARE - HOLD_SHARE) * CARD_H  # -12.4 mm: HOLD_SHARE's

# A point within this many mm of a zone's line is on it (``ZoneMap.at``, the centre alone:
# kept for pictures read without the card's outline and for bench/vision.py).
LINE_MM = 5.0

Shares = tuple[tuple[str, float], ...]  # (zone, share of the card's area), largest first
Outline = tuple[tuple[float, float], ...]  # a card's four corners on the table, mm


def _lattice(n_fib: int = 15) -> npt.NDArray[np.float64]:
    """A Fibonacci lattice of F(n) points in the unit square, cell-centred."""
    a, b = 1, 1
    for _ in range(n_fib - 2):
        a, b = b, a + b
    n, step = b, a  # F(n) points, stepping by F(n-1)
    i = np.arange(n, dtype=np.float64)
    return np.column_stack([(i + 0.5) / n, ((i * step) % n + 0.5) / n])


_UNIT = _lattice()  # 610 points
SAMPLES = len(_UNIT)
# The card's sample points in its own frame, mm from its centre (x across, y along it).
_CARD_POINTS = ((_UNIT - 0.5) * np.array([CARD_W, CARD_H])).astype(np.float32).reshape(-1, 1, 2)


def card_outline(centre: tuple[float, float], across: tuple[float, float]) -> Outline:
    """The card's four corners on the table (mm), in order round it, from its centre and
    the direction of its short side (``across``: any length, either sign: a card is the
    same turned half round)."""
    ux, uy = across
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    cx, cy = centre
    w, h = CARD_W / 2, CARD_H / 2
    # u across the card, v = u turned a quarter: along it.
    ax, ay, bx, by = w * ux, w * uy, -h * uy, h * ux
    return (
        (cx - ax - bx, cy - ay - by),
        (cx + ax - bx, cy + ay - by),
        (cx + ax + bx, cy + ay + by),
        (cx - ax + bx, cy - ay + by),
    )


class ZoneMap:
    """Which zone holds a table point or a card, looked up in a millimetre grid of the
    zones (a few microseconds a point, about 20 a card, against a polygon test per zone).

    Where zones overlap the earlier one wins (the calibration lists play zones first).
    For a point, one within ``LINE_MM`` of a zone's line is in no zone, and points near a
    line are asked of the polygons themselves, so away from the lines the answer is
    exactly :meth:`Calibration.zone_at`'s. For a card, :meth:`shares` and :meth:`placed`.
    """

    _NONE, _EDGE = 255, 254

    def __init__(self, calibration: Calibration) -> None:
        self.calibration = calibration
        self.names = [z.name for z in calibration.zones]
        pts = np.array([p for z in calibration.zones for p in z.polygon], np.float64)
        self.x0, self.y0 = np.floor(pts.min(axis=0)) - 2
        w, h = (np.ceil(pts.max(axis=0)) + 2 - (self.x0, self.y0)).astype(int) + 1
        labels = np.full((h, w), self._NONE, np.uint8)
        origin = np.array([self.x0, self.y0])
        shift = 4  # fixed-point bits for sub-millimetre polygon corners
        outlines = [
            np.round((np.array(z.polygon) - origin) * (1 << shift)).astype(np.int32)
            for z in calibration.zones
        ]
        # Earlier zones win where zones overlap (play zones come first): draw them last.
        for n in range(len(outlines) - 1, -1, -1):
            cv2.fillPoly(labels, [outlines[n]], n, shift=shift)
        # Each cell is sampled at its centre: the zone there, for a card's points.
        self.labels = self._centred(calibration, labels)
        grid = labels.copy()
        band = 2 * math.ceil(LINE_MM + 1.5) + 1  # cells: every point near a line, and more
        cv2.polylines(grid, outlines, True, self._EDGE, thickness=band, shift=shift)
        self.grid = grid
        # For the fast path of ``shares``: the labels as lists, which zones are convex,
        # and the boxes of the earlier zones overlapping each (they win there).
        self._label: list[list[int]] = self.labels.tolist()
        self._convex = [_convex(z.contour) for z in calibration.zones]
        boxes = self._boxes = [_box(z) for z in calibration.zones]
        self._winners = [
            [boxes[m] for m in range(n) if _overlap(boxes[m], boxes[n])]
            for n in range(len(calibration.zones))
        ]

    def _centred(
        self, calibration: Calibration, labels: npt.NDArray[np.uint8]
    ) -> npt.NDArray[np.uint8]:
        """The zone at each cell's centre, with a border of no zone all round (a card's
        points beyond the grid are clipped onto it)."""
        h, w = labels.shape
        ys, xs = np.mgrid[0:h, 0:w]
        out = np.full((h + 2, w + 2), self._NONE, np.uint8)
        inner = np.full((h, w), self._NONE, np.uint8)
        cx, cy = xs + self.x0 + 0.5, ys + self.y0 + 0.5
        for n in range(len(calibration.zones) - 1, -1, -1):
            poly = calibration.zones[n].contour.astype(np.float64)
            inside = _inside(poly, cx.ravel(), cy.ravel()).reshape(h, w)
            inner[inside] = n
        out[1:-1, 1:-1] = inner
        return out

    def at(self, x: float, y: float) -> str | None:
        """The zone holding a point clearly (not within ``LINE_MM`` of a line)."""
        i, j = int(y - self.y0), int(x - self.x0)
        h, w = self.grid.shape
        if not (0 <= i < h and 0 <= j < w):
            return None
        v = int(self.grid[i, j])
        if v == self._EDGE:
            if self.calibration.distance_to_line(x, y) < LINE_MM:
                return None
            zone = self.calibration.zone_at(x, y)
            return None if zone is None else zone.name
        return None if v == self._NONE else self.names[v]

    def inside_mm(self, x: float, y: float, zone: str) -> float:
        """How far a table point lies inside a zone, mm from its line (negative: outside)."""
        contour = self.calibration.zones[self.names.index(zone)].contour
        return float(cv2.pointPolygonTest(contour, (float(x), float(y)), True))

    def on_line(self, x: float, y: float) -> bool:
        """Whether a table point is within ``LINE_MM`` of a zone's line."""
        return self.calibration.distance_to_line(x, y) < LINE_MM

    def shares(self, outline: Outline | npt.NDArray[np.float64]) -> Shares:
        """The share of a card's area inside each zone it touches, largest first; the
        card given by its four corners on the table (mm, in order round it)."""
        h, w = self.labels.shape
        corners = outline.tolist() if isinstance(outline, np.ndarray) else outline
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        cx, cy = sum(xs) / 4, sum(ys) / 4
        lo_x, hi_x, lo_y, hi_y = min(xs), max(xs), min(ys), max(ys)
        if not any(
            lo_x < bx1 and bx0 < hi_x and lo_y < by1 and by0 < hi_y
            for bx0, by0, bx1, by1 in self._boxes
        ):
            return ()  # clear of every zone's box
        # A card whose corners and centre all lie in one convex zone, clear of the zones
        # that win over it, is wholly inside it: the usual case, answered from five cells.
        x0, y0 = self.x0 - 1, self.y0 - 1
        cells = {
            self._label[min(h - 1, max(0, int(y - y0)))][min(w - 1, max(0, int(x - x0)))]
            for x, y in [*corners, (cx, cy)]
        }
        if len(cells) == 1:
            n = cells.pop()
            if (
                n != self._NONE
                and self._convex[n]
                and not any(
                    lo_x < bx1 and bx0 < hi_x and lo_y < by1 and by0 < hi_y
                    for bx0, by0, bx1, by1 in self._winners[n]
                )
            ):
                return ((self.names[n], 1.0),)
        (ax, ay), (bx, by) = (
            (corners[1][0] - corners[0][0], corners[1][1] - corners[0][1]),
            (
                corners[3][0] - corners[0][0],
                corners[3][1] - corners[0][1],
            ),
        )
        a, b = math.hypot(ax, ay) or 1.0, math.hypot(bx, by) or 1.0
        # Card points -> label cells; remap's nearest cell of (v - 0.5) is cell floor(v).
        to_cells = np.array(
            [[ax / a, bx / b, cx - x0 - 0.5], [ay / a, by / b, cy - y0 - 0.5]], np.float32
        )
        points = cv2.transform(_CARD_POINTS, to_cells)
        found = cv2.remap(  # type: ignore[call-overload]  # map2 None: map1 holds (x, y)
            self.labels,
            points,
            None,
            cv2.INTER_NEAREST,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=self._NONE,
        )
        counts = cv2.calcHist([found], [0], None, [len(self.names)], [0, len(self.names)])
        share = counts.ravel().tolist()
        order = sorted((n for n in range(len(share)) if share[n]), key=lambda n: -share[n])
        return tuple((self.names[n], share[n] / SAMPLES) for n in order)


def alone(shares: Shares) -> bool:
    """Whether a card touches one zone only: under ``TOUCH_SHARE`` of it in any other."""
    return bool(shares) and all(share < TOUCH_SHARE for _, share in shares[1:])


def placed(shares: Shares, inside: float | None = None) -> str | None:
    """The zone clearly holding a card: ``CLEAR_SHARE`` of it or more; or, for a card no
    other zone touches, the zone holding its estimated centre ``CENTRE_MM`` inside
    (``inside``: how far the centre lies inside the zone of the largest share, mm;
    None: not known, the share alone decides)."""
    if shares and shares[0][1] >= CLEAR_SHARE:
        return shares[0][0]
    if inside is not None and inside >= CENTRE_MM and alone(shares):
        return shares[0][0]
    return None


def across_line(shares: Shares, inside: float | None = None) -> bool:
    """A card in no zone that lies across a zone's line (``TOUCH_SHARE`` of it or more
    in some zone): it is placed once it is moved clearly into one."""
    return placed(shares, inside) is None and bool(shares) and shares[0][1] >= TOUCH_SHARE


def held(shares: Shares, zone: str, inside: float | None = None) -> bool:
    """Whether a card reported in ``zone`` is still there: no other zone clearly holding
    it, and ``HOLD_SHARE`` of it inside, or (no other zone touching it) its centre no
    further than ``HOLD_MM`` outside."""
    clear = placed(shares, inside)
    if clear is not None:
        return clear == zone
    if any(name == zone and share >= HOLD_SHARE for name, share in shares):
        return True
    return inside is not None and inside >= HOLD_MM and alone(shares) and shares[0][0] == zone


def _inside(
    poly: npt.NDArray[np.float64], x: npt.NDArray[np.float64], y: npt.NDArray[np.float64]
) -> npt.NDArray[np.bool_]:
    """Even-odd point in polygon, for many points at once."""
    inside = np.zeros(x.shape, bool)
    n = len(poly)
    for k in range(n):
        (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % n]
        crosses = (y1 > y) != (y2 > y)
        with np.errstate(divide="ignore", invalid="ignore"):
            xi = x1 + (y - y1) * (x2 - x1) / (y2 - y1)
        inside ^= crosses & (x < xi)
    return inside


def _convex(contour: npt.NDArray[np.float32]) -> bool:
    return bool(cv2.isContourConvex(contour.reshape(-1, 1, 2)))


def _box(zone: Zone) -> tuple[float, float, float, float]:
    xs = [p[0] for p in zone.polygon]
    ys = [p[1] for p in zone.polygon]
    return (min(xs), min(ys), max(xs), max(ys))


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]
