"""Reading the cards in one camera frame: markers, then table millimetres and zones.

Each card carries its marker twice, at the top right and (turned half round) at the
bottom left, so that in each marker's own frame the card's centre is at the same offset:
either marker alone places the card. Markers are read only inside the table's zones
(their bounding box in the image), which both saves time and ignores whatever lies
around the table, and with the detector set up for the one size the calibration says
the markers have there.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.cards import Card
from table_controller.rules.events import Printing
from table_controller.vision.calibration import image_to_table, scale, table_to_image
from table_controller.vision.deck import MARKER_MARGIN_MM, MARKER_MM
from table_controller.vision.decode import FinerDecoder
from table_controller.vision.foreign import ForeignSeen
from table_controller.vision.layout import CARD_H, CARD_W, Calibration
from table_controller.vision.markers import (
    FIDUCIALS,
    ArucoFamily,
    MarkerFamily,
    Quads,
    Sighting,
    family,
)
from table_controller.vision.other_family import OTHER_EVERY, OtherFamily
from table_controller.vision.tracker import CardRead
from table_controller.vision.zones import (
    LINE_MM,
    Shares,
    ZoneMap,
    across_line,
    card_outline,
    placed,
)

__all__ = [
    "LINE_MM",
    "CardReader",
    "CardSeen",
    "ZoneMap",
    "card_center_px",
    "card_centres",
]

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
    on_line: bool = False  # across a zone's line (``zone`` is then None): to be moved into one
    shares: Shares = ()  # the share of the card's area in each zone it touches, largest first
    outline: tuple[tuple[float, float], ...] = ()  # the card's corners on the table, mm
    inside: float | None = None  # mm its centre lies inside the zone of shares[0] (< 0: out)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card.code,
            "zone": self.zone,
            "center_mm": [round(self.x, 1), round(self.y, 1)],
            "corners": [[round(a, 1), round(b, 1)] for a, b in self.corners],
            "markers": self.markers,
            "confidence": round(self.confidence, 3),
            "on_line": self.on_line,
            "shares": {zone: round(share, 2) for zone, share in self.shares},
            "inside_mm": None if self.inside is None else round(self.inside, 1),
        }

    def read(self) -> CardRead:
        return CardRead(
            self.card,
            self.zone,
            self.x,
            self.y,
            self.confidence,
            self.shares,
            self.outline,
            self.inside,
        )


# Two readings of one code whose card centres lie within this of each other (mm) are one
# card's two markers: they agree to a few mm (position p99 3.5 mm, worst 8.1 over
# 100,000 sightings); two printed copies this close would cover each other's markers.
SAME_CARD_MM = 30.0


def _same_card(
    pairs: list[tuple[Sighting, list[float]]],
) -> list[list[tuple[Sighting, list[float]]]]:
    """Readings of one code (each with its card's centre, mm) gathered into cards: those
    within ``SAME_CARD_MM`` of one another (chained) are one card."""
    cards: list[list[tuple[Sighting, list[float]]]] = []
    for pair in pairs:
        merged = [pair]
        apart = []
        for c in cards:
            if any(math.dist(pair[1], other[1]) <= SAME_CARD_MM for other in c):
                merged.extend(c)
            else:
                apart.append(c)
        cards = [*apart, merged]
    return cards


def card_center_px(corners: npt.NDArray[np.float32]) -> tuple[float, float]:
    """The card's centre in image px, from one of its markers' corners (clockwise from
    the marker's top-left)."""
    (x, y), *_ = card_centres(np.asarray(corners, np.float64).reshape(1, 4, 2))
    return (float(x), float(y))


def card_centres(corners: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """:func:`card_center_px` of N markers at once (N x 4 x 2 -> N x 2), in the plane the
    corners are given in: image px, or table mm (exact there, the card lying flat)."""
    tl, tr, bl = corners[:, 0], corners[:, 1], corners[:, 3]
    return np.asarray(
        corners.mean(axis=1) + _CENTER_X * (tr - tl) + _CENTER_Y * (bl - tl), np.float64
    )


def _size_error(mm: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """How far markers (corners in table mm, N x 4 x 2) are from a card marker's printed
    size: the largest relative difference of their sides and diagonals."""
    sides = np.linalg.norm(mm - np.roll(mm, -1, axis=1), axis=2) / MARKER_MM
    diagonals = np.linalg.norm(mm[:, :2] - mm[:, 2:], axis=2) / (MARKER_MM * math.sqrt(2))
    return np.asarray(np.abs(np.concatenate([sides, diagonals], axis=1) - 1.0).max(axis=1))


# A marker read more than this far from its printed size is not a card's (see _true_size).
SIZE_TOLERANCE = 0.35

# The second, finer decode looks only at rejected outlines this near a card marker's
# printed size on the table (tighter than SIZE_TOLERANCE: an outline ArUco could not
# read is a weaker witness), and takes a *maybe* read (decode.py) only when another
# read of the same card puts the card's centre within AGREE_MM of it.
SECOND_SIZE_TOLERANCE = 0.25
AGREE_MM = 12.0
SURE_CONFIDENCE, MAYBE_CONFIDENCE = 0.9, 0.6

# Read at a reduced size when the markers stay this many px a cell (bench/vision.py:
# ArUco reads every sharp card from about 2.5 px a cell; 3 keeps a margin for blur).
REDUCE_TO_CELL_PX = 3.0

# A picture this noisy (grey levels, sigma) is smoothed (3x3 Gaussian) before it is
# read: in a dim room at high gain the threshold pass turns the noise into thousands of
# specks to trace, which doubled the cost a frame (bench/vision.py section 6: 6.3 ms
# median at 120 electrons a white pixel against 3.0 in club light); smoothed, a frame
# costs about a third less and soft, dim cards read better. Club light measures 2.1,
# a dim room 4.2, so clean pictures are read as they are.
NOISY_GREY = 3.0


def noise_level(gray: Image) -> float:
    """The picture's sensor noise in grey levels (a Gaussian's sigma): the median
    difference of neighbouring pixels along every fourth row (edges are too few to move
    the median), from a histogram, so it costs a tenth of a millisecond."""
    rows = gray[::4]
    d = cv2.absdiff(rows[:, 1:], rows[:, :-1])
    hist = cv2.calcHist([d], [0], None, [256], [0, 256]).ravel()
    median = int(np.searchsorted(np.cumsum(hist), hist.sum() / 2))
    return 1.4826 * median / math.sqrt(2)


class CardReader:
    """Reads the cards in frames from one calibrated camera.

    From the calibration it knows how large a marker looks in every zone, so it reads
    only the zones' box, at the smallest size that keeps the markers readable (a whole
    number of times smaller, or full size), with the detector set up for that one size.

    One frame in ``other_every`` it also looks for cards printed in the other marker
    family (other_family.py: a QR card at an ArUco table), listed in ``foreign`` with
    their family; 0 never looks.
    """

    def __init__(
        self,
        calibration: Calibration,
        marker_family: MarkerFamily | None = None,
        *,
        reduce: int | None = None,
        tune: bool = True,
        second: bool = True,
        other_every: int = OTHER_EVERY,
    ) -> None:
        self.calibration = calibration
        base = marker_family or family(calibration.family)
        s = scale(calibration, base)
        self.reduce = reduce or max(1, int(s.min_cell_px // REDUCE_TO_CELL_PX))
        self.roi = self._zones_box()
        x0, y0, x1, y1 = self.roi
        k = self.reduce
        longest = max(x1 - x0, y1 - y0) // k
        tuned = base.for_cells(s.min_cell_px / k, s.max_cell_px / k, longest)
        self.family = tuned if tune else base
        self._zones = ZoneMap(calibration)
        self.second_looks = 0  # outlines given the second decode, over all frames
        self.foreign_sightings: list[Sighting] = []  # the last frame's markers not of the deck
        self.foreign: list[ForeignSeen] = []  # ... as cards, after ``read``
        self.smoothed = 0  # frames smoothed before reading, for their noise
        # Every id of the dictionary is reported by the second decode: another deck's
        # marker, surely read, is foreign (never a card), as from the first pass.
        self.decoder = (
            FinerDecoder(
                self.family.dictionary, tuple(range(len(self.family.dictionary.bytesList)))
            )
            if second and isinstance(self.family, ArucoFamily)
            else None
        )
        self.other = OtherFamily(calibration, base, self.roi, other_every) if other_every else None

    def _zones_box(self) -> tuple[int, int, int, int]:
        """The image rectangle (x0, y0, x1, y1) holding every zone, with a card's margin
        (a card whose centre is in a zone reaches at most half its diagonal out);
        its sides are whole multiples of the reduction."""
        cal = self.calibration
        pts = np.array([p for z in cal.zones for p in z.polygon], np.float64)
        reach = math.hypot(CARD_W, CARD_H) / 2 + 5.0
        lo, hi = pts.min(axis=0) - reach, pts.max(axis=0) + reach
        corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        px = table_to_image(cal, corners)
        w, h = cal.image_size
        k = self.reduce
        x0, y0 = (max(0, int(v) // k * k) for v in np.floor(px.min(axis=0)))
        x1 = min(w // k * k, -(-int(np.ceil(px[:, 0].max())) // k) * k)
        y1 = min(h // k * k, -(-int(np.ceil(px[:, 1].max())) // k) * k)
        return (x0, y0, x1, y1)

    def grey(self, frame: Image) -> Image:
        """The zones' box of a frame (colour or grey), grey, reduced and, when noisy,
        smoothed: what is read."""
        x0, y0, x1, y1 = self.roi
        box = frame[y0:y1, x0:x1]
        gray: Image = box if box.ndim == 2 else np.asarray(cv2.cvtColor(box, cv2.COLOR_BGR2GRAY))
        if self.reduce > 1:
            k = self.reduce
            size = ((x1 - x0) // k, (y1 - y0) // k)
            gray = np.asarray(cv2.resize(gray, size, interpolation=cv2.INTER_AREA))
        if noise_level(gray) >= NOISY_GREY:  # denoise only where needed (see NOISY_GREY)
            self.smoothed += 1
            gray = np.asarray(cv2.GaussianBlur(gray, (3, 3), 0))
        return np.ascontiguousarray(gray)

    def sightings(self, frame: Image) -> list[Sighting]:
        """Every marker in the zones' box, corners in full-frame pixels."""
        x0, y0, _, _ = self.roi
        k = self.reduce
        gray = self.grey(frame)
        foreign: list[Sighting] = []
        if isinstance(self.family, ArucoFamily):
            found, rejected, foreign = self.family.read_all(gray)
            if self.decoder is None:
                rejected = np.zeros((0, 4, 2), np.float32)
        else:
            found, rejected = self.family.read(gray), np.zeros((0, 4, 2), np.float32)
        # A reduced pixel's centre (i, j) is the full frame's (k*i + (k-1)/2, ...).
        offset = np.array([x0 + (k - 1) / 2, y0 + (k - 1) / 2], np.float32)
        first = [Sighting(s.marker, s.corners * k + offset, s.confidence) for s in found]
        self.foreign_sightings = [Sighting(s.marker, s.corners * k + offset) for s in foreign]
        if len(rejected) == 0:
            return first
        return first + self._second_look(gray, rejected, first, offset, frame)

    def full_size(self, frame: Image) -> Image:
        """The zones' box of a frame, grey, at full size (a view of a grey frame)."""
        x0, y0, x1, y1 = self.roi
        box = frame[y0:y1, x0:x1]
        return box if box.ndim == 2 else np.asarray(cv2.cvtColor(box, cv2.COLOR_BGR2GRAY))

    def _second_look(
        self,
        gray: Image,
        rejected: Quads,
        first: list[Sighting],
        offset: npt.NDArray[np.float32],
        frame: Image | None = None,
    ) -> list[Sighting]:
        """Markers read by the finer decode from the outlines the first pass rejected
        (``rejected`` in px of ``gray``), in full-frame px. Only outlines of a card
        marker's size on the table, not on a marker already read, are decoded; a
        *maybe* read is kept only when another read of its card agrees where it lies.
        A frame read reduced is decoded at full size when it is given: the finer
        sampling is the point, and it costs only where an outline is decoded."""
        assert self.decoder is not None
        if len(rejected) == 0:
            return []
        k = self.reduce
        full = rejected * k + offset
        mm = image_to_table(self.calibration, full.reshape(-1, 2)).reshape(-1, 4, 2)
        plausible = _size_error(mm) <= SECOND_SIZE_TOLERANCE
        if first and plausible.any():
            centres = full.mean(axis=1)
            side = np.linalg.norm(full - np.roll(full, -1, axis=1), axis=2).mean(axis=1)
            known = np.array([s.corners.mean(axis=0) for s in first], np.float32)
            near = np.linalg.norm(centres[:, None] - known[None], axis=2).min(axis=1)
            plausible &= near > 0.5 * side
        if not plausible.any():
            return []
        self.second_looks += int(plausible.sum())
        if frame is not None and k > 1:
            box = np.array(self.roi[:2], np.float32)
            decoded = self.decoder.read(self.full_size(frame), full[plausible] - box)
            k, offset = 1, box
        else:
            decoded = self.decoder.read(gray, rejected[plausible])
        # One read per marker: the best fit among outlines found on the same spot.
        decoded.sort(key=lambda d: (not d.sure, d.fit))
        kept: list[Sighting] = []
        maybes: list[Sighting] = []
        taken: list[tuple[float, float, float]] = []  # centres and half sides
        others: list[Sighting] = []
        for d in decoded:
            corners = np.asarray(d.corners * k + offset, np.float32)
            cx, cy = (float(v) for v in corners.mean(axis=0))
            if any(abs(cx - x) < r and abs(cy - y) < r for x, y, r in taken):
                continue
            taken.append((cx, cy, 0.5 * float(np.abs(corners[0] - corners[1]).max())))
            sighting = Sighting(d.marker, corners, SURE_CONFIDENCE if d.sure else MAYBE_CONFIDENCE)
            if not (0 <= d.marker < 24 or d.marker in FIDUCIALS):
                if d.sure:  # another deck's marker, surely read
                    others.append(sighting)
                continue
            (kept if d.sure else maybes).append(sighting)
        self.foreign_sightings += others
        # The two markers of a card vote: a maybe needs its card's other marker read
        # (by the first pass, surely, or as a maybe too) placing the card where it does.
        return kept + [m for m in maybes if self._agreed(m, first + kept + maybes)]

    def _agreed(self, maybe: Sighting, others: list[Sighting]) -> bool:
        """Whether another marker of the maybe's card places the card within ``AGREE_MM``
        of where the maybe does (another marker: more than a side away, not the maybe's
        own outline found twice; a card's two markers are two sides apart)."""
        if maybe.marker in FIDUCIALS:
            return False
        centre = maybe.corners.mean(axis=0)
        apart = float(np.linalg.norm(maybe.corners[0] - maybe.corners[1]))
        same = [
            s
            for s in others
            if s.marker == maybe.marker
            and float(np.linalg.norm(s.corners.mean(axis=0) - centre)) > apart
        ]
        if not same:
            return False
        corners = np.array([maybe.corners, *(s.corners for s in same)], np.float64)
        mm = image_to_table(self.calibration, corners.reshape(-1, 2)).reshape(-1, 4, 2)
        centres = card_centres(mm)
        return bool((np.linalg.norm(centres[1:] - centres[0], axis=1) <= AGREE_MM).any())

    def read(self, frame: Image) -> list[CardSeen]:
        """The cards in a frame, one entry per card (both its markers combined); the
        cards that are none of this deck's are left in ``foreign``, those of the other
        marker family among them in the frames it is looked for in."""
        cards = self.cards(self.sightings(frame))
        self.foreign = self.foreign_cards(self.foreign_sightings)
        if self.other is not None and self.other.due():
            self.foreign += self.other_cards(frame, cards)
        return cards

    def other_cards(self, frame: Image, cards: list[CardSeen]) -> list[ForeignSeen]:
        """The cards of the other marker family in a frame (other_family.py), as cards
        none of this deck's, with their family: looked for in the zones' box at full
        size, leaving out the cards read in it (``cards``) and the markers of this
        family already listed apart."""
        assert self.other is not None
        box = np.ascontiguousarray(self.full_size(frame))
        x0, y0 = self.roi[:2]
        if self.other.printing is Printing.ARUCO:
            offset = np.array([x0, y0], np.float32)
            found = [Sighting(s.marker, s.corners + offset) for s in self.other.aruco_markers(box)]
            return [replace(f, family=Printing.ARUCO) for f in self.foreign_cards(found)]
        read = [(c.x, c.y) for c in cards] + [(f.x, f.y) for f in self.foreign]
        out = []
        for q in self.other.qr_cards(box, (x0, y0), read):
            outline = tuple((float(a), float(b)) for a, b in q.outline)
            zone = placed(self._zones.shares(outline))
            out.append(ForeignSeen(q.marker, q.x, q.y, zone, outline, Printing.QR))
        return out

    def foreign_cards(self, sightings: list[Sighting]) -> list[ForeignSeen]:
        """Markers that are none of this deck's, of a card marker's size on the table:
        where the card carrying each lies, as if it were one of this deck's (one entry
        per marker read: a foreign card's two markers are two entries near each other)."""
        if not sightings:
            return []
        corners = np.array([s.corners for s in sightings], np.float64).reshape(-1, 2)
        mm = image_to_table(self.calibration, corners).reshape(-1, 4, 2)
        keep = self._true_size(mm)
        out: list[ForeignSeen] = []
        for s, centre, k in zip(sightings, card_centres(mm).tolist(), keep.tolist(), strict=True):
            if not k:
                continue
            x, y = centre
            outline = card_outline((x, y), self._across([s]))
            out.append(ForeignSeen(s.marker, x, y, placed(self._zones.shares(outline)), outline))
        return out

    def cards(self, sightings: list[Sighting]) -> list[CardSeen]:
        """The cards among a frame's sightings: markers of the wrong size dropped, a
        card's two markers combined, each placed on the table and in its zone."""
        found = [s for s in sightings if s.marker not in FIDUCIALS]
        if not found:
            return []
        corners = np.array([s.corners for s in found], np.float64).reshape(-1, 2)
        mm = image_to_table(self.calibration, corners).reshape(-1, 4, 2)
        keep = self._true_size(mm)
        # The card's centre from its marker's corners on the table: exact for a flat card.
        centres = card_centres(mm[keep]).tolist()
        cards = sorted(
            zip([s for s, k in zip(found, keep.tolist(), strict=True) if k], centres, strict=True),
            key=lambda p: p[0].marker,
        )
        groups: list[list[Sighting]] = []
        points: list[tuple[float, float]] = []
        for _, run in itertools.groupby(cards, lambda p: p[0].marker):
            # The markers of one card place it at one spot; readings of a code at two
            # spots are two cards (a copy, or another deck's): kept apart, one each.
            for pairs in _same_card(list(run)):
                xs = [c[0] for _, c in pairs]
                ys = [c[1] for _, c in pairs]
                groups.append([s for s, _ in pairs])
                points.append((sum(xs) / len(xs), sum(ys) / len(ys)))
        return [self._seen(g, x, y) for g, (x, y) in zip(groups, points, strict=True)]

    @staticmethod
    def _true_size(mm: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
        """Which markers (their corners in table mm, N x 4 x 2) measure on the table what
        a card's marker is printed: sides and diagonals within ``SIZE_TOLERANCE`` of
        ``MARKER_MM``.

        A marker lying flat on the table always does (within 20% at p99.9 on the
        synthetic table, with blur and hands); the only misreads seen over 100,000
        sightings were outlines 56-63% off (bench/vision.py, section 3): something
        other than a card's marker, read as one."""
        return np.asarray(_size_error(mm) <= SIZE_TOLERANCE)

    def _seen(self, sightings: list[Sighting], x: float, y: float) -> CardSeen:
        """The card of a group of sightings, centred at (x, y) mm: its outline on the
        table (from its markers' top edges), the share of it in each zone, how far its
        centre lies inside the zone of the largest share, and the zone holding it
        (zones.py: by its share, or by its centre when no other zone touches it)."""
        corners = tuple((a, b) for a, b in sightings[0].corners.tolist())
        confidence = min(1.0, 0.5 * len(sightings) + 0.5 * max(s.confidence for s in sightings))
        outline = card_outline((x, y), self._across(sightings))
        shares = self._zones.shares(outline)
        inside = self._zones.inside_mm(x, y, shares[0][0]) if shares else None
        zone = placed(shares, inside)
        on_line = across_line(shares, inside)
        card = Card(sightings[0].marker)
        return CardSeen(
            card, zone, x, y, corners, len(sightings), confidence, on_line, shares, outline, inside
        )

    def _across(self, sightings: list[Sighting]) -> tuple[float, float]:
        """The direction of the card's short side on the table: its markers' top and
        bottom edges (the second marker's turned half round: the same line)."""
        px = np.concatenate([s.corners for s in sightings]).astype(np.float64)
        mm = image_to_table(self.calibration, px).tolist()
        dx = dy = 0.0
        for k in range(0, len(mm), 4):
            (ax, ay), (bx, by), (cx, cy), (ex, ey) = mm[k : k + 4]
            ux, uy = bx - ax + cx - ex, by - ay + cy - ey  # top edge + bottom edge
            if ux * dx + uy * dy < 0:  # the second marker, turned half round
                ux, uy = -ux, -uy
            dx, dy = dx + ux, dy + uy
        return (dx, dy)
