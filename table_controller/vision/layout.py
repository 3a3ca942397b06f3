"""The table in millimetres: where the fiducials, the play zones, the kitty and the trick
piles are, and the calibration that maps camera pixels onto it.

Table coordinates: millimetres from the centre of the mat, x towards East, y towards
South (so North is at the top of an image taken from above with North up). The seats'
zones are one shape turned a quarter at a time: South's, then West's, North's, East's.

A calibration file is JSON (format ``table-calibration/1``): the image size, the
homography from image pixels to table millimetres, the zones, and the marker family.
Loading checks everything and says what to do about a bad or missing file.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.errors import TableControllerError
from table_controller.safe_json import JSONLimitError, loads_limited
from table_controller.seats import SEATS, Seat

FORMAT = "table-calibration/1"
CARD_W, CARD_H = 63.5, 88.9  # a poker-size card, mm
MAT_HALF = 400.0  # the calibration mat is 800 mm square
FIDUCIAL_MM = 60.0  # the printed fiducial marker's side (quiet zone excluded)
FIDUCIAL_CENTER = MAT_HALF - 50.0  # each fiducial's centre is this far from the centre

Points = npt.NDArray[np.float64]  # N x 2


class CalibrationError(TableControllerError, ValueError):
    """A calibration that is missing, unreadable or wrong, and what to do about it."""


def read_json(path: str | Path, what: str, fix: str) -> Any:
    """The JSON in ``path``, or a CalibrationError naming ``what`` it should be and the
    ``fix``; the file is never changed."""
    p = Path(path)
    try:
        return loads_limited(p.read_bytes())
    except FileNotFoundError:
        raise CalibrationError(f"no {what} at {p}: {fix}") from None
    except (OSError, JSONLimitError) as exc:
        raise CalibrationError(f"{p} is not a {what} file ({exc}): {fix}") from None


@dataclass(frozen=True)
class Zone:
    """A named area of the table: a seat's play zone, the kitty or a trick pile."""

    name: str  # "play:N", "kitty", "tricks:N"
    kind: str  # "play", "kitty", "tricks"
    seat: Seat | None
    polygon: tuple[tuple[float, float], ...]  # table mm

    @cached_property
    def contour(self) -> npt.NDArray[np.float32]:
        return np.array(self.polygon, np.float32)

    def contains(self, x: float, y: float) -> bool:
        return cv2.pointPolygonTest(self.contour, (float(x), float(y)), False) >= 0


def _turn(points: list[tuple[float, float]], quarters: int) -> tuple[tuple[float, float], ...]:
    """Turn points a quarter clockwise (as seen from above) ``quarters`` times."""
    out = []
    for x, y in points:
        for _ in range(quarters % 4):
            x, y = -y, x
        out.append((round(x, 3), round(y, 3)))
    return tuple(out)


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[tuple[float, float]]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


# South's zones; the other seats' are these turned (S -> W -> N -> E).
_PLAY_S = _rect(-80.0, 65.0, 80.0, 235.0)
_TRICKS_S = _rect(95.0, 230.0, 300.0, 335.0)  # to South's right, near the edge
_TURNS = {Seat.S: 0, Seat.W: 1, Seat.N: 2, Seat.E: 3}


def default_zones() -> tuple[Zone, ...]:
    zones = [Zone("kitty", "kitty", None, tuple(_rect(-60.0, -60.0, 60.0, 60.0)))]
    for seat in SEATS:
        zones.append(Zone(f"play:{seat}", "play", seat, _turn(_PLAY_S, _TURNS[seat])))
        zones.append(Zone(f"tricks:{seat}", "tricks", seat, _turn(_TRICKS_S, _TURNS[seat])))
    return tuple(zones)


def fiducial_positions() -> dict[int, tuple[float, float]]:
    """Each fiducial marker's centre in table mm: NW 40, NE 41, SE 42, SW 43."""
    c = FIDUCIAL_CENTER
    return {40: (-c, -c), 41: (c, -c), 42: (c, c), 43: (-c, c)}


def fiducial_corners(marker: int) -> Points:
    """A fiducial's four corners in table mm, clockwise from its top-left (as printed
    upright with North at the top), the order a detector reports them in."""
    cx, cy = fiducial_positions()[marker]
    h = FIDUCIAL_MM / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]])


@dataclass
class Calibration:
    """Image pixels to table millimetres, and the zones of the table."""

    image_size: tuple[int, int]  # width, height
    homography: npt.NDArray[np.float64]  # 3x3, image px -> table mm
    zones: tuple[Zone, ...] = field(default_factory=default_zones)
    family: str = "aruco"
    # Lens distortion from a ChArUco board, when measured.
    camera_matrix: npt.NDArray[np.float64] | None = None
    distortion: npt.NDArray[np.float64] | None = None
    # Where the fiducials were seen, to notice a camera or mat that has moved since.
    fiducials_px: dict[int, tuple[float, float]] = field(default_factory=dict)

    def to_table(self, points: Points) -> Points:
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, self.homography), np.float64).reshape(-1, 2)

    def to_image(self, points: Points) -> Points:
        inverse = np.linalg.inv(self.homography)
        pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
        return np.asarray(cv2.perspectiveTransform(pts, inverse), np.float64).reshape(-1, 2)

    def zone_at(self, x: float, y: float) -> Zone | None:
        """The zone holding a point given in table mm (play zones first)."""
        for zone in self.zones:
            if zone.contains(x, y):
                return zone
        return None

    def distance_to_line(self, x: float, y: float) -> float:
        """How far (mm) a table point is from the nearest zone's line, inside or out."""
        point = (float(x), float(y))
        return min(abs(cv2.pointPolygonTest(z.contour, point, True)) for z in self.zones)

    def zone(self, name: str) -> Zone:
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise KeyError(name)

    def px_per_mm(self) -> float:
        """The image's scale at the table's centre, in pixels per millimetre."""
        a, b = self.to_image(np.array([[0.0, 0.0], [100.0, 0.0]]))
        return float(math.dist(a, b) / 100.0)

    # --- the file ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "format": FORMAT,
            "image_size": list(self.image_size),
            "homography": self.homography.tolist(),
            "family": self.family,
            "zones": [
                {
                    "name": z.name,
                    "kind": z.kind,
                    "seat": None if z.seat is None else z.seat.name,
                    "polygon": [list(p) for p in z.polygon],
                }
                for z in self.zones
            ],
            "fiducials_px": {str(k): list(v) for k, v in sorted(self.fiducials_px.items())},
        }
        if self.camera_matrix is not None and self.distortion is not None:
            doc["camera_matrix"] = self.camera_matrix.tolist()
            doc["distortion"] = self.distortion.ravel().tolist()
        return doc

    def save(self, path: str | Path) -> None:
        """Write the file atomically: a crash never leaves half a calibration."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        tmp.replace(p)

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        fix = "run `table-controller calibrate` with the mat's four corner markers in view"
        return cls.from_json(read_json(path, "calibration", fix), str(path), fix)

    @classmethod
    def from_json(cls, doc: Any, source: str = "calibration", fix: str = "") -> Calibration:
        def bad(what: str) -> CalibrationError:
            return CalibrationError(f"{source}: {what}" + (f": {fix}" if fix else ""))

        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise bad(f"not a table calibration (expected format {FORMAT!r})")
        try:
            w, h = (int(v) for v in doc["image_size"])
            hom = np.array(doc["homography"], np.float64)
            zones = tuple(
                Zone(
                    str(z["name"]),
                    str(z["kind"]),
                    None if z["seat"] is None else Seat.parse(z["seat"]),
                    tuple((float(x), float(y)) for x, y in z["polygon"]),
                )
                for z in doc["zones"]
            )
            family = str(doc.get("family", "aruco"))
            fids = {
                int(k): (float(v[0]), float(v[1])) for k, v in doc.get("fiducials_px", {}).items()
            }
            cam = doc.get("camera_matrix")
            dist = doc.get("distortion")
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(f"a field is missing or malformed ({exc!r})") from None
        if hom.shape != (3, 3) or not np.isfinite(hom).all() or abs(np.linalg.det(hom)) < 1e-12:
            raise bad("the homography is not an invertible 3x3 matrix")
        if w <= 0 or h <= 0:
            raise bad("the image size must be positive")
        return cls(
            (w, h),
            hom,
            zones,
            family,
            None if cam is None else np.array(cam, np.float64),
            None if dist is None else np.array(dist, np.float64),
            fids,
        )
