"""Reading the cards in one camera frame: markers, then table millimetres and zones.

Each card carries its marker twice, at the top right and (turned half round) at the
bottom left, so that in each marker's own frame the card's centre is at the same offset:
either marker alone places the card. Markers are read only inside the table's zones
(their bounding box in the image), which both saves time and ignores whatever lies
around the table.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.cards import Card
from table_controller.vision.calibration import image_to_table, table_to_image
from table_controller.vision.deck import MARKER_MARGIN_MM, MARKER_MM
from table_controller.vision.layout import CARD_H, CARD_W, Calibration
from table_controller.vision.markers import FIDUCIALS, MarkerFamily, Sighting, family
from table_controller.vision.tracker import CardRead

# The card's centre in a marker's own frame (x along its top edge, y down its side),
# in marker sides: the same for both markers, since the second is printed turned round.
_CENTER_X = -(CARD_W / 2 - MARKER_MARGIN_MM - MARKER_MM / 2) / MARKER_MM
_CENTER_Y = (CARD_H / 2 - MARKER_MARGIN_MM - MARKER_MM / 2) / MARKER_MM

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class CardSeen:
    """A card read in a frame: the JSON of ``vision read``."""

    card: Card
    zone: str | None
    x: float  # table mm of the card's centre
    y: float
    corners: tuple[tuple[float, float], ...]  # image px of the marker read (first one)
    markers: int  # how many of its two markers were read
    confidence: float

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card.code,
            "zone": self.zone,
            "center_mm": [round(self.x, 1), round(self.y, 1)],
            "corners": [[round(a, 1), round(b, 1)] for a, b in self.corners],
            "markers": self.markers,
            "confidence": round(self.confidence, 3),
        }

    def read(self) -> CardRead:
        return CardRead(self.card, self.zone, self.x, self.y, self.confidence)


def card_center_px(corners: npt.NDArray[np.float32]) -> tuple[float, float]:
    """The card's centre in image px, from one of its markers' corners (clockwise from
    the marker's top-left)."""
    tl, tr, _, bl = (np.asarray(c, np.float64) for c in corners)
    across, down = tr - tl, bl - tl
    centre = corners.mean(axis=0) + _CENTER_X * across + _CENTER_Y * down
    return (float(centre[0]), float(centre[1]))


class CardReader:
    """Reads the cards in frames from one calibrated camera."""

    def __init__(self, calibration: Calibration, marker_family: MarkerFamily | None = None) -> None:
        self.calibration = calibration
        self.family = marker_family or family(calibration.family)
        self.roi = self._zones_box()

    def _zones_box(self) -> tuple[int, int, int, int]:
        """The image rectangle (x0, y0, x1, y1) holding every zone, with a card's margin."""
        cal = self.calibration
        pts = np.array([p for z in cal.zones for p in z.polygon], np.float64)
        lo, hi = pts.min(axis=0) - CARD_H, pts.max(axis=0) + CARD_H
        corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        px = table_to_image(cal, corners)
        w, h = cal.image_size
        x0, y0 = np.floor(px.min(axis=0)).astype(int)
        x1, y1 = np.ceil(px.max(axis=0)).astype(int)
        return (max(0, int(x0)), max(0, int(y0)), min(w, int(x1)), min(h, int(y1)))

    def sightings(self, frame: Image) -> list[Sighting]:
        """Every marker in the zones' box, corners in full-frame pixels."""
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        x0, y0, x1, y1 = self.roi
        found = self.family.read(np.ascontiguousarray(gray[y0:y1, x0:x1]))
        offset = np.array([x0, y0], np.float32)
        return [Sighting(s.marker, s.corners + offset, s.confidence) for s in found]

    def read(self, frame: Image) -> list[CardSeen]:
        """The cards in a frame, one entry per card (both its markers combined)."""
        by_card: dict[int, list[Sighting]] = {}
        for s in self.sightings(frame):
            if s.marker not in FIDUCIALS:
                by_card.setdefault(s.marker, []).append(s)
        seen = []
        for marker, sightings in sorted(by_card.items()):
            centres = np.array([card_center_px(s.corners) for s in sightings])
            (x, y), *_ = image_to_table(self.calibration, centres.mean(axis=0, keepdims=True))
            if len(sightings) > 1 and np.ptp(centres, axis=0).max() > self._card_px():
                # Two far-apart readings of one card: keep them apart for the tracker.
                for s, c in zip(sightings, image_to_table(self.calibration, centres), strict=True):
                    seen.append(self._seen(marker, [s], float(c[0]), float(c[1])))
                continue
            seen.append(self._seen(marker, sightings, float(x), float(y)))
        return seen

    def _card_px(self) -> float:
        return CARD_H * self.calibration.px_per_mm()

    def _seen(self, marker: int, sightings: list[Sighting], x: float, y: float) -> CardSeen:
        zone = self.calibration.zone_at(x, y)
        corners = tuple((float(a), float(b)) for a, b in sightings[0].corners)
        confidence = min(1.0, 0.5 * len(sightings) + 0.5 * max(s.confidence for s in sightings))
        return CardSeen(
            Card(marker),
            None if zone is None else zone.name,
            x,
            y,
            corners,
            len(sightings),
            confidence,
        )
