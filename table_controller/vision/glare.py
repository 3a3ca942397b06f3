"""Glare on the mat: the lamp's reflection, found on the empty-mat picture at set-up.

A lamp mirrored in a shiny mat (or laminated cards) makes a near-white blob: a marker
under it loses its black and cannot be read. Where the dark felt is lifted to 185 of 255
in every channel, the glare adds about 70 % of white to whatever lies there, and a
marker's black ink and white paper under it differ by about 65 grey levels, too few
once the picture is a little soft and noisy: over 10,005 cards laid in random venues
(bench/vision.py section 5), the 10 never reported lay under glare that a threshold of
220 left unflagged (too faint, or too small above 220) and 185 flags. `calibrate`
looks for such blobs over the zones (the felt is dark, so anything near saturation there
is light, not print: the corner sheets lie outside the zones, the zone lines are printed
in a muted colour, and the cards seen are masked out), names where each lies in the
table's words and says what to change.

A warning, unless a play zone or the kitty is washed out over :data:`UNREADABLE_SHARE`
of its area: a card is read from either of its two markers (at opposite corners), so a
small spot costs a card only when both lie under it. A play zone is 160 x 170 mm; once
a quarter of it is white (a spot about 90 mm across, the span of a card's two markers),
a card laid on the spot has both markers under it, and that seat's cards go unread
where players naturally lay them. Then calibrate refuses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.calibration import image_to_table, table_to_image
from table_controller.vision.layout import (
    CARD_H,
    CARD_W,
    Calibration,
    Zone,
    fiducial_positions,
)
from table_controller.vision.markers import Sighting

Image = npt.NDArray[np.uint8]

GLARE_LEVEL = 185  # every colour channel at least this: a marker's black is washed out
ABOVE_MAT = 60  # ... and this far above the mat's usual level (a pale mat is not glare)
SHEET_MM = 100.0  # the corner sheets' paper square, centred on each fiducial
MIN_SPOT_MM2 = 300.0  # under 20 mm across: less than a marker, not worth a word
UNREADABLE_SHARE = 0.25  # a play zone or the kitty this washed out: refuse (see above)
SEAT_WORDS = {"N": "North", "E": "East", "S": "South", "W": "West"}
ADVICE = (
    "move or turn the lamp so its reflection falls off the mat (a light above and a "
    "little to the side, diffused), use a matte mat (felt, not vinyl or laminate), or "
    "put a polarising filter on the camera's lens"
)


def zone_words(zone: Zone) -> str:
    """'the North play zone', 'the kitty', "East's trick pile"."""
    if zone.seat is None:
        return f"the {zone.name}"
    seat = SEAT_WORDS.get(zone.seat.name, zone.seat.name)
    if zone.kind == "play":
        return f"the {seat} play zone"
    if zone.kind == "tricks":
        return f"{seat}'s trick pile"
    return f"{seat}'s {zone.kind}"


@dataclass(frozen=True)
class GlareSpot:
    """One washed-out blob over the zones."""

    centre_mm: tuple[float, float]
    area_mm2: float
    zones: tuple[Zone, ...]  # the zones it lies over, most covered first
    shares: tuple[float, ...]  # the share of each of those zones it washes out
    nearest: Zone | None = None  # the zone nearest its centre (when over none)

    @property
    def where(self) -> str:
        """'over the North play zone', 'between the kitty and the South play zone'."""
        if not self.zones:
            near = f" near {zone_words(self.nearest)}" if self.nearest is not None else ""
            return f"on the mat between the zones{near}"
        names = [
            zone_words(z) for z, share in zip(self.zones, self.shares, strict=True) if share >= 0.01
        ]
        if not names:  # it touches a zone only at its edge
            return f"beside {zone_words(self.zones[0])}"
        if len(names) == 1:
            return f"over {names[0]}"
        return "over " + ", ".join(names[:-1]) + f" and {names[-1]}"

    @property
    def unreadable(self) -> Zone | None:
        """A play zone (or the kitty) washed out past :data:`UNREADABLE_SHARE`."""
        for zone, share in zip(self.zones, self.shares, strict=True):
            if zone.kind in ("play", "kitty") and share >= UNREADABLE_SHARE:
                return zone
        return None

    def describe(self) -> str:
        across = 2 * math.sqrt(self.area_mm2 / math.pi)
        text = f"glare {self.where}: a washed-out spot about {across:.0f} mm across"
        if self.zones and self.shares[0] >= 0.01:
            text += f" ({100 * self.shares[0]:.0f}% of {zone_words(self.zones[0])})"
        return text


def _polygon_px(
    calibration: Calibration, polygon: npt.ArrayLike, step: float = 10.0
) -> npt.NDArray[np.int32]:
    pts = np.asarray(polygon, np.float64)
    dense: list[npt.NDArray[np.float64]] = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        n = max(1, math.ceil(float(np.linalg.norm(b - a)) / step))
        dense.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.round(table_to_image(calibration, np.array(dense))).astype(np.int32)


def find_glare(
    frame: Image, calibration: Calibration, cards: list[Sighting] | None = None
) -> list[GlareSpot]:
    """The glare spots over the zones of ``frame`` (BGR), largest first. ``cards``: card
    markers seen, whose cards are masked out (a white card face is not glare)."""
    lowest = frame if frame.ndim == 2 else np.asarray(frame[..., :3].min(axis=2), np.uint8)
    h, w = lowest.shape[:2]
    zones_mask = np.zeros((h, w), np.uint8)
    zone_masks = []
    for zone in calibration.zones:
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [_polygon_px(calibration, zone.polygon)], 1)
        zone_masks.append((zone, m.astype(bool), max(1, int(m.sum()))))
        zones_mask |= m
    # The zones' area: their hull on the table (a spot may lie between zones), less the
    # corner sheets' white paper.
    hull = cv2.convexHull(np.concatenate([z.contour for z in calibration.zones]))
    area_u8 = np.zeros((h, w), np.uint8)
    cv2.fillPoly(area_u8, [_polygon_px(calibration, hull.reshape(-1, 2))], 1)
    for fx, fy in fiducial_positions().values():
        r = SHEET_MM / 2 + 5
        square = [(fx - r, fy - r), (fx + r, fy - r), (fx + r, fy + r), (fx - r, fy + r)]
        cv2.fillPoly(area_u8, [_polygon_px(calibration, square)], 0)
    area = area_u8 > 0
    usual = float(np.median(lowest[zones_mask > 0])) if zones_mask.any() else 0.0
    bright = (lowest >= max(GLARE_LEVEL, usual + ABOVE_MAT)) & area
    for s in cards or []:
        from table_controller.vision.detect import card_center_px

        cx, cy = card_center_px(s.corners.astype(np.float32))
        side = float(np.linalg.norm(s.corners[1] - s.corners[0]))
        radius = side * math.hypot(CARD_W, CARD_H) / 30.0 * 0.6  # 30 mm markers
        cv2.circle(bright.view(np.uint8), (round(cx), round(cy)), round(radius), 0, -1)
    bright_u8 = cv2.morphologyEx(bright.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(bright_u8, connectivity=8)
    spots = []
    for i in range(1, n):
        blob = labels == i
        (x, y), *_ = image_to_table(calibration, centroids[i][None])
        # Its area in mm: pixels times the local mm^2 per pixel at its centre.
        (x1, y1), *_ = image_to_table(calibration, centroids[i][None] + [[1.0, 0.0]])
        (x2, y2), *_ = image_to_table(calibration, centroids[i][None] + [[0.0, 1.0]])
        mm2_per_px = abs((x1 - x) * (y2 - y) - (x2 - x) * (y1 - y))
        area_mm2 = float(stats[i, cv2.CC_STAT_AREA]) * mm2_per_px
        if area_mm2 < MIN_SPOT_MM2:
            continue
        over = []
        for zone, m, size in zone_masks:
            share = float(np.count_nonzero(blob & m)) / size
            if share > 0:
                over.append((share, zone))
        over.sort(key=lambda t: -t[0])
        nearest = min(
            calibration.zones,
            key=lambda z: -cv2.pointPolygonTest(z.contour, (float(x), float(y)), True),
        )
        spots.append(
            GlareSpot(
                (float(x), float(y)),
                area_mm2,
                tuple(z for _, z in over),
                tuple(s for s, _ in over),
                nearest,
            )
        )
    spots.sort(key=lambda s: -s.area_mm2)
    return spots


__all__ = [
    "ADVICE",
    "GLARE_LEVEL",
    "UNREADABLE_SHARE",
    "GlareSpot",
    "find_glare",
    "zone_words",
]
