"""The picture kept of each card laid: the evidence a director judges a renege on.

A card is reported laid on the second frame that reads it lying still (tracker.py),
when the hand that laid it is often still over it: a crop of that frame shows fingers
over the card. The event goes at once all the same, with that crop, the best picture
there is at that moment: nothing in the game waits for a picture. Then the watcher
keeps an eye on the card: the first frame in which it lies, where it was laid, still
and *clear* of the hand (the watcher judges it: the mat showing all round it,
``EmptyMat.around``) gives a ``Clearer`` picture, which the table writes over the first
one in its log and sends to the director after its event. One at most a card, so the
traffic stays small; none for a card laid clear (its first picture is), none once the
card is moved or taken away, and none after ``wait`` seconds (``CLEAR_WAIT``): a card
that never lies clear keeps its first picture.

The crop holds the whole card with a margin of the table (never cut, unless the card
lies at the picture's edge), at least ``EVIDENCE_MIN_PX`` on its long side: enlarged
(bicubic) only when the camera gave fewer pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.cards import Card
from table_controller.vision.calibration import table_to_image
from table_controller.vision.foreign import ForeignCardLaid
from table_controller.vision.layout import CARD_H, Calibration
from table_controller.vision.tracker import CardLaid, CardMoved, TrackerEvent
from table_controller.vision.zones import Outline

Image = npt.NDArray[np.uint8]

EVIDENCE_MM = CARD_H * 1.8  # the square of table kept round a card's centre: the card,
# its markers and a margin of the mat and its neighbours, for the director to judge
EVIDENCE_MARGIN_MM = 10.0  # and at least this much of the table round the card itself
EVIDENCE_MIN_PX = 480  # the crop's long side, at least (enlarged only when the camera
# gives fewer pixels): the director reads the card's corner and markers on it
EVIDENCE_MAX_PX = 640  # and at most (reduced): a JPEG of some tens of KB over MQTT
EVIDENCE_QUALITY = 92  # JPEG quality: the card's corner and markers stay crisp
CLEAR_WAIT = 2.0  # seconds a card reported under a hand is watched for a clear frame
PILE_PREFIX = "tricks:"  # a card laid in a pile lies under the next: never clear, not waited for


@dataclass(frozen=True)
class Seen:
    """A tracker event (or a card not of this deck laid), with the evidence picture
    (JPEG) for cards laid or moved, a card seen twice at once (its copies side by side)
    or a card not of the deck, and the index of the frame it was taken from."""

    event: TrackerEvent | ForeignCardLaid
    evidence: bytes | None = None
    evidence_frame: int | None = None


@dataclass(frozen=True)
class Picture:
    """A card's crop from one frame (the pixels the camera gave, not yet encoded), and
    whether the card lay clear in it; ``both``: both its markers were read."""

    crop: Image
    frame: int
    clear: bool
    both: bool = False


def crop_box(
    calibration: Calibration,
    shape: tuple[int, ...],
    x: float,
    y: float,
    outline: Outline = (),
) -> tuple[int, int, int, int] | None:
    """The box (x0, y0, x1, y1 image px) kept of a frame of ``shape`` round the table
    point (x, y) mm: the square ``EVIDENCE_MM`` across centred there and the card's
    ``outline`` (its corners, table mm) grown by ``EVIDENCE_MARGIN_MM``, clipped to
    the picture. None when it is off the picture."""
    h = EVIDENCE_MM / 2
    points = [[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]]
    if len(outline) >= 4:
        points += _grown(outline, EVIDENCE_MARGIN_MM)
    image = table_to_image(calibration, np.array(points, np.float64))
    height, width = shape[:2]
    x0, y0 = np.clip(np.floor(image.min(axis=0)), 0, [width, height]).astype(int)
    x1, y1 = np.clip(np.ceil(image.max(axis=0)), 0, [width, height]).astype(int)
    if x1 <= x0 or y1 <= y0:
        return None
    return int(x0), int(y0), int(x1), int(y1)


def cut(
    calibration: Calibration, frame: Image, x: float, y: float, outline: Outline = ()
) -> Image | None:
    """``crop_box`` of ``frame``, as a copy (the camera may reuse the frame's memory
    while the picture waits). None when it is off the picture."""
    box = crop_box(calibration, frame.shape, x, y, outline)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    return np.array(frame[y0:y1, x0:x1], np.uint8)


def _grown(outline: Outline, mm: float) -> list[list[float]]:
    """A card's four corners (in order round it) moved ``mm`` outwards along both sides."""
    a, b, _, d = (np.array(p, np.float64) for p in outline[:4])
    u, v = b - a, d - a
    u = u / max(float(np.linalg.norm(u)), 1e-9) * mm
    v = v / max(float(np.linalg.norm(v)), 1e-9) * mm
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    return [
        [float(p[0] + su * u[0] + sv * v[0]), float(p[1] + su * u[1] + sv * v[1])]
        for p, (su, sv) in zip(outline[:4], signs, strict=True)
    ]


def encode(crop: Image) -> bytes:
    """A crop as JPEG, its long side scaled to between ``EVIDENCE_MIN_PX`` and
    ``EVIDENCE_MAX_PX`` (enlarged only when the camera gave fewer pixels)."""
    long = max(crop.shape[:2])
    scale = 1.0
    if long < EVIDENCE_MIN_PX:
        scale = EVIDENCE_MIN_PX / long
    elif long > EVIDENCE_MAX_PX:
        scale = EVIDENCE_MAX_PX / long
    if scale != 1.0:
        size = (max(1, round(crop.shape[1] * scale)), max(1, round(crop.shape[0] * scale)))
        interpolation = cv2.INTER_CUBIC if scale > 1 else cv2.INTER_AREA
        crop = np.asarray(cv2.resize(crop, size, interpolation=interpolation), dtype=np.uint8)
    # JPEG, as a camera's photograph is kept: a sixth of the PNG, at a fourteenth of
    # the cost (docs/director.md, "The evidence pictures").
    ok, jpeg = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, EVIDENCE_QUALITY])
    if not ok:  # pragma: no cover - OpenCV refuses only an empty picture
        return b""
    return bytes(jpeg)


def evidence_crop(
    calibration: Calibration, frame: Image, x: float, y: float, outline: Outline = ()
) -> bytes:
    """JPEG of the frame round the table point (x, y) mm: ``cut`` and ``encode``."""
    crop = cut(calibration, frame, x, y, outline)
    return b"" if crop is None else encode(crop)


@dataclass(frozen=True)
class Clearer:
    """A clearer picture (JPEG) of the card of ``event``, reported before with a
    picture of a frame where the hand was still over it: taken from frame
    ``evidence_frame``, the first in which the card lay still and clear."""

    event: CardLaid | CardMoved
    evidence: bytes
    evidence_frame: int


@dataclass
class _Awaited:
    event: CardLaid | CardMoved
    deadline: float
    place: tuple[float, float]  # where it was laid (table mm)


class ClearWait:
    """The cards reported with a picture that was not clear, each watched for a clear
    frame until its deadline (``wait`` seconds after its event), an event about the same
    card (moved, taken away), or its clear picture, whichever comes first."""

    def __init__(self, wait: float) -> None:
        if wait < 0:
            raise ValueError(f"wait {wait}: choose a number of seconds, 0 or more")
        self.wait = wait
        self._cards: dict[Card, _Awaited] = {}

    def awaited(self, time: float) -> dict[Card, tuple[float, float]]:
        """The cards still watched at ``time``, and where each was laid (those past
        their deadline are dropped: they keep their first picture)."""
        for card in [c for c, a in self._cards.items() if time > a.deadline]:
            del self._cards[card]
        return {card: a.place for card, a in self._cards.items()}

    def add(
        self, event: TrackerEvent, time: float, picture: Picture | None, place: tuple[float, float]
    ) -> None:
        """A new event, with the picture of its card in its frame (for one laid or
        moved): any wait for that card ends (it has left its place); a card laid or
        moved whose picture is not clear is watched from now, except into a tricks pile,
        where the next card lies on it."""
        self._cards.pop(event.card, None)
        if not isinstance(event, CardLaid | CardMoved) or event.zone.startswith(PILE_PREFIX):
            return
        if picture is not None and not picture.clear:
            self._cards[event.card] = _Awaited(event, time + self.wait, place)

    def clear(self, card: Card, picture: Picture) -> Clearer | None:
        """A later frame's picture of a card watched (read where it was laid): its
        ``Clearer`` picture if the card lies clear in it (and the watch ends)."""
        awaited = self._cards.get(card)
        if awaited is None or not picture.clear:
            return None
        del self._cards[card]
        return Clearer(awaited.event, encode(picture.crop), picture.frame)

    def __len__(self) -> int:
        return len(self._cards)


__all__ = [
    "CLEAR_WAIT",
    "EVIDENCE_MAX_PX",
    "EVIDENCE_MIN_PX",
    "EVIDENCE_MM",
    "ClearWait",
    "Clearer",
    "Picture",
    "Seen",
    "crop_box",
    "cut",
    "encode",
    "evidence_crop",
]
