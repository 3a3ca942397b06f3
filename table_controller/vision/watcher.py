"""The camera's whole path: frame -> cards read -> tracker -> events, with evidence.

Every card reported laid keeps an evidence picture: the part of a frame that showed it,
as JPEG bytes, for the director to look at when a renege is claimed or proven. The event
goes at once with the picture of its own frame; when that one was not clear of the hand
that laid it, the first later frame in which the card lies where it was laid, still and
clear, gives a clearer one (``CardWatcher.clearer``, evidence.py), at most
``evidence_wait`` seconds after the event (``CLEAR_WAIT`` by default).

A card reported lying and not read in a frame is looked for in the picture: its place
showing the empty mat (empty_mat.py) is the tracker's evidence that it is gone; a hand,
glare or a card back over it is not.

Besides the tracker's events, the watcher keeps the cards lying across a zone's line
(across.py: ``across``, and ``across_changed`` after a frame that changed them), so the
table can tell the player to push the card into their zone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from table_controller.cards import Card
from table_controller.vision.across import AcrossLines, CardAcross, Reading
from table_controller.vision.card_label import draw_card_label
from table_controller.vision.detect import CardReader, CardSeen, Image
from table_controller.vision.empty_mat import EmptyMat, Patch
from table_controller.vision.evidence import (
    CLEAR_WAIT,
    EVIDENCE_MAX_PX,
    EVIDENCE_MIN_PX,
    EVIDENCE_MM,
    Clearer,
    ClearWait,
    Picture,
    Seen,
    cut,
    encode,
    evidence_crop,
)
from table_controller.vision.focus import Sharpness
from table_controller.vision.foreign import ForeignTracker
from table_controller.vision.layout import Calibration
from table_controller.vision.markers import MarkerFamily
from table_controller.vision.other_family import OTHER_EVERY
from table_controller.vision.tracker import (
    STILL_MM,
    CardLaid,
    CardMoved,
    CardRead,
    CardSeenTwice,
    Tracker,
)

__all__ = [
    "EVIDENCE_MAX_PX",
    "EVIDENCE_MIN_PX",
    "EVIDENCE_MM",
    "CardWatcher",
    "Clearer",
    "Seen",
    "annotate",
    "evidence_crop",
]

CALM_LOOKS = 15  # a card unread whose place shows no mat this many looks running ...
CALM_EVERY = 4  # ... is looked at one frame in this many


@dataclass
class CardWatcher:
    """Feed it frames; it says which cards were laid, moved or removed, and where.

    ``evidence_wait``: how long after its event a card reported under a hand is watched
    for a clear frame (seconds; None: ``CLEAR_WAIT``). ``other_every``: the cards of the
    other marker family are looked for in one frame in this many (other_family.py; 0:
    never). After each frame, ``clearer`` holds the clearer pictures that frame gave (of
    events reported before), ``across`` the cards lying across a zone's line and
    ``across_changed`` whether that frame changed them."""

    calibration: Calibration
    family: MarkerFamily | None = None
    tracker: Tracker = field(default_factory=Tracker)
    evidence_wait: float | None = None
    lines: AcrossLines = field(default_factory=AcrossLines)
    other_every: int = OTHER_EVERY

    def __post_init__(self) -> None:
        self.reader = CardReader(self.calibration, self.family, other_every=self.other_every)
        self.mat = EmptyMat(self.calibration, self.reader.roi)
        wait = CLEAR_WAIT if self.evidence_wait is None else self.evidence_wait
        self.waiting = ClearWait(wait)
        self.last: list[CardSeen] = []
        self.clearer: list[Clearer] = []  # this frame's clearer pictures
        self.across_changed = False  # this frame changed ``across``
        self._frames = 0
        self._calm: dict[Card, int] = {}  # looks in a row its place was not empty
        self._patches: dict[Card, Patch] = {}  # arriving cards' surroundings, last frame
        self.foreign_tracker = ForeignTracker(
            self.tracker.stable_frames, self.tracker.within_seconds
        )

    def process(
        self, frame: Image, index: int, time: float, grey: Image | None = None
    ) -> list[Seen]:
        """One frame (BGR, for evidence) and, when the camera gives it, its grey plane
        (what is read; read from ``frame`` otherwise): its events, at once, each card laid
        or moved with the picture of this frame. The clearer pictures this frame gives
        of cards reported before are left in ``clearer``."""
        self.last = self.reader.read(frame if grey is None else grey)
        reads = [c.read() for c in self.last]
        awaited = self.waiting.awaited(time)
        arriving = set()  # read where they are not reported: a CardLaid or CardMoved to be
        readings = []  # for the cards across a line: the reader's on_line, where not held
        for c, r in zip(self.last, reads, strict=True):
            where = self.tracker.where(c.card)
            placed = r.placed(where)
            if where is None or placed != where:
                arriving.add(c.card)
            readings.append(Reading(r, c.on_line and placed is None))
        empty, empty_across = self._empty(frame, reads)
        events = self.tracker.update(index, time, reads, empty)
        self.across_changed = self.lines.update(time, readings, empty_across)
        spots = {c.card: c for c in self.last}
        still = self._still(frame, spots, arriving | set(awaited))
        out = []
        for event in events:
            picture, place, evidence = None, (0.0, 0.0), None
            if isinstance(event, CardLaid | CardMoved):
                spot = spots.get(event.card)
                if spot is not None:
                    picture = self._picture(frame, index, spot, event.card in still)
                    place = (spot.x, spot.y)
                    evidence = encode(picture.crop) if picture is not None else None
            elif isinstance(event, CardSeenTwice):
                copies = [(c.x, c.y, c.outline) for c in self.last if c.card == event.card]
                evidence = self._side_by_side(frame, copies)
            self.waiting.add(event, time, picture, place)
            out.append(Seen(event, evidence, index if evidence is not None else None))
        for laid in self.foreign_tracker.update(index, time, self.reader.foreign):
            spot_outline = next(
                (f.outline for f in self.reader.foreign if (f.x, f.y) == (laid.x, laid.y)), ()
            )
            evidence = self._side_by_side(frame, [(laid.x, laid.y, spot_outline)])
            out.append(Seen(laid, evidence, index if evidence is not None else None))
        self.clearer = []
        watched = self.waiting.awaited(time)
        for card, place in awaited.items():
            spot = spots.get(card)
            if card not in watched or spot is None or watched[card] != place:
                continue  # an event about it this frame, or not read
            if math.dist(place, (spot.x, spot.y)) <= STILL_MM and card in still:
                picture = self._picture(frame, index, spot, True)
                clearer = self.waiting.clear(card, picture) if picture is not None else None
                if clearer is not None:
                    self.clearer.append(clearer)
        return out

    def _side_by_side(
        self, frame: Image, places: list[tuple[float, float, tuple[tuple[float, float], ...]]]
    ) -> bytes | None:
        """One picture of the cards at ``places`` (a card's copies), side by side at one
        height: the evidence of a card the game does not take."""
        crops = [
            c for x, y, o in places if (c := cut(self.calibration, frame, x, y, o)) is not None
        ]
        if not crops:
            return None
        height = min(c.shape[0] for c in crops)
        same = [
            c
            if c.shape[0] == height
            else cv2.resize(c, (max(1, round(c.shape[1] * height / c.shape[0])), height))
            for c in crops
        ]
        gap = np.full((height, 8, *same[0].shape[2:]), 255, np.uint8)
        parts = [p for c in same for p in (c, gap)][:-1]
        return encode(np.ascontiguousarray(np.hstack(parts)))

    @property
    def across(self) -> tuple[CardAcross, ...]:
        """The cards lying across a zone's line now (across.py)."""
        return self.lines.cards

    def _still(self, frame: Image, spots: dict[Card, CardSeen], cards: set[Card]) -> set[Card]:
        """Of ``cards`` (arriving, or watched for a clear frame), those read in this frame
        whose place and its surroundings look as in the last frame that read them: nothing
        moves there."""
        still = set()
        patches = self._patches
        for card in cards:
            spot = spots.get(card)
            if spot is None or not spot.outline:
                continue
            before = patches.get(card)
            if before is not None and self.mat.same(frame, before):
                still.add(card)
            patches[card] = self.mat.patch(frame, spot.outline)
        for card in set(patches) - cards:
            del patches[card]
        return still

    def _picture(self, frame: Image, index: int, spot: CardSeen, still: bool) -> Picture | None:
        """The card's crop in this frame, and whether it lies clear: nothing moved over or
        beside it since the frame before (``still``), and the mat shows all round it
        (``EmptyMat.around``, other cards read or lying left out) or, where that cannot
        be told (the mat not learned yet, other cards all round it), both its markers
        are read."""
        crop = cut(self.calibration, frame, spot.x, spot.y, spot.outline)
        if crop is None:  # pragma: no cover - a card read is in the picture
            return None
        others = [c.outline for c in self.last if c.card != spot.card and c.outline]
        others += [c.outline for c in self.tracker.lying() if c.card != spot.card and c.outline]
        around = self.mat.around(frame, spot.outline, others) if spot.outline else None
        both = spot.markers >= 2
        clear = still and (around if around is not None else both)
        return Picture(crop, index, clear, both)

    def _empty(self, frame: Image, reads: list[CardRead]) -> tuple[set[Card], set[Card]]:
        """The cards reported lying, unread in this frame, whose place shows the empty
        mat, and likewise the cards across a line; the mat learned meanwhile away from
        every card read, lying or across a line.

        A card whose place has shown something else (the card itself, under a pile)
        for ``CALM_LOOKS`` looks in a row is looked at one frame in ``CALM_EVERY`` only,
        until its place first looks empty: a pile of face-up tricks, the cards under the
        top one never read, costs little; its removal comes at most that many frames
        later."""
        read = {r.card for r in reads}
        lying = [c for c in self.tracker.lying() if c.outline]
        across = [a for a in self.lines.cards if a.outline and a.card not in read]
        self.mat.look(
            frame,
            [r.outline for r in reads if r.outline],
            [c.outline for c in lying] + [a.outline for a in across],
        )
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
        return empty, {a.card for a in across if self.mat.empty(frame, a.outline)}


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
