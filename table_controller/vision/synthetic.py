"""A synthetic card table seen by a camera: frames with their ground truth.

Tests, the demo and the benchmarks use this instead of a real table. A scene is a felt
mat with the four corner fiducials printed where :mod:`layout` says, seen by a pinhole
:class:`Camera` hung about a metre above it, with cards (faces from
:func:`deck.render_card`) laid at given or random poses, stacked if asked, hands covering
some of them, and camera effects (blur, glare, uneven light, noise, JPEG), each with its
own knob. :meth:`TableRenderer.render` returns the BGR frame *and* the truth: every
card's pose, zone and corners in the image, and for every marker whether it can be seen.

Everything random comes from a ``numpy.random.Generator`` seeded from the scene, so a
scene renders to the same pixels every time. Card faces, the mat and the background are
cached, so a 1280x720 frame with eight cards takes tens of milliseconds.

Coordinates: table millimetres as in :mod:`layout` (x East, y South, origin at the mat's
centre; heights are positive upwards in this module's API). Image pixels have their
centres at integer coordinates, as OpenCV's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from table_controller.cards import DECK, Card
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.seats import Seat
from table_controller.vision.deck import marker_boxes, render_card
from table_controller.vision.layout import (
    CARD_H,
    CARD_W,
    MAT_HALF,
    Zone,
    default_zones,
    fiducial_corners,
    fiducial_positions,
)
from table_controller.vision.markers import FIDUCIALS, MarkerFamily, family

if TYPE_CHECKING:
    from table_controller.vision.optics import Sensor

Bgr = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

SHEET_MM = 100.0  # the fiducial's corner sheet, cut square, laid in the mat's corner
BASE_PPM = 8.0  # card faces are drawn at this many px/mm, then shrunk to what a frame needs
SEAT_BEARING = {Seat.N: 0.0, Seat.E: 90.0, Seat.S: 180.0, Seat.W: 270.0}
SEAT_ANGLE = {Seat.S: 0.0, Seat.W: 90.0, Seat.N: 180.0, Seat.E: 270.0}  # card upright for

_NOISE_SIGMA = 32.0
_NOISE_PAD = 64
_BACKGROUND = -2  # labels in the occlusion map: the table, a hand, a sheet, a card's index
_HAND = -1
_SHEET = -3


# --- the camera ---------------------------------------------------------------------


@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the table.

    ``position`` is where the lens is: x East and y South of the mat's centre and its
    height above the table, in mm. It looks at ``target`` on the table; ``roll_deg`` turns
    it about its own axis (0 keeps North at the top of the image). ``distortion`` holds
    OpenCV's lens coefficients (k1, k2, p1, p2, k3); empty for a perfect lens.
    """

    width: int = 1280
    height: int = 720
    hfov_deg: float = 75.0
    position: tuple[float, float, float] = (0.0, 60.0, 1000.0)
    target: tuple[float, float] = (0.0, 0.0)
    roll_deg: float = 0.0
    distortion: tuple[float, ...] = ()

    @property
    def size(self) -> tuple[int, int]:
        return (self.width, self.height)

    @property
    def focal_px(self) -> float:
        return (self.width / 2) / math.tan(math.radians(self.hfov_deg) / 2)

    def matrix(self) -> Matrix:
        """The camera matrix K (pixel centres at integers)."""
        f = self.focal_px
        return np.array([[f, 0, (self.width - 1) / 2], [0, f, (self.height - 1) / 2], [0, 0, 1]])

    def dist_coeffs(self) -> Matrix:
        return np.array(self.distortion or (0.0,) * 5, np.float64)

    def pose(self) -> tuple[Matrix, Matrix]:
        """(R, t) taking table points (x East, y South, z *down*, mm) to the camera's
        frame (x right, y down, z forward)."""
        return _pose(self)

    def _pose(self) -> tuple[Matrix, Matrix]:
        cx, cy, h = self.position
        centre = np.array([cx, cy, -h], np.float64)
        look = np.array([self.target[0], self.target[1], 0.0]) - centre
        z = look / np.linalg.norm(look)
        south = np.array([0.0, 1.0, 0.0])
        x = np.cross(south, z)
        if np.linalg.norm(x) < 1e-6:
            raise ValueError("the camera must look down at the table, not along it")
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        r = math.radians(self.roll_deg)
        x, y = math.cos(r) * x + math.sin(r) * y, -math.sin(r) * x + math.cos(r) * y
        rot = np.stack([x, y, z])
        return rot, -rot @ centre

    def table_to_image(self) -> Matrix:
        """The homography from table mm to (undistorted) image px."""
        return _table_to_image(self)

    def _table_to_image(self) -> Matrix:
        rot, t = self.pose()
        hom = self.matrix() @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return np.asarray(hom / hom[2, 2])

    def image_to_table(self) -> Matrix:
        """The true homography from (undistorted) image px to table mm: what a
        calibration should find."""
        inv = np.linalg.inv(self.table_to_image())
        return np.asarray(inv / inv[2, 2])

    def project(self, points: npt.ArrayLike, height: float = 0.0) -> Points:
        """Image px of table points (N x 2 in mm, at ``height`` mm above the table, or
        N x 3 with the height as third column), through the lens's distortion."""
        pts = np.asarray(points, np.float64).reshape(-1, np.shape(points)[-1])
        if pts.shape[1] == 2:
            pts = np.column_stack([pts, np.full(len(pts), height)])
        world = pts * np.array([1.0, 1.0, -1.0])  # heights up -> z down
        rot, t = self.pose()
        rvec, _ = cv2.Rodrigues(rot)
        img, _ = cv2.projectPoints(world, rvec, t, self.matrix(), self.dist_coeffs())
        return np.asarray(img, np.float64).reshape(-1, 2)

    def px_per_mm(self, at: tuple[float, float] = (0.0, 0.0)) -> float:
        """The image's scale at a table point, px per mm (the geometric mean of both axes)."""
        x, y = at
        p = _apply(self.table_to_image(), np.array([[x, y], [x + 1, y], [x, y + 1]]))
        jac = np.column_stack([p[1] - p[0], p[2] - p[0]])
        return float(math.sqrt(abs(np.linalg.det(jac))))

    def sees(self, points: npt.ArrayLike, margin: float = 0.0) -> bool:
        """Whether every table point lands inside the image (``margin`` px in)."""
        p = self.project(points)
        lo, hi = margin, np.array([self.width - 1, self.height - 1]) - margin
        return bool(((p >= lo) & (p <= hi)).all())


@lru_cache(maxsize=64)
def _pose(camera: Camera) -> tuple[Matrix, Matrix]:
    return camera._pose()


@lru_cache(maxsize=64)
def _table_to_image(camera: Camera) -> Matrix:
    return camera._table_to_image()


def realistic_cameras() -> tuple[Camera, ...]:
    """A few camera mountings as found on real tables: centred, off to a side, higher,
    turned a little, tilted from the edge of the table. All see the four fiducials."""
    return (
        Camera(),
        Camera(position=(-80.0, 110.0, 1000.0), target=(-10.0, 15.0), roll_deg=2.0),
        Camera(position=(110.0, -70.0, 1100.0), target=(15.0, -10.0), roll_deg=-3.0),
        Camera(position=(0.0, 330.0, 980.0), target=(0.0, 20.0), hfov_deg=82.0),
        Camera(width=1920, height=1080, position=(30.0, 40.0, 950.0), roll_deg=1.0),
    )


def _apply(hom: Matrix, points: npt.ArrayLike) -> Points:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, hom), np.float64).reshape(-1, 2)


# --- what is on the table ----------------------------------------------------------


@dataclass(frozen=True)
class CardPlacement:
    """A card on the table: its centre (mm), its turn (degrees clockwise seen from
    above; 0 is upright for South, 180 for North), face up or down, and the zone it was
    laid in (None: whatever zone holds its centre)."""

    card: Card
    x: float
    y: float
    angle: float = 0.0
    face_up: bool = True
    zone: str | None = None
    marker: int | None = None  # another marker printed on it: a card of another deck
    family: str | None = None  # printed in another marker family: another deck's (a QR deck)

    def corners_mm(self) -> Points:
        """The card's corners in table mm, clockwise from its top-left as printed."""
        return _to_table(self, _CARD_BOX)


_CARD_BOX = np.array([[0.0, 0.0], [CARD_W, 0.0], [CARD_W, CARD_H], [0.0, CARD_H]])


def _card_to_table(p: CardPlacement) -> Matrix:
    """Affine 3x3 from card mm (origin at its top-left corner, as printed) to table mm."""
    a = math.radians(p.angle)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    move = np.array([[1.0, 0.0, p.x], [0.0, 1.0, p.y], [0.0, 0.0, 1.0]])
    centre = np.array([[1.0, 0.0, -CARD_W / 2], [0.0, 1.0, -CARD_H / 2], [0.0, 0.0, 1.0]])
    return np.asarray(move @ rot @ centre)


def _to_table(p: CardPlacement, card_mm: Points) -> Points:
    m = _card_to_table(p)
    pts = np.column_stack([card_mm, np.ones(len(card_mm))]) @ m.T
    return np.asarray(pts[:, :2])


@dataclass(frozen=True)
class Hand:
    """A hand (and forearm) over the table, coming from a compass bearing (0 North, 90
    East, 180 South, 270 West; None: from the seat of the card's zone).

    Over a card (``over``: its index in the scene or its code) it covers ``fraction`` of
    the card's area, fingertips first. Otherwise its fingertips are ``at`` (table mm).

    ``motion_px``: the hand moves this far (image px, x and y) while the shutter is
    open, so it and the card it is laying (``over``) are blurred along it; the rest of
    the frame stays sharp. ``finger``: a single pointing finger reaches over the card
    (the other fingers curled back), a narrow cover. ``shadow``: depth 0-1 of the
    soft shadow the arm casts beside itself under a lamp off to one side.
    """

    over: int | str | None = None
    fraction: float = 0.5
    from_deg: float | None = None
    at: tuple[float, float] | None = None
    skin: int | None = None  # an index into SKIN, None for a random one
    motion_px: tuple[float, float] = (0.0, 0.0)
    finger: bool = False
    shadow: float = 0.0


@dataclass(frozen=True, eq=False)
class Sheet:
    """A flat printed sheet held anywhere in view, e.g. the ChArUco board for lens
    calibration: ``image`` (grey or BGR) ``size_mm`` wide and high, its centre at
    ``centre`` (x, y, height above the table, mm), turned by ``rotation`` (degrees about
    the table's x, y and z axes, applied in that order)."""

    image: npt.NDArray[np.uint8]
    size_mm: tuple[float, float]
    centre: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class Effects:
    """Camera effects, each off at its default. Lengths are image pixels.

    blur: defocus (Gaussian sigma); motion/motion_deg: motion blur length and direction;
    glare: strength 0-1 of ``glare_spots`` bright specular blobs about ``glare_px`` in
    radius, at random or at ``glare_at`` (table mm); lighting: 0-1 depth of uneven light
    (a gradient and darker edges); cast: RGB gains (a colour cast); exposure: overall
    gain; noise: sensor noise sigma in grey levels; jpeg: JPEG quality (0: none).
    """

    blur: float = 0.0
    motion: float = 0.0
    motion_deg: float = 0.0
    glare: float = 0.0
    glare_spots: int = 2
    glare_px: float = 35.0
    glare_at: tuple[tuple[float, float], ...] = ()
    lighting: float = 0.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    exposure: float = 1.0
    noise: float = 0.0
    jpeg: int = 0

    @classmethod
    def realistic(cls) -> Effects:
        """A decent camera under club lighting: slightly soft, a little noise, JPEG."""
        return cls(blur=0.6, lighting=0.25, cast=(1.04, 1.0, 0.94), noise=2.5, jpeg=90)

    @classmethod
    def harsh(cls) -> Effects:
        """A poor camera in a bar: soft, moving, glare, dim and noisy, heavy JPEG."""
        return cls(
            blur=1.1,
            motion=3.0,
            motion_deg=20.0,
            glare=0.8,
            lighting=0.5,
            cast=(1.12, 1.0, 0.82),
            exposure=0.85,
            noise=6.0,
            jpeg=70,
        )


@dataclass(frozen=True)
class Scene:
    """Everything in one frame: cards (drawn in order, later ones on top), hands, the
    camera and its effects, the seed of everything random, and any sheets held up.

    ``sensor``: the camera module and its processor (:mod:`optics`); None keeps the
    old pipeline (``effects`` alone). With a sensor, ``effects`` gives the venue and the
    moment (lighting, exposure, glare, blur, shake) and the sensor the rest."""

    cards: tuple[CardPlacement, ...] = ()
    hands: tuple[Hand, ...] = ()
    camera: Camera = field(default_factory=Camera)
    effects: Effects = field(default_factory=Effects)
    seed: int = 0
    sheets: tuple[Sheet, ...] = ()
    sensor: Sensor | None = None


# --- the truth ----------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MarkerTruth:
    """One printed marker in a frame: its corners in image px (clockwise from the
    marker's top-left, the order a detector reports), whether all of it is inside the
    frame, and how much of it is hidden by cards above it or hands."""

    marker: int
    corners: Points
    in_frame: bool
    occluded: float

    @property
    def visible(self) -> bool:
        """Wholly in the frame and not covered at all."""
        return self.in_frame and self.occluded == 0.0

    @property
    def center(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))


@dataclass(frozen=True, eq=False)
class CardTruth:
    """A card in a frame: where it lies (table mm, degrees), its zone, its corners in
    image px (clockwise from its top-left as printed), how much of it is covered, and
    its markers (none when it lies face down)."""

    card: Card
    zone: str | None
    x: float
    y: float
    angle: float
    face_up: bool
    corners: Points
    covered: float
    markers: tuple[MarkerTruth, ...]

    @property
    def code(self) -> str:
        return self.card.code

    @property
    def readable(self) -> bool:
        """At least one of its markers can be seen whole."""
        return any(m.visible for m in self.markers)


@dataclass(frozen=True, eq=False)
class Rendered:
    """A rendered frame (BGR) and its truth."""

    image: Bgr
    cards: tuple[CardTruth, ...]
    fiducials: dict[int, MarkerTruth]
    camera: Camera
    scene: Scene

    @property
    def homography(self) -> Matrix:
        """The true image px -> table mm homography (for undistorted pixels)."""
        return self.camera.image_to_table()

    def card(self, code: str) -> CardTruth:
        for c in self.cards:
            if c.code == code:
                return c
        raise KeyError(code)


# --- placing cards ------------------------------------------------------------------


def zone_named(name: str, zones: Sequence[Zone] | None = None) -> Zone:
    for z in zones or default_zones():
        if z.name == name:
            return z
    names = ", ".join(z.name for z in zones or default_zones())
    raise ValueError(f"no zone {name!r}; zones: {names}")


def _zone_seat_angle(zone: Zone) -> float | None:
    return None if zone.seat is None else SEAT_ANGLE[zone.seat]


def place(
    card: Card | str,
    zone: Zone | str,
    rng: np.random.Generator,
    *,
    angle: float | None = None,
    jitter_deg: float = 12.0,
    face_up: bool = True,
    zones: Sequence[Zone] | None = None,
) -> CardPlacement:
    """A card laid at a random spot in a zone (its centre inside, kept a little from the
    zone's edges), turned towards the zone's seat give or take ``jitter_deg``; in the
    kitty at any angle."""
    c = card if isinstance(card, Card) else Card.parse(card)
    z = zone if isinstance(zone, Zone) else zone_named(zone, zones)
    poly = np.array(z.polygon, np.float64)
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    inset = np.minimum((hi - lo) * 0.25, 25.0)
    for _ in range(100):
        x, y = rng.uniform(lo + inset, hi - inset)
        if z.contains(x, y):
            break
    base = _zone_seat_angle(z)
    if angle is None:
        if base is None:
            angle = float(rng.uniform(0.0, 360.0))
        else:
            angle = base + float(rng.normal(0.0, jitter_deg))
    return CardPlacement(c, float(x), float(y), float(angle) % 360.0, face_up, z.name)


def pile(
    cards: Iterable[Card | str],
    zone: Zone | str,
    rng: np.random.Generator,
    *,
    spread_mm: float = 14.0,
    face_up: bool = True,
    zones: Sequence[Zone] | None = None,
) -> tuple[CardPlacement, ...]:
    """Cards stacked in a zone, each a little off the one below (a trick, or a pile)."""
    cards = list(cards)
    if not cards:
        return ()
    first = place(cards[0], zone, rng, face_up=face_up, zones=zones)
    out = [first]
    for c in cards[1:]:
        dx, dy = rng.normal(0.0, spread_mm, 2)
        turn = first.angle + float(rng.normal(0.0, 8.0))
        card = c if isinstance(c, Card) else Card.parse(c)
        out.append(CardPlacement(card, first.x + dx, first.y + dy, turn % 360, face_up, first.zone))
    return tuple(out)


def random_scene(
    rng: np.random.Generator,
    n_cards: int = 8,
    *,
    stacked: float = 0.0,
    hands: int = 0,
    hand_fraction: tuple[float, float] = (0.2, 0.6),
    camera: Camera | None = None,
    effects: Effects | None = None,
    zones: Sequence[Zone] | None = None,
    seed: int | None = None,
) -> Scene:
    """A table as found mid-hand: ``n_cards`` different cards, the first four in the
    seats' play zones, then the kitty, then trick piles; each later card lies on top of
    an earlier one with probability ``stacked``; ``hands`` hands each cover a random
    fraction of a random card."""
    zs = list(zones or default_zones())
    play = [z for z in zs if z.kind == "play"]
    others = [z for z in zs if z.kind != "play"]
    order = play + others
    codes = rng.permutation(len(DECK))[:n_cards]
    cards: list[CardPlacement] = []
    for i, code in enumerate(codes):
        card = DECK[int(code)]
        if cards and rng.random() < stacked:
            under = cards[int(rng.integers(len(cards)))]
            dx, dy = rng.uniform(-0.45, 0.45) * CARD_W, rng.uniform(-0.4, 0.4) * CARD_H
            angle = under.angle + float(rng.normal(0.0, 15.0))
            cards.append(
                CardPlacement(card, under.x + dx, under.y + dy, angle % 360, True, under.zone)
            )
        else:
            cards.append(place(card, order[i % len(order)], rng, zones=zs))
    hand_list = []
    for _ in range(min(hands, len(cards))):
        target = int(rng.integers(len(cards)))
        hand_list.append(Hand(over=target, fraction=float(rng.uniform(*hand_fraction))))
    return Scene(
        tuple(cards),
        tuple(hand_list),
        camera or Camera(),
        effects or Effects(),
        seed=int(rng.integers(2**31)) if seed is None else seed,
    )


# --- textures -----------------------------------------------------------------------

# Skin tones (BGR), light to dark.
SKIN = (
    (173, 206, 245),
    (130, 175, 230),
    (105, 150, 205),
    (75, 115, 175),
    (50, 80, 130),
    (35, 55, 90),
)


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell: int) -> np.ndarray:
    """Smooth random field in [-1, 1], features about ``cell`` px across."""
    h, w = shape
    small = rng.uniform(-1.0, 1.0, (max(2, h // cell + 2), max(2, w // cell + 2)))
    big = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return np.clip(big, -1.0, 1.0)


def _wood(rng: np.random.Generator, size: int = 1024) -> Bgr:
    """A wooden table top, 1 px per mm, tileable enough when mirrored."""
    yy = np.mgrid[0:size, 0:size][0].astype(np.float32)
    warp = _smooth_noise(rng, (size, size), 220) * 14 + _smooth_noise(rng, (size, size), 45) * 3
    grain = np.sin((yy + warp) * 0.22) * (0.5 + 0.5 * _smooth_noise(rng, (size, size), 120))
    fine = rng.normal(0.0, 1.0, (size, size)).astype(np.float32)
    fine = np.asarray(cv2.GaussianBlur(fine, (0, 0), sigmaX=9.0, sigmaY=0.6), np.float32)
    fine /= max(1e-6, float(fine.std()))
    tone = 0.8 + 0.06 * grain + 0.05 * fine + 0.06 * _smooth_noise(rng, (size, size), 300)
    base = np.array([55, 95, 140], np.float32)  # BGR brown
    return np.asarray(np.clip(tone[..., None] * base, 0, 255), np.uint8)


def _surface(name: str, rng: np.random.Generator, size: int = 1024) -> Bgr:
    """The table around the mat, 1 px per mm: wood, felt, or a photographic clutter of
    things left on a wooden table (paper, score pads, cups, a phone, coins)."""
    if name == "wood":
        return _wood(rng, size)
    if name == "felt":
        colour = np.array([90, 40, 30], np.float32)  # BGR: a navy card-room felt
        blotch = _smooth_noise(rng, (size, size), 80)
        fibre = rng.normal(0.0, 1.0, (size, size)).astype(np.float32)
        fibre = np.asarray(cv2.GaussianBlur(fibre, (0, 0), 0.8), np.float32)
        fibre /= max(1e-6, float(fibre.std()))
        tone = 1.0 + 0.08 * blotch + 0.07 * fibre
        return np.asarray(np.clip(tone[..., None] * colour, 0, 255), np.uint8)
    img = _wood(rng, size)
    mat_lo, mat_hi = size / 2 - MAT_HALF - 10, size / 2 + MAT_HALF + 10

    def spot() -> tuple[int, int]:
        while True:  # somewhere off the mat
            x, y = rng.uniform(0, size, 2)
            if not (mat_lo < x < mat_hi and mat_lo < y < mat_hi):
                return int(x), int(y)

    for _ in range(int(rng.integers(10, 16))):
        kind = int(rng.integers(5))
        cx, cy = spot()
        if kind == 0:  # a sheet of paper or a score pad, ruled
            w, h = rng.uniform(80, 210), rng.uniform(100, 297)
            box = cv2.boxPoints(((cx, cy), (w, h), float(rng.uniform(0, 180))))
            cv2.fillConvexPoly(img, box.astype(np.int32), (235, 240, 242), cv2.LINE_AA)
            for k in range(1, int(h // 9)):
                a, b = (
                    box[0] + (box[1] - box[0]) * k * 9 / h,
                    box[3] + (box[2] - box[3]) * k * 9 / h,
                )
                cv2.line(img, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), (180, 150, 120), 1)
        elif kind == 1:  # a cup or a glass, seen from above
            r = int(rng.uniform(35, 50))
            cup = [float(v) for v in rng.integers(30, 230, 3)]
            cv2.circle(img, (cx, cy), r, cup, -1, cv2.LINE_AA)
            cv2.circle(img, (cx, cy), r - 6, (30, 50, 70), -1, cv2.LINE_AA)
            cv2.circle(img, (cx - r // 3, cy - r // 3), r // 5, (245, 245, 245), -1, cv2.LINE_AA)
        elif kind == 2:  # a phone
            box = cv2.boxPoints(((cx, cy), (72, 150), float(rng.uniform(0, 180))))
            cv2.fillConvexPoly(img, box.astype(np.int32), (25, 25, 28), cv2.LINE_AA)
        elif kind == 3:  # coins and chips
            for _ in range(int(rng.integers(2, 7))):
                x, y = cx + int(rng.normal(0, 25)), cy + int(rng.normal(0, 25))
                coin = [float(v) for v in rng.integers(40, 220, 3)]
                cv2.circle(img, (x, y), int(rng.uniform(9, 20)), coin, -1, cv2.LINE_AA)
        else:  # a beer mat with printing
            r = int(rng.uniform(45, 55))
            cv2.circle(img, (cx, cy), r, (200, 210, 220), -1, cv2.LINE_AA)
            cv2.putText(
                img,
                "ALE",
                (cx - r // 2, cy + 8),
                cv2.FONT_HERSHEY_SIMPLEX,
                1.0,
                (40, 40, 160),
                3,
                cv2.LINE_AA,
            )
    light = 1.0 + 0.12 * _smooth_noise(rng, (size, size), 400)
    return np.asarray(np.clip(img.astype(np.float32) * light[..., None], 0, 255), np.uint8)


def _mat(
    rng: np.random.Generator,
    ppm: float,
    fam: MarkerFamily,
    colour: tuple[int, int, int],
    zones: Sequence[Zone],
    printed_zones: bool,
) -> Bgr:
    """The 800 mm felt mat at ``ppm`` px/mm with the corner sheets laid on it."""
    n = round(2 * MAT_HALF * ppm)
    felt = np.empty((n, n, 3), np.float32)
    felt[:] = np.array(colour, np.float32)
    blotch = _smooth_noise(rng, (n, n), max(8, round(60 * ppm)))
    noise = rng.normal(0.0, 1.0, (n, n)).astype(np.float32)
    fibre = np.asarray(cv2.GaussianBlur(noise, (0, 0), 0.6 * ppm), np.float32)
    fibre /= max(1e-6, float(fibre.std()))
    felt *= (1.0 + 0.06 * blotch + 0.05 * fibre)[..., None]
    # A darker bound edge, 6 mm.
    edge = round(6 * ppm)
    felt[:edge] *= 0.7
    felt[-edge:] *= 0.7
    felt[:, :edge] *= 0.7
    felt[:, -edge:] *= 0.7
    img = np.clip(felt, 0, 255).astype(np.uint8)

    def px(pts: npt.ArrayLike) -> np.ndarray:
        return np.round((np.asarray(pts, np.float64) + MAT_HALF) * ppm * 16 - 8).astype(np.int32)

    if printed_zones:
        line = tuple(int(min(255, v * 1.45 + 20)) for v in colour)
        for z in zones:
            cv2.polylines(
                img, [px(z.polygon)], True, line, max(1, round(1.2 * ppm)), cv2.LINE_AA, 4
            )
    paper = (232, 236, 238)
    s = round(SHEET_MM * ppm)
    for marker in FIDUCIALS:
        cx, cy = fiducial_positions()[marker]
        x0 = round((cx + MAT_HALF - SHEET_MM / 2) * ppm)
        y0 = round((cy + MAT_HALF - SHEET_MM / 2) * ppm)
        sheet = np.empty((s, s, 3), np.float32)
        sheet[:] = paper
        sheet *= (1.0 + 0.015 * _smooth_noise(rng, (s, s), max(4, s // 3)))[..., None]
        img[y0 : y0 + s, x0 : x0 + s] = np.clip(sheet, 0, 255).astype(np.uint8)
        corners = fiducial_corners(marker)
        left, top = np.round((corners[0] + MAT_HALF) * ppm).astype(int)
        side = round((corners[1, 0] - corners[0, 0]) * ppm)
        code = fam.image(marker, side)
        ink = np.where(code[..., None] < 128, np.uint8(28), np.array(paper, np.uint8))
        img[top : top + side, left : left + side] = ink
    return img


def _card_back(ppm: float) -> Bgr:
    w, h = round(CARD_W * ppm), round(CARD_H * ppm)
    img = np.full((h, w, 3), 250, np.uint8)
    m = max(1, round(4 * ppm))
    inner = np.full((h - 2 * m, w - 2 * m, 3), (40, 30, 150), np.uint8)
    yy, xx = np.mgrid[0 : h - 2 * m, 0 : w - 2 * m]
    lattice = ((xx + yy) // max(1, round(3 * ppm)) + (xx - yy) // max(1, round(3 * ppm))) % 2 == 0
    inner[lattice] = (70, 60, 190)
    img[m : h - m, m : w - m] = inner
    return img


@lru_cache(maxsize=8)
def _family(name: str) -> MarkerFamily:
    return family(name)


@lru_cache(maxsize=256)
def _face_base(card: int, family_name: str, marker: int | None = None) -> Bgr:
    rgb = render_card(DECK[card], _family(family_name), BASE_PPM, marker)
    return np.ascontiguousarray(rgb[..., ::-1])


@lru_cache(maxsize=1024)
def _face(
    card: int, family_name: str, ppm: float, face_up: bool, marker: int | None = None
) -> tuple[Bgr, np.ndarray]:
    """A card's face (or back) at ``ppm`` px/mm, BGR, and its alpha (rounded corners),
    as float32 arrays ready to warp; ``marker``: printed with that id, not its own."""
    size = (round(CARD_W * ppm), round(CARD_H * ppm))
    if not face_up:
        img = _card_back(ppm)
    elif ppm == BASE_PPM:
        img = _face_base(card, family_name, marker)
    else:
        base = _face_base(card, family_name, marker)
        interp = cv2.INTER_AREA if ppm < BASE_PPM else cv2.INTER_CUBIC
        img = np.asarray(cv2.resize(base, size, interpolation=interp), np.uint8)
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle(
        [0, 0, size[0] - 1, size[1] - 1], radius=max(1, round(3 * ppm)), fill=255
    )
    return img, np.asarray(mask)


@lru_cache(maxsize=8)
def _marker_boxes_mm() -> tuple[tuple[float, float, float], ...]:
    """The card's markers (left, top, side) in card mm, as the faces are drawn."""
    w = round(CARD_W * BASE_PPM)
    scale = CARD_W / w
    return tuple(
        (left * scale, top * scale, side * scale) for left, top, side in marker_boxes(BASE_PPM)
    )


def card_markers_mm(p: CardPlacement) -> list[Points]:
    """The corners (table mm, clockwise from each marker's top-left) of a card's two
    markers: top right, then bottom left, which is printed turned half round."""
    out = []
    for i, (left, top, side) in enumerate(_marker_boxes_mm()):
        box = np.array(
            [[left, top], [left + side, top], [left + side, top + side], [left, top + side]]
        )
        if i == 1:
            box = np.roll(box, 2, axis=0)
        out.append(_to_table(p, box))
    return out


def _capsule(a0: float, b0: float, a1: float, b1: float, r: float) -> Points:
    """A convex capsule from (a0, b0), its round end, to (a1, b1), ``r`` mm wide."""
    d = np.array([a1 - a0, b1 - b0])
    d /= np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    pts = [
        np.array([a0, b0]) + r * (n * math.cos(t) - d * math.sin(t))
        for t in np.linspace(0.0, math.pi, 9)
    ]
    pts += [np.array([a1, b1]) - r * n, np.array([a1, b1]) + r * n]
    return np.array(pts)


# A hand in its own frame (mm): a along the arm from the fingertips, b across.
_HAND_PIECES = [
    *(
        _capsule(tip_a + 8.5, b, 78.0, b * 1.1, 8.5)
        for b, tip_a in ((-27.0, 12.0), (-9.0, 0.0), (9.0, 3.0), (27.0, 15.0))
    ),
    _capsule(52.0, 58.0, 125.0, 36.0, 11.0),  # the thumb
    np.array([(62, -40), (62, 40), (150, 40), (175, 33), (175, -33), (150, -40)], float),
    np.array([(165, -33), (165, 33), (650, 48), (650, -48)], float),
]

# A pointing hand: the index finger out, the others curled under the palm.
_FINGER_PIECES = [
    _capsule(8.5, -9.0, 82.0, -10.0, 8.0),
    *(_capsule(tip_a, b, 85.0, b * 1.1, 9.0) for b, tip_a in ((6.0, 52.0), (22.0, 56.0))),
    _capsule(60.0, 36.0, 125.0, 34.0, 11.0),
    _HAND_PIECES[5],
    _HAND_PIECES[6],
]

SURFACES = ("wood", "felt", "photo")  # what the table around the mat looks like


# --- the renderer -------------------------------------------------------------------


def motion_kernel(dx: float, dy: float) -> npt.NDArray[np.float32]:
    """A motion blur kernel: a line from -(dx, dy)/2 to +(dx, dy)/2 px, summing to 1."""
    length = math.hypot(dx, dy)
    n = max(3, math.ceil(length) | 1)
    kernel = np.zeros((n, n), np.float32)
    c = (n - 1) / 2
    for t in np.linspace(-0.5, 0.5, 4 * n):
        kernel[round(c + t * dy), round(c + t * dx)] += 1
    return np.asarray(kernel / kernel.sum(), np.float32)


@dataclass(frozen=True)
class _Canvas:
    """The undistorted image the scene is drawn on, padded when a lens distortion will
    pull in pixels from beyond the frame's edges."""

    width: int
    height: int
    pad_x: int
    pad_y: int
    table_to_px: Matrix = field(compare=False)


class TableRenderer:
    """Draws scenes. Keep one around: it caches the mat, the backgrounds per camera and
    the card faces, which makes frames cheap."""

    def __init__(
        self,
        marker_family: str = "aruco",
        *,
        mat_colour: tuple[int, int, int] = (60, 105, 38),  # BGR felt green
        mat_seed: int = 7,
        printed_zones: bool = True,
        zones: Sequence[Zone] | None = None,
        surface: str = "wood",
    ) -> None:
        if surface not in SURFACES:
            raise ValueError(f"unknown table surface {surface!r}; surfaces: {', '.join(SURFACES)}")
        self.surface = surface
        self.family_name = marker_family
        self.family = _family(marker_family)
        self.mat_colour = mat_colour
        self.mat_seed = mat_seed
        self.printed_zones = printed_zones
        self.zones = tuple(zones or default_zones())
        self._mats: dict[float, Bgr] = {}
        self._wood: Bgr | None = None
        self._backgrounds: dict[tuple[Any, ...], tuple[_Canvas, Bgr]] = {}
        self._maps: dict[Camera, tuple[np.ndarray, np.ndarray]] = {}
        self._noise: dict[tuple[int, ...], np.ndarray] = {}
        self._fixed: dict[Camera, tuple[np.ndarray, np.ndarray]] = {}

    # -- cached layers

    def _mat(self, ppm: float) -> Bgr:
        if ppm not in self._mats:
            rng = np.random.default_rng([self.mat_seed, round(ppm * 2)])
            self._mats[ppm] = _mat(
                rng, ppm, self.family, self.mat_colour, self.zones, self.printed_zones
            )
        return self._mats[ppm]

    def _canvas(self, camera: Camera) -> _Canvas:
        pad_x = pad_y = 0
        if any(camera.distortion):
            mx, my = self._distortion_maps(camera)
            pad_x = math.ceil(max(0.0, -mx.min(), mx.max() - (camera.width - 1))) + 2
            pad_y = math.ceil(max(0.0, -my.min(), my.max() - (camera.height - 1))) + 2
        shift = np.array([[1.0, 0, pad_x], [0, 1.0, pad_y], [0, 0, 1.0]])
        return _Canvas(
            camera.width + 2 * pad_x,
            camera.height + 2 * pad_y,
            pad_x,
            pad_y,
            shift @ camera.table_to_image(),
        )

    def _distortion_maps(self, camera: Camera) -> tuple[np.ndarray, np.ndarray]:
        """For each pixel of the distorted frame, where it is in the undistorted image."""
        if camera not in self._maps:
            yy, xx = np.mgrid[0 : camera.height, 0 : camera.width].astype(np.float32)
            pts = np.stack([xx.ravel(), yy.ravel()], axis=1).reshape(-1, 1, 2)
            k = camera.matrix()
            crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-4)
            und = cv2.undistortPoints(pts, k, camera.dist_coeffs(), None, None, k, crit)
            und = np.asarray(und, np.float32).reshape(camera.height, camera.width, 2)
            self._maps[camera] = (und[..., 0].copy(), und[..., 1].copy())
        return self._maps[camera]

    def background(self, camera: Camera) -> tuple[_Canvas, Bgr]:
        """The empty table as the camera sees it (undistorted canvas)."""
        key = (
            camera.width,
            camera.height,
            camera.hfov_deg,
            camera.position,
            camera.target,
            camera.roll_deg,
            camera.distortion,
        )
        if key not in self._backgrounds:
            canvas = self._canvas(camera)
            size = (canvas.width, canvas.height)
            if self._wood is None:
                self._wood = _surface(self.surface, np.random.default_rng([self.mat_seed, 1]))
            n = self._wood.shape[0]
            wood_to_table = np.array([[1.0, 0, -n / 2 + 0.5], [0, 1.0, -n / 2 + 0.5], [0, 0, 1]])
            img: Bgr = np.asarray(
                cv2.warpPerspective(
                    self._wood,
                    canvas.table_to_px @ wood_to_table,
                    size,
                    flags=cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT,
                ),
                np.uint8,
            )
            scale = camera.px_per_mm()
            ppm = float(min(4.0, max(1.0, math.ceil(scale * 2.0 * 2) / 2)))
            mat_to_table = np.array(
                [[1 / ppm, 0, 0.5 / ppm - MAT_HALF], [0, 1 / ppm, 0.5 / ppm - MAT_HALF], [0, 0, 1]]
            )
            cv2.warpPerspective(
                self._mat(ppm),
                canvas.table_to_px @ mat_to_table,
                size,
                dst=img,
                flags=cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_TRANSPARENT,
            )
            if len(self._backgrounds) > 16:
                self._backgrounds.pop(next(iter(self._backgrounds)))
            self._backgrounds[key] = (canvas, img)
        return self._backgrounds[key]

    # -- a frame

    def render(self, scene: Scene, seed: int | np.random.Generator | None = None) -> Rendered:
        """The frame and its truth. ``seed`` overrides the scene's seed (e.g. the frame
        number in a sequence, for fresh noise on the same table)."""
        if isinstance(seed, np.random.Generator):
            rng = seed
        else:
            rng = np.random.default_rng([scene.seed if seed is None else seed, 20250])
        camera = scene.camera
        canvas, bg = self.background(camera)
        img = bg.copy()
        labels = np.full((canvas.height, canvas.width), _BACKGROUND, np.int16)
        hom = canvas.table_to_px

        moving = [h for h in scene.hands if any(h.motion_px)]
        laying = {self._hand_card(scene, h) for h in moving}
        polys_px: list[Points | None] = []
        for i, p in enumerate(scene.cards):
            # A card being laid by a moving hand is drawn (blurred) with its hand.
            polys_px.append(None if i in laying else self._draw_card(img, labels, hom, p, i))
        for sheet in scene.sheets:
            self._draw_sheet(img, labels, canvas, camera, sheet)
        for hand in scene.hands:
            if not any(hand.motion_px):
                self._draw_hand(img, labels, hom, scene, hand, rng)
        for hand in moving:
            self._draw_moving(img, labels, hom, scene, hand, rng, polys_px)

        if scene.sensor is None:
            img = self._effects(img, scene.effects, camera, canvas, rng)
        elif not scene.sensor.isp:
            img = self._effects(
                img, scene.sensor.legacy_effects(scene.effects), camera, canvas, rng
            )
        else:
            img = self._sensor_effects(img, scene.effects, scene.sensor, camera, canvas, rng)
        drawn = [p for p in polys_px if p is not None]
        assert len(drawn) == len(polys_px)
        truth = self._truth(scene, labels, hom, canvas, drawn)
        fiducials = {
            m: self._marker_truth(m, fiducial_corners(m), _BACKGROUND, labels, hom, canvas, camera)
            for m in FIDUCIALS
        }
        return Rendered(img, truth, fiducials, camera, scene)

    def _draw_card(
        self, img: Bgr, labels: np.ndarray, hom: Matrix, p: CardPlacement, index: int
    ) -> Points:
        card_to_px = hom @ _card_to_table(p)
        corners = _apply(card_to_px, _CARD_BOX)
        side_px = np.linalg.norm(corners[1] - corners[0]) / CARD_W
        ppm = float(min(BASE_PPM, max(1.0, math.ceil(side_px * 2.0 * 2) / 2)))
        face, alpha = _face(int(p.card), p.family or self.family_name, ppm, p.face_up, p.marker)
        h, w = alpha.shape
        face_to_card = np.array(
            [[CARD_W / w, 0, 0.5 * CARD_W / w], [0, CARD_H / h, 0.5 * CARD_H / h], [0, 0, 1]]
        )
        m = card_to_px @ face_to_card
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 4
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 6
        H, W = labels.shape
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
        if x1 > x0 and y1 > y0:
            roi = (slice(y0, y1), slice(x0, x1))
            size = (x1 - x0, y1 - y0)
            m_roi = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1]]) @ m
            warped = cv2.warpPerspective(
                face, m_roi, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
            )
            a = (
                cv2.warpPerspective(
                    alpha, m_roi, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
                ).astype(np.float32)
                / 255.0
            )
            # A soft shadow down and to the right, then the card.
            shadow = cv2.GaussianBlur(np.roll(a, (2, 1), axis=(0, 1)), (0, 0), 1.5)
            region = img[roi].astype(np.float32) * (1.0 - 0.35 * shadow)[..., None]
            a3 = a[..., None]
            region = region * (1.0 - a3) + warped.astype(np.float32) * a3
            img[roi] = np.clip(region + 0.5, 0, 255).astype(np.uint8)
        cv2.fillConvexPoly(labels, np.round(corners * 16).astype(np.int32), index, cv2.LINE_8, 4)
        return corners

    def _draw_sheet(
        self, img: Bgr, labels: np.ndarray, canvas: _Canvas, camera: Camera, sheet: Sheet
    ) -> None:
        rx, ry, rz = (math.radians(a) for a in sheet.rotation)
        r_sheet = (
            cv2.Rodrigues(np.array([0.0, 0.0, rz]))[0]
            @ cv2.Rodrigues(np.array([0.0, ry, 0.0]))[0]
            @ cv2.Rodrigues(np.array([rx, 0.0, 0.0]))[0]
        )
        cx, cy, ch = sheet.centre
        centre = np.array([cx, cy, -ch])
        rot, t = camera.pose()
        shift = np.array([[1.0, 0, canvas.pad_x], [0, 1.0, canvas.pad_y], [0, 0, 1]])
        plane = np.column_stack([rot @ r_sheet[:, 0], rot @ r_sheet[:, 1], rot @ centre + t])
        sheet_to_px = shift @ camera.matrix() @ plane
        src = (
            sheet.image if sheet.image.ndim == 3 else cv2.cvtColor(sheet.image, cv2.COLOR_GRAY2BGR)
        )
        h, w = src.shape[:2]
        sw, sh = sheet.size_mm
        px_to_sheet = np.array(
            [[sw / w, 0, (0.5 * sw / w) - sw / 2], [0, sh / h, (0.5 * sh / h) - sh / 2], [0, 0, 1]]
        )
        m = sheet_to_px @ px_to_sheet
        size = (canvas.width, canvas.height)
        cv2.warpPerspective(
            src,
            m,
            size,
            dst=img,
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_TRANSPARENT,
        )
        corners = _apply(
            m, np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
        )
        cv2.fillConvexPoly(labels, np.round(corners * 16).astype(np.int32), _SHEET, cv2.LINE_8, 4)

    def _hand_shape(
        self, tip: np.ndarray, toward: np.ndarray, finger: bool = False
    ) -> list[Points]:
        """Convex pieces of a hand (table mm) whose fingertips are at ``tip`` and whose
        arm runs along the unit vector ``toward`` (``finger``: one finger pointing)."""
        side = np.array([-toward[1], toward[0]])
        pieces = _FINGER_PIECES if finger else _HAND_PIECES
        return [tip + piece[:, :1] * toward + piece[:, 1:] * side for piece in pieces]

    def _hand_tip(
        self, scene: Scene, hand: Hand, toward: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Where to put the fingertips so the hand covers ``hand.fraction`` of its card."""
        index = self._hand_card(scene, hand)
        assert index is not None
        p = scene.cards[index]
        centre = np.array([p.x, p.y])
        lateral = np.array([-toward[1], toward[0]]) * float(rng.normal(0.0, 6.0))
        box = _to_table(p, _CARD_BOX)
        reach = float(np.linalg.norm(np.array([CARD_W, CARD_H]))) / 2 + 30.0
        scale = 2.0
        lo = box.min(axis=0) - 1.0
        shape = tuple(np.ceil((box.max(axis=0) + 1.0 - lo) * scale).astype(int))[::-1]

        def raster(polys: list[Points]) -> np.ndarray:
            mask = np.zeros(shape, np.uint8)
            for poly in polys:
                pts = np.round(((poly - lo) * scale) * 16).astype(np.int32)
                cv2.fillConvexPoly(mask, pts, 1, cv2.LINE_8, 4)
            return mask

        card_mask = raster([box]).astype(bool)
        area = max(1, int(card_mask.sum()))

        def covered(tau: float) -> float:
            tip = centre + lateral + tau * toward
            return float(
                (raster(self._hand_shape(tip, toward, hand.finger)).astype(bool) & card_mask).sum()
                / area
            )

        if hand.fraction <= 0:
            return centre + lateral + (reach + 10) * toward
        lo_t, hi_t = -reach - 60.0, reach + 10.0  # covered(lo_t) high, covered(hi_t) = 0
        for _ in range(16):
            mid = (lo_t + hi_t) / 2
            if covered(mid) >= hand.fraction:
                lo_t = mid
            else:
                hi_t = mid
        return centre + lateral + lo_t * toward

    def _hand_card(self, scene: Scene, hand: Hand) -> int | None:
        if hand.over is None:
            return None
        if isinstance(hand.over, str):
            for i, p in enumerate(scene.cards):
                if p.card.code == hand.over.upper():
                    return i
            raise ValueError(f"hand over {hand.over!r}: that card is not in the scene")
        if not 0 <= hand.over < len(scene.cards):
            raise ValueError(f"hand over card {hand.over}: the scene has {len(scene.cards)}")
        return hand.over

    def _draw_hand(
        self,
        img: Bgr,
        labels: np.ndarray,
        hom: Matrix,
        scene: Scene,
        hand: Hand,
        rng: np.random.Generator,
    ) -> None:
        index = self._hand_card(scene, hand)
        bearing = hand.from_deg
        if bearing is None:
            bearing = 180.0
            if index is not None:
                p = scene.cards[index]
                zone = next((z for z in self.zones if z.name == p.zone), None)
                if zone is None:
                    zone = next((z for z in self.zones if z.contains(p.x, p.y)), None)
                if zone is not None and zone.seat is not None:
                    bearing = SEAT_BEARING[zone.seat]
                elif abs(p.x) > abs(p.y):
                    bearing = 90.0 if p.x > 0 else 270.0
                else:
                    bearing = 180.0 if p.y >= 0 else 0.0
        b = math.radians(bearing)
        toward = np.array([math.sin(b), -math.cos(b)])
        if index is not None:
            tip = self._hand_tip(scene, hand, toward, rng)
        elif hand.at is not None:
            tip = np.array(hand.at, np.float64)
        else:
            raise ValueError("a hand needs a card to cover (over=) or a place (at=)")
        shape_mm = self._hand_shape(tip, toward, hand.finger)
        pieces = [_apply(hom, poly) for poly in shape_mm]
        H, W = labels.shape
        if hand.shadow > 0:
            self._arm_shadow(img, hom, shape_mm, toward, hand.shadow)
        allpts = np.concatenate(pieces)
        x0, y0 = np.maximum(np.floor(allpts.min(axis=0)).astype(int) - 12, 0)
        x1, y1 = np.minimum(np.ceil(allpts.max(axis=0)).astype(int) + 12, [W, H])
        if x1 <= x0 or y1 <= y0:
            return
        roi = (slice(y0, y1), slice(x0, x1))
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        hard = np.zeros_like(mask)
        for poly in pieces:
            pts = np.round((poly - [x0, y0]) * 16).astype(np.int32)
            cv2.fillConvexPoly(mask, pts, 255, cv2.LINE_AA, 4)
            cv2.fillConvexPoly(hard, pts, 1, cv2.LINE_8, 4)
        a = mask.astype(np.float32) / 255.0
        shadow = cv2.GaussianBlur(np.roll(a, (6, 4), axis=(0, 1)), (0, 0), 5.0)
        skin = SKIN[hand.skin if hand.skin is not None else int(rng.integers(len(SKIN)))]
        shade = (
            0.9
            + 0.08 * _smooth_noise(rng, a.shape, 24)
            + 0.04 * rng.normal(0.0, 1.0, a.shape).astype(np.float32)
        )
        colour = shade[..., None] * np.array(skin, np.float32)
        region = img[roi].astype(np.float32) * (1.0 - 0.45 * shadow)[..., None]
        region = region * (1.0 - a[..., None]) + colour * a[..., None]
        img[roi] = np.clip(region, 0, 255).astype(np.uint8)
        labels[roi][hard.astype(bool)] = _HAND

    def _arm_shadow(
        self, img: Bgr, hom: Matrix, shape_mm: list[Points], toward: np.ndarray, depth: float
    ) -> None:
        """A soft shadow of the hand and arm cast 45 mm to one side (a lamp off to the
        side and above), drawn before the hand so it falls on the table beside it."""
        side = np.array([-toward[1], toward[0]])
        offset = 45.0 * side + 15.0 * toward
        polys = [_apply(hom, poly + offset) for poly in shape_mm]
        H, W = img.shape[:2]
        soft = 12.0 * float(np.linalg.norm(hom[:2, :2], 2) / max(1e-9, abs(hom[2, 2])))
        soft = max(2.0, min(soft, 40.0))
        pad = int(3 * soft) + 2
        allpts = np.concatenate(polys)
        x0, y0 = np.maximum(np.floor(allpts.min(axis=0)).astype(int) - pad, 0)
        x1, y1 = np.minimum(np.ceil(allpts.max(axis=0)).astype(int) + pad, [W, H])
        if x1 <= x0 or y1 <= y0:
            return
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        for poly in polys:
            pts = np.round((poly - [x0, y0]) * 16).astype(np.int32)
            cv2.fillConvexPoly(mask, pts, 1.0, cv2.LINE_AA, 4)
        mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), soft), np.float32)
        roi = img[y0:y1, x0:x1]
        roi[:] = np.clip(roi.astype(np.float32) * (1.0 - depth * mask)[..., None], 0, 255)

    def _draw_moving(
        self,
        img: Bgr,
        labels: np.ndarray,
        hom: Matrix,
        scene: Scene,
        hand: Hand,
        rng: np.random.Generator,
        polys_px: list[Points | None],
    ) -> None:
        """A hand in motion and the card it lays: drawn on a copy, then blurred along
        ``hand.motion_px`` and laid over what is behind them."""
        behind = img.copy()
        index = self._hand_card(scene, hand)
        if index is not None and polys_px[index] is None:
            polys_px[index] = self._draw_card(img, labels, hom, scene.cards[index], index)
        self._draw_hand(img, labels, hom, scene, hand, rng)
        d = cv2.absdiff(img, behind)  # (a max over 3 channels as numpy's reduce is slow)
        changed = np.maximum(np.maximum(d[..., 0], d[..., 1]), d[..., 2]) > 0
        bx, by, bw, bh = cv2.boundingRect(changed.view(np.uint8))
        if not bw:
            return
        kernel = motion_kernel(*hand.motion_px)
        pad = kernel.shape[0]
        H, W = labels.shape
        x0, y0 = max(0, bx - pad), max(0, by - pad)
        x1, y1 = min(W, bx + bw - 1 + pad + 1), min(H, by + bh - 1 + pad + 1)
        roi = (slice(y0, y1), slice(x0, x1))
        m = changed[roi].astype(np.float32)
        layer = img[roi].astype(np.float32) * m[..., None]
        layer = np.asarray(cv2.filter2D(layer, -1, kernel, borderType=cv2.BORDER_CONSTANT))
        mb = np.asarray(cv2.filter2D(m, -1, kernel, borderType=cv2.BORDER_CONSTANT))
        out = behind[roi].astype(np.float32) * (1.0 - mb)[..., None] + layer
        img[roi] = np.clip(out + 0.5, 0, 255).astype(np.uint8)

    # -- effects

    def _noise_bank(self, shape: tuple[int, ...]) -> np.ndarray:
        """Gaussian noise a little larger than a frame; each frame takes a crop of it at a
        random offset (drawing fresh noise for every pixel would cost more than the
        rest of the frame)."""
        key = tuple(shape)
        if key not in self._noise:
            rng = np.random.default_rng([self.mat_seed, *key])
            size = (shape[0] + _NOISE_PAD, shape[1] + _NOISE_PAD, *shape[2:])
            noise = rng.normal(0.0, _NOISE_SIGMA, size)
            self._noise[key] = np.clip(noise, -127, 127).astype(np.int8)
        return self._noise[key]

    def _effects(
        self, img: Bgr, fx: Effects, camera: Camera, canvas: _Canvas, rng: np.random.Generator
    ) -> Bgr:
        out = self._light(img, fx, canvas, rng)
        if fx.blur > 0:
            out = np.asarray(cv2.GaussianBlur(out, (0, 0), fx.blur), np.uint8)
        if fx.motion > 0:
            n = max(3, math.ceil(fx.motion) | 1)
            kernel = np.zeros((n, n), np.float32)
            c = (n - 1) / 2
            a = math.radians(fx.motion_deg)
            for t in np.linspace(-fx.motion / 2, fx.motion / 2, 4 * n):
                kernel[round(c + t * math.sin(a)), round(c + t * math.cos(a))] += 1
            out = np.asarray(cv2.filter2D(out, -1, kernel / kernel.sum()), np.uint8)
        if any(camera.distortion):
            mx, my = self._distortion_maps(camera)
            bent = cv2.remap(
                out,
                mx + canvas.pad_x,
                my + canvas.pad_y,
                cv2.INTER_LINEAR,
                borderMode=cv2.BORDER_REPLICATE,
            )
            out = np.asarray(bent, np.uint8)
        elif canvas.pad_x or canvas.pad_y:  # pragma: no cover - padding only with distortion
            out = out[
                canvas.pad_y : canvas.pad_y + camera.height,
                canvas.pad_x : canvas.pad_x + camera.width,
            ]
        if fx.noise > 0:
            bank = self._noise_bank(out.shape)
            dy, dx = (int(v) for v in rng.integers(0, _NOISE_PAD, 2))
            crop = bank[dy : dy + out.shape[0], dx : dx + out.shape[1]]
            scale = float(fx.noise) / _NOISE_SIGMA * (1.0 if rng.random() < 0.5 else -1.0)
            out = np.asarray(cv2.addWeighted(out, 1.0, crop, scale, 0.0, dtype=cv2.CV_8U), np.uint8)
        if fx.jpeg:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(fx.jpeg)])
            if ok:
                out = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return np.ascontiguousarray(out)

    def _light(
        self,
        img: Bgr,
        fx: Effects,
        canvas: _Canvas,
        rng: np.random.Generator,
        where: Callable[[Points], Points] | None = None,
    ) -> Bgr:
        """The venue's light: uneven lighting, colour cast and exposure, glare spots
        (``fx.glare_at`` placed by ``where``, table mm -> px of ``img``; the canvas's
        homography by default)."""
        h, w = img.shape[:2]
        out = img
        if fx.lighting > 0 or fx.cast != (1.0, 1.0, 1.0) or fx.exposure != 1.0:
            gy, gx = np.mgrid[0:18, 0:32].astype(np.float32)
            nx, ny = gx / 31 * 2 - 1, gy / 17 * 2 - 1
            angle = rng.uniform(0, 2 * math.pi)
            ramp = nx * math.cos(angle) + ny * math.sin(angle)
            field = 1.0 + fx.lighting * (0.35 * ramp - 0.225 * (nx**2 + ny**2))
            field += fx.lighting * 0.15 * _smooth_noise(rng, (18, 32), 8)
            bgr = np.array(fx.cast[::-1], np.float32) * fx.exposure
            gain = cv2.resize(
                (field[..., None] * bgr).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
            )
            out = np.asarray(cv2.multiply(out, gain, dtype=cv2.CV_8U), np.uint8)
        if fx.glare > 0:
            out = out.copy() if out is img else out
            spots: list[tuple[float, float]] = []
            if fx.glare_at:
                at = np.array(fx.glare_at, np.float64)
                px = where(at) if where is not None else _apply(canvas.table_to_px, at)
                spots = [(float(a), float(b)) for a, b in px]
            else:
                for _ in range(fx.glare_spots):
                    spots.append((rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h))
            for sx, sy in spots:
                r = fx.glare_px * float(rng.uniform(0.7, 1.3))
                ax, ay = r * float(rng.uniform(1.0, 1.8)), r
                theta = float(rng.uniform(0, math.pi))
                x0, x1 = max(0, int(sx - 3 * ax)), min(w, int(sx + 3 * ax) + 1)
                y0, y1 = max(0, int(sy - 3 * ax)), min(h, int(sy + 3 * ax) + 1)
                if x1 <= x0 or y1 <= y0:
                    continue
                yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
                dx, dy = xx - sx, yy - sy
                u = dx * math.cos(theta) + dy * math.sin(theta)
                v = -dx * math.sin(theta) + dy * math.cos(theta)
                blob = np.exp(-0.5 * ((u / ax) ** 2 + (v / ay) ** 2))
                k = np.clip(fx.glare * 1.6 * blob, 0.0, 1.0)[..., None]
                patch = out[y0:y1, x0:x1].astype(np.float32) * (1 - k) + 255.0 * k
                out[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)
        return out

    def _sensor_effects(
        self,
        img: Bgr,
        fx: Effects,
        sensor: Sensor,
        camera: Camera,
        canvas: _Canvas,
        rng: np.random.Generator,
    ) -> Bgr:
        """The lens's distortion (a remap from the canvas to the frame), the rolling
        shutter (a shear of the frame's rows, as the sensor reads them), the venue's light
        (``fx``), the lens's blur and the camera's shake, then the sensor and its
        processor. All but the remap work at the frame's size, not the padded canvas's
        (a wide lens pads a lot)."""
        out = img
        if any(camera.distortion):
            fixed = self._fixed_maps(camera, canvas)
            out = np.asarray(
                cv2.remap(out, *fixed, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                np.uint8,
            )
        shear = sensor.shear(camera.height, fx.motion, fx.motion_deg)
        if shear.any():
            # Each row shifted by its own (x, y), linear in the row: an affine map.
            top, slope = shear[0], (shear[-1] - shear[0]) / max(1, camera.height - 1)
            m = np.array([[1.0, slope[0], top[0]], [0.0, 1.0 + slope[1], top[1]]], np.float64)
            out = np.asarray(
                cv2.warpAffine(
                    out,
                    m,
                    camera.size,
                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                    borderMode=cv2.BORDER_REPLICATE,
                ),
                np.uint8,
            )
        out = self._light(out, fx, canvas, rng, where=camera.project)
        a = math.radians(fx.motion_deg)
        shake = (round(fx.motion * math.cos(a), 2), round(fx.motion * math.sin(a), 2))
        out = sensor.lens(out, fx.blur, shake if fx.motion else (0.0, 0.0))
        return np.ascontiguousarray(sensor.develop(out, rng))

    def _fixed_maps(self, camera: Camera, canvas: _Canvas) -> tuple[np.ndarray, np.ndarray]:
        """The distortion maps (into the padded canvas) in OpenCV's fixed point form,
        which remaps about twice as fast."""
        if camera not in self._fixed:
            mx, my = self._distortion_maps(camera)
            self._fixed[camera] = cv2.convertMaps(
                mx + canvas.pad_x, my + canvas.pad_y, cv2.CV_16SC2
            )
        return self._fixed[camera]

    # -- truth

    def _marker_truth(
        self,
        marker: int,
        corners_mm: Points,
        owner: int,
        labels: np.ndarray,
        hom: Matrix,
        canvas: _Canvas,
        camera: Camera,
    ) -> MarkerTruth:
        px = _apply(hom, corners_mm)
        H, W = labels.shape
        x0, y0 = np.maximum(np.floor(px.min(axis=0)).astype(int), 0)
        x1, y1 = np.minimum(np.ceil(px.max(axis=0)).astype(int) + 1, [W, H])
        occluded = 1.0
        if x1 > x0 and y1 > y0:
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillConvexPoly(
                mask, np.round((px - [x0, y0]) * 16).astype(np.int32), 1, cv2.LINE_8, 4
            )
            inside = mask.astype(bool)
            n = int(inside.sum())
            if n:
                hidden = int((labels[y0:y1, x0:x1][inside] != owner).sum())
                occluded = hidden / n
        seen = camera.project(corners_mm)
        in_frame = bool(((seen >= 0.5) & (seen <= np.array(camera.size) - 1.5)).all())
        return MarkerTruth(marker, seen, in_frame, float(occluded))

    def _truth(
        self,
        scene: Scene,
        labels: np.ndarray,
        hom: Matrix,
        canvas: _Canvas,
        polys_px: list[Points],
    ) -> tuple[CardTruth, ...]:
        out = []
        camera = scene.camera
        for i, p in enumerate(scene.cards):
            poly = polys_px[i]
            H, W = labels.shape
            x0, y0 = np.maximum(np.floor(poly.min(axis=0)).astype(int), 0)
            x1, y1 = np.minimum(np.ceil(poly.max(axis=0)).astype(int) + 1, [W, H])
            covered = 1.0
            if x1 > x0 and y1 > y0:
                mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
                cv2.fillConvexPoly(
                    mask, np.round((poly - [x0, y0]) * 16).astype(np.int32), 1, cv2.LINE_8, 4
                )
                inside = mask.astype(bool)
                if inside.any():
                    covered = float((labels[y0:y1, x0:x1][inside] != i).mean())
            markers: tuple[MarkerTruth, ...] = ()
            if p.face_up:
                markers = tuple(
                    self._marker_truth(
                        int(p.card) if p.marker is None else p.marker,
                        c,
                        i,
                        labels,
                        hom,
                        canvas,
                        camera,
                    )
                    for c in card_markers_mm(p)
                )
            zone = p.zone
            if zone is None:
                found = next((z for z in self.zones if z.contains(p.x, p.y)), None)
                zone = None if found is None else found.name
            out.append(
                CardTruth(
                    p.card,
                    zone,
                    p.x,
                    p.y,
                    p.angle,
                    p.face_up,
                    camera.project(_to_table(p, _CARD_BOX)),
                    covered,
                    markers,
                )
            )
        return tuple(out)


_DEFAULT: dict[str, TableRenderer] = {}


def render(scene: Scene, seed: int | None = None, marker_family: str = "aruco") -> Rendered:
    """Render with a shared renderer (its caches live as long as the process)."""
    if marker_family not in _DEFAULT:
        _DEFAULT[marker_family] = TableRenderer(marker_family)
    return _DEFAULT[marker_family].render(scene, seed)


# --- scripts: scenes in sequence ----------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One scene of a script, held for ``frames`` frames."""

    scene: Scene
    frames: int = 1


def demo_script(
    seed: int = 0, camera: Camera | None = None, effects: Effects | None = None
) -> list[Step]:
    """A deal and a trick as a camera would see them: the kitty with its upcard, then
    each seat's card arriving under a hand, lying alone, and the trick gathered."""
    rng = np.random.default_rng(seed)
    cam = camera or Camera()
    fx = effects or Effects.realistic()
    deck = [DECK[int(i)] for i in rng.permutation(24)]
    upcard = place(deck[0], "kitty", rng, angle=float(rng.normal(0, 10)))
    kitty_backs = tuple(
        replace(upcard, card=c, x=upcard.x + dx, y=upcard.y + dy, face_up=False)
        for c, (dx, dy) in zip(deck[1:4], rng.normal(0, 2.0, (3, 2)), strict=True)
    )
    table: tuple[CardPlacement, ...] = (*kitty_backs, upcard)
    steps = [Step(Scene((), (), cam, fx, seed=seed), 3), Step(Scene(table, (), cam, fx, seed), 5)]
    played: list[CardPlacement] = []
    for k, seat in enumerate((Seat.W, Seat.N, Seat.E, Seat.S)):
        card = place(deck[4 + k], f"play:{seat}", rng)
        played.append(card)
        cards = (*kitty_backs, *played)
        hand = Hand(over=len(cards) - 1, fraction=float(rng.uniform(0.35, 0.7)))
        steps.append(Step(Scene(cards, (hand,), cam, fx, seed + k + 1), 3))
        steps.append(Step(Scene(cards, (), cam, fx, seed + k + 1), 6))
    trick = pile([c.card for c in played], "tricks:S", rng, face_up=False)
    steps.append(Step(Scene((*kitty_backs, *trick), (), cam, fx, seed + 9), 5))
    return steps


def camera_from(doc: dict[str, Any]) -> Camera:
    """A camera from a dict of its fields (lists for the tuples)."""
    known = {f for f in Camera.__dataclass_fields__}
    unknown = set(doc) - known
    if unknown:
        raise ValueError(f"unknown camera settings {sorted(unknown)}; settings: {sorted(known)}")
    kw: dict[str, Any] = dict(doc)
    for key in ("position", "target", "distortion"):
        if key in kw:
            kw[key] = tuple(float(v) for v in kw[key])
    return Camera(**kw)


def effects_from(doc: dict[str, Any] | str) -> Effects:
    """Effects from a preset name (clean, realistic, harsh) or a dict of knobs."""
    if isinstance(doc, str):
        presets = {"clean": Effects(), "realistic": Effects.realistic(), "harsh": Effects.harsh()}
        if doc not in presets:
            raise ValueError(f"unknown effects {doc!r}; presets: {', '.join(presets)}")
        return presets[doc]
    known = {f for f in Effects.__dataclass_fields__}
    unknown = set(doc) - known
    if unknown:
        raise ValueError(f"unknown effects {sorted(unknown)}; effects: {sorted(known)}")
    kw: dict[str, Any] = dict(doc)
    if "cast" in kw:
        kw["cast"] = tuple(float(v) for v in kw["cast"])
    if "glare_at" in kw:
        kw["glare_at"] = tuple((float(a), float(b)) for a, b in kw["glare_at"])
    return Effects(**kw)


def script_from_json(doc: Any, source: str = "script") -> list[Step]:
    """Steps from a JSON script::

        {"seed": 1, "camera": {"position": [0, 60, 1000]}, "effects": "realistic",
         "scenes": [{"frames": 10, "cards": [{"card": "JH", "zone": "play:S"},
                                             {"card": "9C", "x": 0, "y": 0, "angle": 30}],
                     "hands": [{"over": "JH", "fraction": 0.4}]}]}

    A card given by zone only is laid at a random spot that stays the same in every
    scene it appears in (the same card in the same zone)."""
    try:
        if not isinstance(doc, dict) or not isinstance(doc.get("scenes"), list):
            raise ValueError('expected an object with a list of "scenes"')
        seed = int(doc.get("seed", 0))
        cam = camera_from(doc.get("camera", {}))
        fx = effects_from(doc.get("effects", "clean"))
        steps = []
        for n, s in enumerate(doc["scenes"]):
            cards = []
            for c in s.get("cards", []):
                card = Card.parse(str(c["card"]))
                face_up = bool(c.get("face_up", True))
                if "x" in c:
                    zone = c.get("zone")
                    cards.append(
                        CardPlacement(
                            card,
                            float(c["x"]),
                            float(c["y"]),
                            float(c.get("angle", 0.0)),
                            face_up,
                            zone,
                        )
                    )
                else:
                    where = np.random.default_rng([seed, int(card), sum(map(ord, c["zone"]))])
                    angle = c.get("angle")
                    cards.append(
                        place(
                            card,
                            c["zone"],
                            where,
                            face_up=face_up,
                            angle=None if angle is None else float(angle),
                        )
                    )
            hands = tuple(
                Hand(
                    over=h.get("over"),
                    fraction=float(h.get("fraction", 0.5)),
                    from_deg=None if h.get("from_deg") is None else float(h["from_deg"]),
                    at=None if h.get("at") is None else (float(h["at"][0]), float(h["at"][1])),
                )
                for h in s.get("hands", [])
            )
            scene_cam = (
                camera_from({**doc.get("camera", {}), **s["camera"]}) if "camera" in s else cam
            )
            scene_fx = effects_from(s["effects"]) if "effects" in s else fx
            steps.append(
                Step(
                    Scene(tuple(cards), hands, scene_cam, scene_fx, seed + n),
                    int(s.get("frames", 1)),
                )
            )
        return steps
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{source}: not a valid synthetic table script ({exc})") from None


def load_script(path: str | Path) -> list[Step]:
    p = Path(path)
    try:
        doc = loads_limited(p.read_bytes())
    except FileNotFoundError:
        raise ValueError(f"no synthetic table script at {p}") from None
    except (OSError, JSONLimitError) as exc:
        raise ValueError(f"{p} is not a JSON synthetic table script ({exc})") from None
    return script_from_json(doc, str(p))


__all__ = [
    "SKIN",
    "SURFACES",
    "Camera",
    "CardPlacement",
    "CardTruth",
    "Effects",
    "Hand",
    "MarkerTruth",
    "Rendered",
    "Scene",
    "Sheet",
    "Step",
    "TableRenderer",
    "camera_from",
    "card_markers_mm",
    "demo_script",
    "effects_from",
    "load_script",
    "pile",
    "place",
    "random_scene",
    "realistic_cameras",
    "render",
    "script_from_json",
    "zone_named",
]
