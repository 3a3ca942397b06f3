"""Marker families: how a card (or a calibration fiducial) is printed and read.

Every card carries its marker twice, in diagonally opposite corners. The family is a
choice behind one interface: ArUco DICT_4X4_50 is the default (measured best: see
shared/design.md), QR codes read by zxing-cpp or pyzbar are the alternatives.

Marker ids: a card's id is its number (0-23, ``int(card)``); the four table fiducials
are ids 40-43 (north-west, north-east, south-east, south-west corners of the mat).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt
import zxingcpp

from table_controller.cards import DECK, Card

Gray = npt.NDArray[np.uint8]
Corners = npt.NDArray[np.float32]  # 4 x 2, clockwise from the marker's top-left
Quads = npt.NDArray[np.float32]  # N x 4 x 2

FIDUCIALS = (40, 41, 42, 43)  # NW, NE, SE, SW
QR_PREFIX = "EU:"  # a QR card reads "EU:JH"; a QR fiducial "EU:F40"


@dataclass(frozen=True)
class Sighting:
    """One marker read in one image: its id, corners in image pixels, and confidence."""

    marker: int
    corners: Corners
    confidence: float = 1.0

    @property
    def card(self) -> Card | None:
        return DECK[self.marker] if 0 <= self.marker < 24 else None

    @property
    def center(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))


class MarkerFamily(Protocol):
    """What the deck printer, the renderer and the detector need of a marker family."""

    name: str
    cells: int  # modules across the printed marker, quiet zone excluded

    def image(self, marker: int, pixels: int) -> Gray:
        """The marker as a square black-on-white image of ``pixels`` a side, with no
        quiet zone: the printer adds white around it."""
        ...

    def read(self, gray: Gray) -> list[Sighting]:
        """Every marker of this family in a grey image."""
        ...

    def for_cells(self, fewest_px: float, most_px: float, longest_side: int) -> MarkerFamily:
        """This family set up for images whose longest side is ``longest_side`` px, in
        which a card marker's cell spans ``fewest_px`` to ``most_px`` pixels (from the
        table's calibration): a reader that need not look for every size."""
        ...


class ArucoFamily:
    """ArUco DICT_4X4_50 markers (4x4 data cells inside a one-cell black border)."""

    name = "aruco"
    cells = 6

    def __init__(self, params: cv2.aruco.DetectorParameters | None = None) -> None:
        self.dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        if params is None:
            params = cv2.aruco.DetectorParameters()
            params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self.params = params
        self.detector = cv2.aruco.ArucoDetector(self.dictionary, params)

    def for_cells(self, fewest_px: float, most_px: float, longest_side: int) -> ArucoFamily:
        """One adaptive-threshold pass instead of three, its window about two cells
        wide, and no contour outside the markers' size: a third of the default's cost
        for the same reads when the calibration tells the size (bench/vision.py).

        The threshold constant stays OpenCV's 7: 14 kept the felt's and the wood's
        grain from making contours, but lost the outline of a soft or dimly lit marker
        (issue 18: a quarter of the cards at 3.3 px a cell through a soft lens); the
        outlines then found and not read go to the second decode (decode.py)."""
        p = cv2.aruco.DetectorParameters()
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        window = max(5, 2 * round(fewest_px) + 1)
        p.adaptiveThreshWinSizeMin = p.adaptiveThreshWinSizeMax = window
        p.adaptiveThreshConstant = 7
        perimeter = 4 * self.cells  # in cells
        side = max(1, longest_side)
        p.minMarkerPerimeterRate = max(0.005, 0.6 * perimeter * fewest_px / side)
        p.maxMarkerPerimeterRate = min(4.0, 1.6 * perimeter * most_px / side)
        return ArucoFamily(p)

    def image(self, marker: int, pixels: int) -> Gray:
        return np.asarray(cv2.aruco.generateImageMarker(self.dictionary, marker, pixels))

    def read(self, gray: Gray) -> list[Sighting]:
        return self.read_and_reject(gray)[0]

    def read_and_reject(self, gray: Gray) -> tuple[list[Sighting], Quads]:
        """The markers read, and the outlines found but not read (N x 4 x 2): what a
        finer decode (:mod:`table_controller.vision.decode`) may still read."""
        found, quads, _ = self.read_all(gray)
        return found, quads

    def read_all(self, gray: Gray) -> tuple[list[Sighting], Quads, list[Sighting]]:
        """As ``read_and_reject``, and the markers of the family that are none of this
        deck's (no card's, no mat corner's): another deck's cards (vision/foreign.py)."""
        corners, ids, rejected = self.detector.detectMarkers(gray)
        quads = np.asarray(rejected, np.float32).reshape(-1, 4, 2)
        if len(corners) == 0:  # (ids is None then)
            return [], quads, []
        found: list[Sighting] = []
        foreign: list[Sighting] = []
        for c, i in zip(corners, ids.ravel(), strict=True):
            s = Sighting(int(i), np.asarray(c, np.float32).reshape(4, 2))
            (found if 0 <= int(i) < 24 or int(i) in FIDUCIALS else foreign).append(s)
        return found, quads, foreign


def qr_text(marker: int) -> str:
    return QR_PREFIX + (DECK[marker].code if marker < 24 else f"F{marker}")


def qr_marker(text: str) -> int | None:
    """The marker id a QR payload names, or None for a code that is not ours."""
    if not text.startswith(QR_PREFIX):
        return None
    body = text[len(QR_PREFIX) :]
    if body.startswith("F") and body[1:].isdigit() and int(body[1:]) in FIDUCIALS:
        return int(body[1:])
    try:
        return int(Card.parse(body))
    except ValueError:
        return None


class QrZxingFamily:
    """QR codes read with zxing-cpp (QR only, the slow try_* passes off)."""

    name = "qr-zxing"
    cells = 21

    def __init__(self) -> None:
        self.formats = zxingcpp.barcode_formats_from_str("QRCode")

    def image(self, marker: int, pixels: int) -> Gray:
        return _qr_image(marker, pixels)

    def for_cells(self, fewest_px: float, most_px: float, longest_side: int) -> MarkerFamily:
        return self  # nothing to tune by size

    def read(self, gray: Gray) -> list[Sighting]:
        found = []
        for r in zxingcpp.read_barcodes(
            gray,
            formats=self.formats,
            try_rotate=False,
            try_downscale=False,
            try_invert=False,
        ):
            marker = qr_marker(r.text)
            if marker is None:
                continue
            p = r.position
            pts = [p.top_left, p.top_right, p.bottom_right, p.bottom_left]
            corners = np.array([[q.x, q.y] for q in pts], np.float32)
            found.append(Sighting(marker, corners))
        return found


class QrZbarFamily:
    """QR codes read with pyzbar (needs the system's libzbar0)."""

    name = "qr-zbar"
    cells = 21

    def image(self, marker: int, pixels: int) -> Gray:
        return _qr_image(marker, pixels)

    def for_cells(self, fewest_px: float, most_px: float, longest_side: int) -> MarkerFamily:
        return self  # nothing to tune by size

    def read(self, gray: Gray) -> list[Sighting]:
        from pyzbar import pyzbar  # type: ignore[import-untyped]

        found = []
        for r in pyzbar.decode(gray, symbols=[pyzbar.ZBarSymbol.QRCODE]):
            marker = qr_marker(r.data.decode("ascii", "replace"))
            if marker is None or len(r.polygon) != 4:
                continue
            outline = np.array([[q.x, q.y] for q in r.polygon], np.float32)
            turns = _ZBAR_TURNS.get(str(getattr(r, "orientation", "UP")), 0)
            found.append(Sighting(marker, np.roll(_clockwise(outline), -turns, axis=0)))
        return found


# zbar reports the outline in image order and, apart, which way the code faces: a code
# turned a quarter clockwise ("RIGHT") has its own top-left at the image's top-right.
_ZBAR_TURNS = {"UP": 0, "RIGHT": 1, "DOWN": 2, "LEFT": 3}


def _clockwise(points: Corners) -> Corners:
    """Four points clockwise (as seen in the image), from the one nearest its top-left."""
    centre = points.mean(axis=0)
    order = np.argsort(np.arctan2(points[:, 1] - centre[1], points[:, 0] - centre[0]))
    ring = points[order]
    start = int(np.argmin(ring.sum(axis=1)))
    return np.asarray(np.roll(ring, -start, axis=0), np.float32)


def _qr_image(marker: int, pixels: int) -> Gray:
    code = zxingcpp.create_barcode(qr_text(marker), zxingcpp.BarcodeFormat.QRCode, ec_level="M")
    img = np.asarray(code.to_image(scale=1, add_quiet_zones=False))
    if img.ndim == 3:
        img = img[..., 0]
    return np.asarray(cv2.resize(img, (pixels, pixels), interpolation=cv2.INTER_NEAREST))


FAMILIES: dict[str, Callable[[], MarkerFamily]] = {
    "aruco": ArucoFamily,
    "qr-zxing": QrZxingFamily,
    "qr-zbar": QrZbarFamily,
}


def family(name: str) -> MarkerFamily:
    """A marker family by name: ``aruco`` (default), ``qr-zxing`` or ``qr-zbar``."""
    try:
        return FAMILIES[name]()
    except KeyError:
        raise ValueError(
            f"unknown marker family {name!r}; families: " + ", ".join(FAMILIES)
        ) from None
