"""The picture kept of each card laid: the evidence a director judges a renege on.

A card is reported laid on the second frame that reads it lying still (tracker.py),
when the hand that laid it is often still over it: a crop of that frame shows fingers
over the card. So the watcher does not take the picture then: it waits for the first
frame in which the card, read where it was laid, lies *clear* (the watcher judges it:
the mat showing all round it, ``EmptyMat.around``), and takes it from that frame.

The picture travels with its event, logged with it in one write and sent before it, so
the event waits with it: every event is held, in order, behind a card laid that waits
for its picture, at most ``wait`` seconds (the tracker's ``within_seconds``, 0.5 s, by
default). Past that, or when the card is moved or taken away before it lies clear, the
best frame seen is kept (both markers read before one, the later before the earlier).
At a table the hand is off the card a few frames after it is laid, so the wait is
mostly a few frames, and none when the card was laid clear.

The crop holds the whole card with a margin of the table (never cut, unless the card
lies at the picture's edge), at least ``EVIDENCE_MIN_PX`` on its long side: enlarged
(bicubic) only when the camera gave fewer pixels.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.cards import Card
from table_controller.vision.calibration import table_to_image
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
PILE_PREFIX = "tricks:"  # a card laid in a pile lies under the next: never clear, not waited for


@dataclass(frozen=True)
class Seen:
    """A tracker event, with the evidence picture (JPEG) for cards laid or moved and
    the index of the frame it was taken from."""

    event: TrackerEvent
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


@dataclass
class _Held:
    event: TrackerEvent
    deadline: float
    picture: Picture | None
    awaited: Card | None  # the card whose clear picture is waited for (None: none)
    place: tuple[float, float] = (0.0, 0.0)  # where it was laid (table mm)


class EvidenceHold:
    """The events of the frames, in order, each released once its card's picture is
    clear (or it waited ``wait`` seconds, or its card was moved or taken away)."""

    def __init__(self, wait: float) -> None:
        if wait < 0:
            raise ValueError(f"wait {wait}: choose a number of seconds, 0 or more")
        self.wait = wait
        self._queue: deque[_Held] = deque()

    def awaited(self) -> dict[Card, tuple[float, float]]:
        """The cards whose clear picture is waited for, and where each was laid."""
        return {h.awaited: h.place for h in self._queue if h.awaited is not None}

    def offer(self, card: Card, picture: Picture) -> None:
        """A later frame's picture of a card waited for (read where it was laid)."""
        for held in self._queue:
            if held.awaited == card:
                if _better(picture, held.picture):
                    held.picture = picture
                if picture.clear:
                    held.awaited = None

    def add(
        self, event: TrackerEvent, time: float, picture: Picture | None, place: tuple[float, float]
    ) -> None:
        """A new event, with the picture of its card in this frame (for one laid or
        moved). An event about a card waited for ends that wait: it has left its place."""
        card = event.card
        for held in self._queue:
            if held.awaited == card:
                held.awaited = None
        awaited = None
        if isinstance(event, CardLaid | CardMoved):
            clear = picture is not None and picture.clear
            if not clear and not event.zone.startswith(PILE_PREFIX):
                awaited = card
        self._queue.append(_Held(event, time + self.wait, picture, awaited, place))

    def release(self, time: float) -> list[Seen]:
        """The events ready at ``time``, in order: those before the first still waiting."""
        out = []
        while self._queue:
            head = self._queue[0]
            if head.awaited is not None and time < head.deadline:
                break
            out.append(_seen(self._queue.popleft()))
        return out

    def flush(self) -> list[Seen]:
        """Every event held, with the best picture each has: the frames have ended."""
        out = [_seen(h) for h in self._queue]
        self._queue.clear()
        return out

    def __len__(self) -> int:
        return len(self._queue)


def _better(new: Picture, old: Picture | None) -> bool:
    """Whether ``new`` (a later frame) is the better evidence: clear beats not clear,
    both markers read beats one; between equals the later frame, the hand further off."""
    if old is None:
        return True
    return (new.clear, new.both) >= (old.clear, old.both)


def _seen(held: _Held) -> Seen:
    picture = held.picture
    if picture is None or not isinstance(held.event, CardLaid | CardMoved):
        return Seen(held.event)
    return Seen(held.event, encode(picture.crop), picture.frame)


__all__ = [
    "EVIDENCE_MAX_PX",
    "EVIDENCE_MIN_PX",
    "EVIDENCE_MM",
    "EvidenceHold",
    "Picture",
    "Seen",
    "crop_box",
    "cut",
    "encode",
    "evidence_crop",
]
