"""The camera's whole path: frame -> cards read -> tracker -> events, with evidence.

Every card reported laid keeps an evidence crop: the part of the frame that showed it,
as PNG bytes, for the director to look at when a renege is claimed or proven.

A card reported lying and not read in a frame is looked for in the picture: its place
showing the empty mat (empty_mat.py) is the tracker's evidence that it is gone; a hand,
glare or a card back over it is not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from table_controller.cards import Card
from table_controller.vision.calibration import table_to_image
from table_controller.vision.card_label import draw_card_label
from table_controller.vision.detect import CardReader, CardSeen, Image
from table_controller.vision.empty_mat import EmptyMat
from table_controller.vision.focus import Sharpness
from table_controller.vision.layout import CARD_H, Calibration
from table_controller.vision.markers import MarkerFamily
from table_controller.vision.tracker import CardLaid, CardMoved, CardRead, Tracker, TrackerEvent

EVIDENCE_MM = CARD_H * 1.8  # the side of the square of table kept around a card: the
# card, its marker and a margin of the mat and its neighbours, for the director to judge
EVIDENCE_MIN_PX = 320  # the crop's shorter side, at least (upscaled only when the camera
# gives fewer pixels): the director reads the card's corner and marker on it
EVIDENCE_MAX_PX = 480  # and at most (downscaled): a JPEG of tens of KB over MQTT
EVIDENCE_QUALITY = 92  # JPEG quality: the card's corner and marker stay crisp
CALM_LOOKS = 15  # a card unread whose place shows no mat this many looks running ...
CALM_EVERY = 4  # ... is looked at one frame in this many


@dataclass(frozen=True)
class Seen:
    """A tracker event, with the evidence crop (PNG) for cards laid or moved."""

    event: TrackerEvent
    evidence: bytes | None = None


def evidence_crop(calibration: Calibration, frame: Image, x: float, y: float) -> bytes:
    """JPEG of the frame around the table point (x, y) mm: the card with a margin of
    the table around it, its shorter side scaled to between ``EVIDENCE_MIN_PX`` and
    ``EVIDENCE_MAX_PX`` (enlarged only when the camera gave fewer pixels)."""
    h = EVIDENCE_MM / 2
    square = np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])
    px = table_to_image(calibration, square)
    height, width = frame.shape[:2]
    x0, y0 = np.clip(np.floor(px.min(axis=0)), 0, [width, height]).astype(int)
    x1, y1 = np.clip(np.ceil(px.max(axis=0)), 0, [width, height]).astype(int)
    crop: Image = frame[y0:y1, x0:x1]
    if crop.size == 0:  # pragma: no cover - the point is off the picture
        return b""
    short = min(crop.shape[:2])
    scale = max(EVIDENCE_MIN_PX / short, 1.0) if short < EVIDENCE_MIN_PX else 1.0
    if short * scale > EVIDENCE_MAX_PX:
        scale = EVIDENCE_MAX_PX / short
    if scale != 1.0:
        size = (round(crop.shape[1] * scale), round(crop.shape[0] * scale))
        interpolation = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
        crop = np.asarray(cv2.resize(crop, size, interpolation=interpolation), dtype=np.uint8)
    # JPEG, as a camera's photograph is kept: a 320 px crop is about 20 KB in 0.4 ms,
    # against 123 KB in 5.6 ms as PNG (docs/benchmarks.md, "The evidence's size").
    ok, jpeg = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, EVIDENCE_QUALITY])
    if not ok:  # pragma: no cover - an empty crop at the image's edge
        return b""
    return bytes(jpeg)


@dataclass
class CardWatcher:
    """Feed it frames; it says which cards were laid, moved or removed, and where."""

    calibration: Calibration
    family: MarkerFamily | None = None
    tracker: Tracker = field(default_factory=Tracker)

    def __post_init__(self) -> None:
        self.reader = CardReader(self.calibration, self.family)
        self.mat = EmptyMat(self.calibration, self.reader.roi)
        self.last: list[CardSeen] = []
        self._frames = 0
        self._calm: dict[Card, int] = {}  # looks in a row its place was not empty

    def process(
        self, frame: Image, index: int, time: float, grey: Image | None = None
    ) -> list[Seen]:
        """One frame (BGR, for evidence) and, when the camera gives it, its grey plane
        (what is read; read from ``frame`` otherwise)."""
        self.last = self.reader.read(frame if grey is None else grey)
        reads = [c.read() for c in self.last]
        events = self.tracker.update(index, time, reads, self._empty(frame, reads))
        out = []
        for event in events:
            evidence = None
            if isinstance(event, CardLaid | CardMoved):
                spot = next((c for c in self.last if c.card == event.card), None)
                if spot is not None:
                    evidence = evidence_crop(self.calibration, frame, spot.x, spot.y)
            out.append(Seen(event, evidence))
        return out

    def _empty(self, frame: Image, reads: list[CardRead]) -> set[Card]:
        """The cards reported lying, unread in this frame, whose place shows the empty
        mat; the mat learned meanwhile away from every card read or lying.

        A card whose place has shown something else (the card itself, under a pile)
        for ``CALM_LOOKS`` looks in a row is looked at one frame in ``CALM_EVERY`` only,
        until its place first looks empty: a pile of face-up tricks, the cards under the
        top one never read, costs little; its removal comes at most that many frames
        later."""
        read = {r.card for r in reads}
        lying = [c for c in self.tracker.lying() if c.outline]
        self.mat.look(frame, [r.outline for r in reads if r.outline], [c.outline for c in lying])
        self._frames += 1
        empty = set()
        calm = self._calm
        for n, c in enumerate(lying):
            if c.card in read:
                calm.pop(c.card, None)
                continue
            looks = calm.get(c.card, 0)
            if looks >= CALM_LOOKS and (self._frames + n) % CALM_EVERY:
                continue
            if self.mat.empty(frame, c.outline):
                empty.add(c.card)
                calm.pop(c.card, None)
            else:
                calm[c.card] = looks + 1
        for card in set(calm) - {c.card for c in lying}:
            del calm[card]
        return empty


def annotate(
    calibration: Calibration,
    frame: Image,
    cards: list[CardSeen],
    ms: float | None = None,
    sharp: Sharpness | None = None,
) -> Image:
    """The frame with the zones, each card read (its face at its marker) and the frame
    time: what `vision live` shows a person. ``sharp`` as ``overlay`` takes it."""
    from table_controller.vision.calibration import overlay

    picture = overlay(calibration, frame, sharp)
    for c in cards:
        pts = np.array(c.corners, np.int32).reshape(-1, 1, 2)
        cv2.polylines(picture, [pts], True, (0, 255, 0), 2)
        x, y = pts[0, 0]
        draw_card_label(picture, c.card, (int(x), int(y) - 6))
    if ms is not None:
        cv2.putText(
            picture,
            f"{ms:.1f} ms/frame",
            (10, picture.shape[0] - 12),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.8,
            (255, 255, 255),
            2,
            cv2.LINE_AA,
        )
    return picture
