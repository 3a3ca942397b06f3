"""Calibrating the camera against the mat: from a picture to a :class:`Calibration`.

The mat carries four fiducial markers (ids 40-43, NW NE SE SW, 60 mm, their centres
700 mm apart). :func:`calibrate` finds them in a camera frame, fits the homography from
image pixels to table millimetres through all sixteen marker corners, and refuses a fit
that does not match a flat mat, saying what is probably wrong. :func:`drift` tells later
whether the camera or the mat has moved since; :func:`overlay` draws the zones on the
camera's view so a person can see the calibration is right.

Lens distortion (optional): :func:`lens` measures it from several pictures of the
ChArUco board (:func:`charuco_board`). A calibration made with a lens keeps it, and its
homography then applies to *undistorted* pixels: use :func:`image_to_table` (or
:func:`undistort_points` before ``Calibration.to_table``).

The printable sheets (the mat's four corner sheets, the full-size mat, the board) are
written by :func:`write_corner_sheets`, :func:`write_full_mat` and :func:`write_board`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.deck import MARKER_MM
from table_controller.vision.focus import Sharpness, blur_figures, focus_advice, marker_edges
from table_controller.vision.layout import (
    FIDUCIAL_CENTER,
    FIDUCIAL_MM,
    MAT_HALF,
    Calibration,
    CalibrationError,
    Zone,
    default_zones,
    fiducial_corners,
    fiducial_positions,
    read_json,
)
from table_controller.vision.markers import FIDUCIALS, MarkerFamily, Sighting
from table_controller.vision.markers import family as family_named
from table_controller.vision.mat_lens import (
    MarkerShape,
    RadialFit,
    fit_radial,
    lens_helps,
    marker_shape,
)

Image = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

MAX_ERROR_MM = 3.0  # the worst fiducial corner may be this far off a flat mat
DRIFT_PX = 3.0  # a fiducial this far from where it was: recalibrate
MIN_CELL_PX = 3.0  # card markers read reliably from this many px per cell (bench/vision.py)
ADVISED_CELL_PX = 3.5  # from this many, cards read in nearly every frame (vision/focus.py)
PRINT_TOLERANCE = 0.03  # markers this much off 60 mm across (where a lens leaves them): the print
LENS_SQUEEZE = 0.97  # markers squeezed radially below this: a lens bends the picture
# OpenCV stops undistorting after 5 rounds by default: short of the answer near a wide
# lens's edges, where the mat's corners are.
UNDISTORT_UNTIL = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 1e-9)
CORNER_NAMES = {40: "NW", 41: "NE", 42: "SE", 43: "SW"}
CORNER_WORDS = {40: "north-west", 41: "north-east", 42: "south-east", 43: "south-west"}
SIDE_MM = 2 * FIDUCIAL_CENTER  # between neighbouring fiducial centres
DIAGONAL_MM = SIDE_MM * math.sqrt(2)


def corner_label(marker: int) -> str:
    """'NE (41)'."""
    return f"{CORNER_NAMES[marker]} ({marker})"


def _family(family: str | MarkerFamily) -> MarkerFamily:
    if isinstance(family, str):
        try:
            return family_named(family)
        except ValueError as exc:
            raise CalibrationError(str(exc)) from None
    return family


def _gray(frame: Image) -> Image:
    if frame is None or not hasattr(frame, "ndim") or frame.size == 0:
        raise CalibrationError("the picture is empty: check the camera or the image file")
    if frame.ndim == 2:
        return frame
    if frame.ndim == 3 and frame.shape[2] == 4:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGRA2GRAY))
    return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))


def _apply(hom: Matrix, points: npt.ArrayLike) -> Points:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return np.asarray(cv2.perspectiveTransform(pts, hom), np.float64).reshape(-1, 2)


# --- lens ---------------------------------------------------------------------------


def undistort_points(calibration: Calibration, points: npt.ArrayLike) -> Points:
    """Image points as a perfect lens would have seen them (unchanged when the
    calibration has no lens): what the homography expects."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if calibration.camera_matrix is None or calibration.distortion is None:
        return pts
    k = calibration.camera_matrix
    und = cv2.undistortPoints(
        pts.reshape(-1, 1, 2), k, calibration.distortion, None, None, k, UNDISTORT_UNTIL
    )
    return np.asarray(und, np.float64).reshape(-1, 2)


def distort_points(calibration: Calibration, points: npt.ArrayLike) -> Points:
    """The inverse of :func:`undistort_points`: where a perfect-lens point is seen."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if calibration.camera_matrix is None or calibration.distortion is None:
        return pts
    k = calibration.camera_matrix
    norm = np.column_stack([(pts - k[:2, 2]) / [k[0, 0], k[1, 1]], np.ones(len(pts))])
    img, _ = cv2.projectPoints(norm, np.zeros(3), np.zeros(3), k, calibration.distortion)
    return np.asarray(img, np.float64).reshape(-1, 2)


def image_to_table(calibration: Calibration, points: npt.ArrayLike) -> Points:
    """Table mm of image points, lens distortion included when it was measured."""
    return calibration.to_table(undistort_points(calibration, points))


def table_to_image(calibration: Calibration, points: npt.ArrayLike) -> Points:
    """Image px of table points, lens distortion included when it was measured."""
    return distort_points(calibration, calibration.to_image(np.asarray(points, np.float64)))


# --- finding the mat ----------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class MatFit:
    """The four fiducials found in a frame and the homography through their corners."""

    image_size: tuple[int, int]
    family: str
    sightings: dict[int, Sighting]
    image_px: Points  # 16 x 2, as seen (before any undistortion)
    table_mm: Points  # 16 x 2
    homography: Matrix  # undistorted image px -> table mm
    residual_mm: npt.NDArray[np.float64]  # 16
    camera_matrix: Matrix | None = None
    distortion: Matrix | None = None
    lens_from_mat: RadialFit | None = None  # the lens measured from the mat, when used
    radial: RadialFit | None = None  # the lens fit tried on the mat (used or not)
    plain_rms_mm: float = 0.0  # the homography's fit alone, no lens
    shape: MarkerShape | None = None  # the markers' sizes: print or lens?
    sharpness: Sharpness | None = None  # how soft the picture is at the markers

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.residual_mm**2)))

    @property
    def max_mm(self) -> float:
        return float(self.residual_mm.max())

    @property
    def worst(self) -> int:
        """The fiducial with the corner farthest off."""
        return FIDUCIALS[int(np.argmax(self.residual_mm)) // 4]

    def fiducials_px(self) -> dict[int, tuple[float, float]]:
        return {m: s.center for m, s in sorted(self.sightings.items())}

    def calibration(self, zones: Sequence[Zone] | None = None) -> Calibration:
        return Calibration(
            self.image_size,
            self.homography,
            tuple(zones) if zones is not None else default_zones(),
            self.family,
            self.camera_matrix,
            self.distortion,
            self.fiducials_px(),
        )


def _brightness_hint(gray: Image) -> str:
    mean = float(gray.mean())
    if mean < 30:
        return " The picture is almost black: turn on the light or raise the camera's exposure."
    if mean > 225:
        return " The picture is almost white: too much light, or lower the camera's exposure."
    if float(cv2.Laplacian(gray, cv2.CV_64F).var()) < 15:
        return " The picture looks blurred: focus the camera on the table."
    return ""


def find_fiducials(
    frame: Image, family: str | MarkerFamily = "aruco"
) -> tuple[dict[int, Sighting], list[Sighting]]:
    """The fiducials seen (one sighting each) and every other marker seen. Raises
    :class:`CalibrationError` for a fiducial seen more than once."""
    fam = _family(family)
    gray = _gray(frame)
    seen: dict[int, list[Sighting]] = {}
    others = []
    for s in fam.read(gray):
        if s.marker in FIDUCIALS:
            seen.setdefault(s.marker, []).append(s)
        else:
            others.append(s)
    for m, ss in seen.items():  # the detector may report one marker twice, same place
        first = ss[0]
        side = float(np.linalg.norm(first.corners[1] - first.corners[0]))
        seen[m] = [first] + [s for s in ss[1:] if math.dist(s.center, first.center) > side / 4]
    twice = [m for m, ss in sorted(seen.items()) if len(ss) > 1]
    if twice:
        names = ", ".join(f"{corner_label(m)} {len(seen[m])} times" for m in twice)
        raise CalibrationError(
            f"fiducial {names} seen: only one sheet of each corner may be on the table; "
            "take away the extra copies"
        )
    return {m: ss[0] for m, ss in seen.items()}, others


def find_mat(
    frame: Image,
    family: str | MarkerFamily = "aruco",
    *,
    lens: tuple[Matrix, Matrix] | None = None,
) -> MatFit:
    """Find the four fiducials and fit the homography through their 16 corners (no
    check of the fit's quality: see :func:`check_fit`)."""
    fam = _family(family)
    gray = _gray(frame)
    fiducials, others = find_fiducials(gray, fam)
    missing = [m for m in FIDUCIALS if m not in fiducials]
    if len(missing) == 4:
        hint = _brightness_hint(gray)
        cards = f" ({len(others)} card markers were seen, so the camera works.)" if others else ""
        raise CalibrationError(
            "none of the mat's four corner markers (fiducials 40-43) was seen: check the "
            "camera looks down at the whole mat, is focused, and the corner sheets are "
            f"printed in the {fam.name!r} marker family.{hint}{cards}"
        )
    if missing:
        parts = [
            f"fiducial {corner_label(m)} not seen: check the mat's {CORNER_WORDS[m]} corner "
            "is in view and lit"
            for m in missing
        ]
        raise CalibrationError(
            "; ".join(parts)
            + " (nothing lying on it, no glare). Move or widen the camera if it is cut off."
        )
    image_px = np.concatenate([fiducials[m].corners.astype(np.float64) for m in FIDUCIALS])
    table_mm = np.concatenate([fiducial_corners(m) for m in FIDUCIALS])
    h, w = gray.shape[:2]
    # The markers' edges: how sharp the picture is, and corners that blur does not move.
    edges = {m: marker_edges(gray, fiducials[m].corners, fam.cells) for m in FIDUCIALS}
    sharp = Sharpness({m: e.blur_px for m, e in edges.items()}, w)
    edge_px = np.concatenate([edges[m].corners for m in FIDUCIALS])
    k = dist = None
    fit_px = image_px
    if lens is not None:
        k = np.asarray(lens[0], np.float64)
        dist = np.asarray(lens[1], np.float64).ravel()
        und = cv2.undistortPoints(image_px.reshape(-1, 1, 2), k, dist, None, k)
        fit_px = np.asarray(und, np.float64).reshape(-1, 2)
    hom, residual = _plain(fit_px, table_mm)
    shape_px = edge_px
    if k is not None and dist is not None:
        und = cv2.undistortPoints(edge_px.reshape(-1, 1, 2), k, dist, None, k)
        shape_px = np.asarray(und, np.float64).reshape(-1, 2)
    shape = marker_shape(shape_px, table_mm, (w, h))
    plain_rms = float(np.sqrt(np.mean(residual**2)))
    radial = used = None
    if lens is None:
        radial = fit_radial(edge_px, table_mm, (w, h))
        _, edge_residual = _plain(edge_px, table_mm)
        edge_rms = float(np.sqrt(np.mean(edge_residual**2)))
        printed_wrong = (
            shape is not None
            and abs(shape.size_mm / FIDUCIAL_MM - 1) > PRINT_TOLERANCE
            and shape.alike
        )
        if radial is not None and not printed_wrong and lens_helps(edge_rms, radial):
            used = radial
            image_px, hom, residual = edge_px, radial.homography, radial.residual_mm
            k, dist = radial.camera_matrix, radial.distortion
        elif residual.max() > MAX_ERROR_MM and edge_residual.max() < residual.max():
            # A small, noisy picture: the edges place the corners better than the
            # detector (kept otherwise, so that a fit accepted before stays the same).
            image_px, residual = edge_px, edge_residual
            hom, _ = _plain(edge_px, table_mm)
    return MatFit(
        (w, h), fam.name, fiducials, image_px, table_mm, hom, residual, k, dist,
        used, radial, plain_rms, shape, sharp,
    )  # fmt: skip


def _plain(image_px: Points, table_mm: Points) -> tuple[Matrix, npt.NDArray[np.float64]]:
    """The homography through the corners (least squares) and each corner's miss (mm)."""
    hom, _ = cv2.findHomography(image_px, table_mm, 0)
    if hom is None or not np.isfinite(hom).all() or abs(np.linalg.det(hom)) < 1e-15:
        raise CalibrationError(
            "the corner markers were seen but no mapping to the table fits them: check the "
            "camera looks down at the mat, not along it"
        )
    hom = hom / hom[2, 2]
    return hom, np.linalg.norm(_apply(hom, image_px) - table_mm, axis=1)


def _diagnose(fit: MatFit) -> str:
    """Why the fiducials do not fit a flat mat, as far as can be told: sheets in the
    wrong corners, a sheet turned, printed at the wrong size, or else misplaced or a mat
    that is not flat."""
    seen = {}
    for i, m in enumerate(FIDUCIALS):
        px = fit.image_px[4 * i : 4 * i + 4]
        if fit.camera_matrix is not None and fit.distortion is not None:
            k = fit.camera_matrix
            und = cv2.undistortPoints(px.reshape(-1, 1, 2), k, fit.distortion, None, k)
            px = np.asarray(und, np.float64).reshape(-1, 2)
        seen[m] = px
    centres = {m: px.mean(axis=0) for m, px in seen.items()}
    positions = fiducial_positions()

    def explain(where: tuple[int, ...], turning: bool) -> tuple[float, dict[int, int], list[float]]:
        """Fit with marker FIDUCIALS[i] sitting at the corner of where[i]: the corner
        error (each marker upright, or turned as suits it best), each marker's quarter
        turns, and each marker's side in mm."""
        src = np.array([centres[m] for m in FIDUCIALS], np.float32)
        dst = np.array([positions[w] for w in where], np.float32)
        hom = np.asarray(cv2.getPerspectiveTransform(src, dst), np.float64)
        error, turns, sides = 0.0, {}, []
        for m, w in zip(FIDUCIALS, where, strict=True):
            mm = _apply(hom, seen[m])
            true = fiducial_corners(w)
            errs = [float(np.abs(np.roll(mm, k, axis=0) - true).max()) for k in range(4)]
            turns[m] = int(np.argmin(errs)) if turning else 0
            error += errs[turns[m]]
            sides.append(float(np.mean(np.linalg.norm(mm - np.roll(mm, 1, axis=0), axis=1))))
        return error, turns, sides

    # Upright sheets in the wrong corners?
    best = min(itertools.permutations(FIDUCIALS), key=lambda w: explain(w, False)[0])
    if best != FIDUCIALS and explain(best, False)[0] < 0.5 * explain(FIDUCIALS, False)[0]:
        wrong = [
            f"{corner_label(m)} is in the {CORNER_WORDS[w]} corner"
            for m, w in zip(FIDUCIALS, best, strict=True)
            if m != w
        ]
        return (
            "the corner sheets are not in their corners: "
            + ", ".join(wrong)
            + "; lay each sheet in the corner its label names (clockwise NW 40, NE 41, SE 42, "
            "SW 43)"
        )
    _, turns, sides = explain(FIDUCIALS, True)
    turned = [m for m, k in turns.items() if k]
    if turned:
        words = {1: "a quarter turn", 2: "half a turn", 3: "a quarter turn"}
        names = ", ".join(f"{corner_label(m)} ({words[turns[m]]})" for m in turned)
        return (
            f"corner sheet {names} is turned: lay every sheet with its arrow pointing "
            "North (towards the North seat)"
        )
    if _printed_wrong(fit):
        return _print_message(fit)
    per_marker = fit.residual_mm.reshape(4, 4).mean(axis=1)
    one_off = per_marker.max() > 3 * np.median(per_marker)  # one sheet misplaced
    bent = fit.shape is not None and fit.shape.squeeze < LENS_SQUEEZE
    measured = fit.camera_matrix is not None and fit.lens_from_mat is None
    if not one_off and not measured and (bent or fit.lens_from_mat is not None):
        return _lens_message(fit)
    if fit.shape is None:  # no shape measured: judge by the sides, as before
        size = float(np.median(sides))
        if abs(size / FIDUCIAL_MM - 1) > 0.04:
            return (
                f"the corner markers measure about {size:.0f} mm, not {FIDUCIAL_MM:.0f} mm: "
                "print the sheets at 100% ('Actual size', not 'Fit to page') and check the "
                "100 mm bar"
            )
    return (
        f"the corner markers do not fit a flat, square mat (worst: {corner_label(fit.worst)}, "
        f"{fit.max_mm:.1f} mm out): check the mat lies flat and each sheet sits in its corner "
        f"(centres {SIDE_MM:.0f} mm apart along each side, {DIAGONAL_MM:.0f} mm across "
        "both diagonals)"
    )


def _printed_wrong(fit: MatFit) -> bool:
    """The markers are all the wrong size across, where a lens leaves them alone: the
    evidence points to the print, not the lens."""
    shape = fit.shape
    return (
        shape is not None and abs(shape.size_mm / FIDUCIAL_MM - 1) > PRINT_TOLERANCE and shape.alike
    )


def _print_message(fit: MatFit) -> str:
    assert fit.shape is not None
    return (
        f"the corner markers measure about {fit.shape.size_mm:.0f} mm, not "
        f"{FIDUCIAL_MM:.0f} mm, all four alike and both ways: print the sheets at 100% "
        "('Actual size', not 'Fit to page') and check the 100 mm bar"
    )


LENS_HOWTO = (
    "measure the lens once with the ChArUco board: `table-controller calibrate board --out "
    "board.pdf`, print it at 100% and glue it flat onto card; take 10-20 pictures of it "
    "with this camera at this picture size (the board near the edges and corners too, "
    "tilted), then `table-controller calibrate lens --images DIR` and `table-controller "
    "calibrate --lens calibration/lens.json`"
)


def _lens_message(fit: MatFit) -> str:
    """The lens bends the picture more than the mat can measure."""
    squeeze = fit.shape.squeeze if fit.shape is not None else 1.0
    tried = ""
    if fit.radial is not None:
        tried = (
            f"; the one-number lens correction calibrate measures on the mat still leaves "
            f"a corner {fit.radial.max_mm:.1f} mm out"
        )
    return (
        f"the lens bends the picture more than calibrate can correct from the mat: the "
        f"corner markers come out {100 * (1 - squeeze):.0f}% narrower towards the picture's "
        f"centre than across (a wide lens does that; the print is right){tried}. This lens "
        f"needs measuring: {LENS_HOWTO}"
    )


def check_fit(
    fit: MatFit, max_error_mm: float = MAX_ERROR_MM, *, require_sharp: bool = True
) -> None:
    """Raise :class:`CalibrationError` with the likely cause when the fit is poor, the
    sheets are printed at the wrong size, or (``require_sharp``) the picture is too soft
    to read cards."""
    if require_sharp and fit.sharpness is not None and not fit.sharpness.sharp_enough:
        raise CalibrationError(focus_advice(fit.sharpness))
    if fit.max_mm > max_error_mm:
        raise CalibrationError(f"bad calibration: {_diagnose(fit)}")
    if _printed_wrong(fit):
        raise CalibrationError(f"bad calibration: {_print_message(fit)}")


def calibrate(
    frame: Image,
    family: str | MarkerFamily = "aruco",
    zones: Sequence[Zone] | None = None,
    *,
    lens: tuple[Matrix, Matrix] | None = None,
    max_error_mm: float = MAX_ERROR_MM,
    require_sharp: bool = False,
) -> Calibration:
    """The calibration of the camera that took ``frame`` (BGR or grey) of the mat, with
    the lens's barrel distortion measured from the mat when it shows one (and ``lens``,
    measured on the board, is not given).

    Raises :class:`CalibrationError` naming any fiducial not seen, or saying why the
    fiducials do not fit a flat mat (a sheet turned or in the wrong corner, printed at
    the wrong size, a lens the mat cannot measure, the mat not flat); with
    ``require_sharp`` (as the `calibrate` command does) also for a picture too soft to
    read cards. Without it a soft picture is calibrated: its geometry is sound, and the
    simulated tables' harsh cameras must still be calibrated."""
    fit = find_mat(frame, family, lens=lens)
    check_fit(fit, max_error_mm, require_sharp=require_sharp)
    return fit.calibration(zones)


# --- later checks -------------------------------------------------------------------


def drift(calibration: Calibration, frame: Image) -> float | None:
    """How far (px) the fiducials have moved since the calibration: the largest
    displacement of any fiducial seen now. None when no fiducial can be seen (covered,
    or the lights are off), so nothing can be told."""
    gray = _gray(frame)
    h, w = gray.shape[:2]
    if (w, h) != tuple(calibration.image_size):
        cw, ch = calibration.image_size
        raise CalibrationError(
            f"the camera now gives {w}x{h} pictures, the calibration was made at {cw}x{ch}: "
            "set the camera back to that size, or run `table-controller calibrate` again"
        )
    if not calibration.fiducials_px:
        return None
    seen, _ = find_fiducials(gray, calibration.family)
    moves = [
        math.dist(s.center, calibration.fiducials_px[m])
        for m, s in seen.items()
        if m in calibration.fiducials_px
    ]
    return max(moves) if moves else None


@dataclass(frozen=True)
class Scale:
    """How finely the camera sees the table."""

    px_per_mm: float  # at the table's centre
    min_px_per_mm: float  # at the worst point of any zone
    cell_mm: float  # a card marker's cell
    min_cell_px: float  # the worst zone's px per card marker cell
    max_cell_px: float = 0.0  # the best zone's (nearest the camera)

    @property
    def enough(self) -> bool:
        return self.min_cell_px >= MIN_CELL_PX


def _local_scale(hom_mm_to_px: Matrix, x: float, y: float) -> float:
    p = _apply(hom_mm_to_px, np.array([[x, y], [x + 1, y], [x, y + 1]]))
    jac = np.column_stack([p[1] - p[0], p[2] - p[0]])
    # The smaller singular value: the direction the marker is squeezed most.
    return float(np.linalg.svd(jac, compute_uv=False).min())


def scale(calibration: Calibration, family: str | MarkerFamily | None = None) -> Scale:
    """The image's scale at the centre and at the worst point of the zones, and what a
    card marker's cell gets there."""
    fam = _family(family or calibration.family)
    inv = np.asarray(np.linalg.inv(calibration.homography), np.float64)
    centre = _local_scale(inv, 0.0, 0.0)
    points = [p for z in calibration.zones for p in z.polygon]
    local = [centre, *(_local_scale(inv, x, y) for x, y in points)]
    cell = MARKER_MM / fam.cells
    return Scale(centre, min(local), cell, min(local) * cell, max(local) * cell)


# --- the overlay --------------------------------------------------------------------

_KIND_COLOURS = {"play": (255, 170, 40), "kitty": (40, 210, 255), "tricks": (220, 90, 220)}


def _densify(polygon: npt.ArrayLike, step: float = 10.0) -> Points:
    pts = np.asarray(polygon, np.float64)
    out: list[Points] = []
    for a, b in zip(pts, np.roll(pts, -1, axis=0), strict=True):
        n = max(1, math.ceil(float(np.linalg.norm(b - a)) / step))
        out.extend(a + (b - a) * t for t in np.arange(n) / n)
    return np.array(out)


def _zone_label(zone: Zone) -> str:
    if zone.seat is None:
        return zone.name
    return f"{zone.seat.name} {zone.kind}"


def _text(img: Image, text: str, org: tuple[int, int], size: float, colour: Any) -> None:
    """Text with a dark box behind it, centred on ``org``."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(size * 2))
    (tw, th), base = cv2.getTextSize(text, font, size, thick)
    x, y = org[0] - tw // 2, org[1] + th // 2
    cv2.rectangle(img, (x - 3, y - th - 3), (x + tw + 3, y + base + 1), (0, 0, 0), -1)
    cv2.putText(img, text, (x, y), font, size, colour, thick, cv2.LINE_AA)


def overlay(calibration: Calibration, frame: Image, sharp: Sharpness | None = None) -> Image:
    """The camera's view with the calibration drawn on it: each zone shaded and
    labelled, the mat's outline and compass points, the fiducials where they were seen,
    and the scale. If the zones do not sit where players lay their cards, calibrate
    again. ``sharp``: the sharpness measured already (a live view measures it once a
    second, not on every picture it shows); measured on ``frame`` when None."""
    img: Image = np.asarray(
        frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR), np.uint8
    )
    h, w = img.shape[:2]
    size = max(0.4, min(w, h) / 1400)
    shade = img.copy()
    outlines = []
    for zone in calibration.zones:
        colour = _KIND_COLOURS.get(zone.kind, (200, 200, 200))
        px = table_to_image(calibration, _densify(zone.polygon))
        poly = np.round(px * 16).astype(np.int32)
        cv2.fillPoly(shade, [poly], colour, cv2.LINE_AA, 4)
        outlines.append((poly, colour, zone))
    cv2.addWeighted(shade, 0.35, img, 0.65, 0, dst=img)
    for poly, colour, _ in outlines:
        cv2.polylines(img, [poly], True, colour, max(1, round(2 * size)), cv2.LINE_AA, 4)
    m = MAT_HALF
    mat = table_to_image(calibration, _densify([(-m, -m), (m, -m), (m, m), (-m, m)], 20.0))
    cv2.polylines(
        img, [np.round(mat * 16).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA, 4
    )
    for _, colour, zone in outlines:
        c = np.asarray(zone.polygon, np.float64).mean(axis=0)
        (x, y), *_ = table_to_image(calibration, c[None])
        _text(img, _zone_label(zone), (round(x), round(y)), 0.9 * size, colour)
    for word, (x, y) in (("N", (0, -m + 25)), ("E", (m - 25, 0)), ("S", (0, m - 25)),
                         ("W", (-m + 25, 0))):  # fmt: skip
        (px, py), *_ = table_to_image(calibration, np.array([[x, y]]))
        _text(img, word, (round(px), round(py)), 1.6 * size, (255, 255, 255))
    for marker in FIDUCIALS:
        square = table_to_image(calibration, _densify(fiducial_corners(marker), 5.0))
        cv2.polylines(
            img, [np.round(square * 16).astype(np.int32)], True, (0, 255, 0),
            max(1, round(2 * size)), cv2.LINE_AA, 4,
        )  # fmt: skip
        if marker in calibration.fiducials_px:
            x, y = calibration.fiducials_px[marker]
            r = max(4, round(10 * size))
            cv2.circle(img, (round(x), round(y)), r, (0, 0, 255), max(1, round(2 * size)),
                       cv2.LINE_AA)  # fmt: skip
        # The label just inside the mat from the marker.
        fx, fy = fiducial_positions()[marker]
        (lx, ly), *_ = table_to_image(calibration, np.array([[fx, fy * 0.84]]))
        _text(img, corner_label(marker), (round(lx), round(ly)), 0.7 * size, (0, 255, 0))
    s = scale(calibration)
    note = (
        f"{s.px_per_mm:.2f} px/mm at the centre; card marker cells {s.min_cell_px:.1f} px "
        f"(need {MIN_CELL_PX:.0f})"
    )
    colour = (80, 255, 80) if s.enough else (60, 60, 255)
    thick = max(1, round(size * 2))
    (tw, th), _ = cv2.getTextSize(note, cv2.FONT_HERSHEY_SIMPLEX, size, thick)
    _text(img, note, (8 + tw // 2, 8 + th), size, colour)
    if sharp is None:
        sharp = sharpness_seen(calibration, frame)
    if math.isfinite(sharp.worst_px):
        worst, limit = blur_figures(sharp)
        note = f"sharpness: edges blurred {worst} px (at most {limit})"
        colour = (80, 255, 80) if sharp.sharp_enough else (60, 60, 255)
        (tw, th2), _ = cv2.getTextSize(note, cv2.FONT_HERSHEY_SIMPLEX, size, thick)
        _text(img, note, (8 + tw // 2, 8 + th + round(2.2 * th2)), size, colour)
    return img


def sharpness_seen(calibration: Calibration, frame: Image) -> Sharpness:
    """How soft ``frame`` is at the corner markers, found where the calibration put them
    (no marker search: cheap enough for every frame of the live view). The figure to
    watch while focusing: the picture is sharp enough at :attr:`Sharpness.limit_px`
    or less."""
    gray = _gray(frame)
    blur = {}
    for marker in FIDUCIALS:
        corners = table_to_image(calibration, fiducial_corners(marker))
        blur[marker] = marker_edges(gray, corners).blur_px
    return Sharpness(blur, int(gray.shape[1]))


# --- lens calibration ---------------------------------------------------------------

BOARD_SQUARES = (7, 5)
BOARD_SQUARE_MM = 36.0
BOARD_MARKER_MM = 28.0
BOARD_DICTIONARY = cv2.aruco.DICT_5X5_100  # not the cards' dictionary: never read as a card


def charuco_board(
    squares: tuple[int, int] = BOARD_SQUARES,
    square_mm: float = BOARD_SQUARE_MM,
    marker_mm: float = BOARD_MARKER_MM,
    dictionary: int = BOARD_DICTIONARY,
) -> Any:
    """The ChArUco board for measuring the lens: 7 x 5 squares of 36 mm (fits A4 and
    Letter), markers from DICT_5X5_100."""
    d = cv2.aruco.getPredefinedDictionary(dictionary)
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, d)


def board_image(board: Any | None = None, px_per_mm: float = 4.0) -> Image:
    """The board as a grey image, ``px_per_mm`` a millimetre, no margin."""
    b = board if board is not None else charuco_board()
    sx, sy = b.getChessboardSize()
    side = b.getSquareLength()
    size = (round(sx * side * px_per_mm), round(sy * side * px_per_mm))
    return np.asarray(b.generateImage(size, marginSize=0, borderBits=1))


@dataclass(frozen=True)
class LensFit:
    camera_matrix: Matrix
    distortion: Matrix
    rms_px: float
    views: int
    image_size: tuple[int, int]


def measure_lens(
    frames: Iterable[Image],
    board: Any | None = None,
    *,
    min_views: int = 5,
    min_corners: int = 8,
    max_rms_px: float = 1.5,
) -> LensFit:
    """Measure the lens from pictures of the ChArUco board (see :func:`lens`)."""
    b = board if board is not None else charuco_board()
    detector = cv2.aruco.CharucoDetector(b)
    objs, imgs = [], []
    size: tuple[int, int] | None = None
    total = 0
    for frame in frames:
        total += 1
        gray = _gray(frame)
        h, w = gray.shape[:2]
        if size is None:
            size = (w, h)
        elif size != (w, h):
            raise CalibrationError(
                f"the board pictures differ in size ({size[0]}x{size[1]} and {w}x{h}): take "
                "them all with the camera at the size it will play at"
            )
        corners, ids, _, _ = detector.detectBoard(gray)
        if ids is None or len(ids) < min_corners:
            continue
        obj, img = b.matchImagePoints(corners, ids)
        if obj is None or len(obj) < min_corners:
            continue
        objs.append(np.asarray(obj, np.float32).reshape(-1, 1, 3))
        imgs.append(np.asarray(img, np.float32).reshape(-1, 1, 2))
    if size is None:
        raise CalibrationError("no pictures of the board were given")
    if len(objs) < min_views:
        raise CalibrationError(
            f"only {len(objs)} of {total} pictures show the ChArUco board well enough "
            f"({min_corners} corners or more): take at least {min_views} (best 10-20), the "
            "board flat, in focus and well lit, at different places and tilts, filling much "
            "of the view"
        )
    flags = cv2.CALIB_FIX_K3
    rms, k, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None, flags=flags)
    if not math.isfinite(rms) or rms > max_rms_px:
        raise CalibrationError(
            f"the board pictures do not agree ({rms:.2f} px error, at most {max_rms_px} "
            "allowed): keep the board flat (glue it onto card) and still, and the camera's "
            "focus and zoom fixed"
        )
    return LensFit(np.asarray(k, np.float64), np.asarray(dist, np.float64).ravel(), float(rms),
                   len(objs), size)  # fmt: skip


def lens(frames: Iterable[Image], board: Any | None = None) -> tuple[Matrix, Matrix]:
    """The camera matrix and distortion coefficients (k1, k2, p1, p2, k3) measured from
    several pictures of the ChArUco board (:func:`charuco_board`), taken with the
    camera at the resolution it plays at. Raises :class:`CalibrationError` when too few
    pictures show the board or they do not agree."""
    fit = measure_lens(frames, board)
    return fit.camera_matrix, fit.distortion


LENS_FORMAT = "table-lens/1"


def save_lens(path: str | Path, fit: LensFit) -> None:
    import json

    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "format": LENS_FORMAT,
        "image_size": list(fit.image_size),
        "camera_matrix": fit.camera_matrix.tolist(),
        "distortion": fit.distortion.ravel().tolist(),
        "rms_px": fit.rms_px,
        "views": fit.views,
    }
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n")
    tmp.replace(p)


def load_lens(path: str | Path) -> LensFit:
    p = Path(path)
    fix = "measure it with `table-controller calibrate lens --camera picamera2`"
    doc = read_json(p, "lens", fix)
    if not isinstance(doc, dict) or doc.get("format") != LENS_FORMAT:
        raise CalibrationError(f"{p} is not a lens file (expected format {LENS_FORMAT!r}): {fix}")
    try:
        k = np.array(doc["camera_matrix"], np.float64)
        dist = np.array(doc["distortion"], np.float64).ravel()
        w, h = (int(v) for v in doc["image_size"])
        rms = float(doc.get("rms_px", 0.0))
        views = int(doc.get("views", 0))
    except (KeyError, TypeError, ValueError) as exc:
        raise CalibrationError(f"{p}: a field is missing or malformed ({exc!r}): {fix}") from None
    if k.shape != (3, 3) or not np.isfinite(k).all() or dist.size not in (4, 5, 8, 12, 14):
        raise CalibrationError(f"{p}: the camera matrix or distortion is malformed: {fix}")
    return LensFit(k, dist, rms, views, (w, h))


# --- printable sheets ---------------------------------------------------------------

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


def _runs(bits: npt.NDArray[np.bool_]) -> list[tuple[int, int, int, int]]:
    """Black rectangles (x, y, w, h) covering the True cells, runs merged down columns."""
    rects: list[list[int]] = []
    open_: dict[tuple[int, int], list[int]] = {}
    for y, row in enumerate(bits):
        runs = []
        x = 0
        n = len(row)
        while x < n:
            if row[x]:
                x0 = x
                while x < n and row[x]:
                    x += 1
                runs.append((x0, x))
            else:
                x += 1
        nxt: dict[tuple[int, int], list[int]] = {}
        for run in runs:
            rect = open_.get(run)
            if rect is not None and rect[1] + rect[3] == y:
                rect[3] += 1
            else:
                rect = [run[0], y, run[1] - run[0], 1]
                rects.append(rect)
            nxt[run] = rect
        open_ = nxt
    return [(r[0], r[1], r[2], r[3]) for r in rects]


def _draw_bits(c: Any, bits: npt.NDArray[np.bool_], x: float, top: float, cell: float) -> None:
    """Draw a bitmap (True = black) with cells ``cell`` pt, its top-left at (x, top) in
    PDF points (y up)."""
    c.setFillColorRGB(0, 0, 0)
    for rx, ry, rw, rh in _runs(bits):
        c.rect(x + rx * cell, top - (ry + rh) * cell, rw * cell, rh * cell, stroke=0, fill=1)


def _marker_bits(fam: MarkerFamily, marker: int) -> npt.NDArray[np.bool_]:
    return np.asarray(fam.image(marker, fam.cells)) < 128


def _mm() -> float:
    """PDF points per mm."""
    return 72.0 / 25.4


def _canvas_class() -> Any:
    """reportlab's Canvas, imported only when printing."""
    from reportlab.pdfgen import canvas  # type: ignore[import-untyped]

    return canvas.Canvas


def _string_width(text: str, font: str, size: float) -> float:
    from reportlab.pdfbase import pdfmetrics  # type: ignore[import-untyped]

    return float(pdfmetrics.stringWidth(text, font, size))


def write_corner_sheets(
    path: str | Path, paper: str = "a4", family: str | MarkerFamily = "aruco"
) -> Path:
    """The mat's four fiducials as four pages (A4 or Letter), each a 100 mm square to
    cut out and lay in its corner of the mat, with instructions."""
    new_canvas = _canvas_class()

    fam = _family(family)
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    pw, ph = PAPERS[paper]
    u = _mm()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    c = new_canvas(str(p), pagesize=(pw * u, ph * u), pageCompression=1, invariant=1)
    c.setTitle("Euchre table: the mat's corner markers")
    c.setAuthor("table-controller")
    margin = 15.0
    sq = 100.0
    for marker in FIDUCIALS:
        name = CORNER_NAMES[marker]
        east = "E" in name
        south = "S" in name
        # The square sits in the page corner matching its mat corner (y measured down).
        sx = pw - margin - sq if east else margin
        sy = ph - margin - sq if south else margin
        _sheet(c, fam, marker, sx, sy, sq, pw, ph, u, east, south)
        c.showPage()
    c.save()
    return p


def _sheet(
    c: Any,
    fam: MarkerFamily,
    marker: int,
    sx: float,
    sy: float,
    sq: float,
    pw: float,
    ph: float,
    u: float,
    east: bool,
    south: bool,
) -> None:
    def pt(x: float, y: float) -> tuple[float, float]:  # mm from the top-left -> PDF pt
        return x * u, (ph - y) * u

    name = CORNER_NAMES[marker]
    # The cut square (dashed) and the mat's two edges (solid, thick).
    c.setStrokeColorRGB(0.4, 0.4, 0.4)
    c.setLineWidth(0.5)
    c.setDash(3, 3)
    x0, y0 = pt(sx, sy + sq)
    c.rect(x0, y0, sq * u, sq * u, stroke=1, fill=0)
    c.setDash()
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(1.5)
    ex = sx + sq if east else sx
    ey = sy + sq if south else sy
    c.line(*pt(ex, sy), *pt(ex, sy + sq))
    c.line(*pt(sx, ey), *pt(sx + sq, ey))
    # The marker: 60 mm, centred on the square.
    side = FIDUCIAL_MM
    bits = _marker_bits(fam, marker)
    mx, my = sx + (sq - side) / 2, sy + (sq - side) / 2
    _draw_bits(c, bits, mx * u, (ph - my) * u, side / bits.shape[0] * u)
    # A small label on the square's inner edge, well clear of the marker.
    c.setFillColorRGB(0.25, 0.25, 0.25)
    c.setFont("Helvetica", 7)
    inner_y = sy + 4.5 if south else sy + sq - 2.0
    # "NW 40 ^ North", the arrow drawn (pointing North, up the page).
    first = f"{name} {marker}"
    w1 = _string_width(first, "Helvetica", 7) / u
    w2 = _string_width("North", "Helvetica", 7) / u
    x = sx + sq / 2 - (w1 + 4.0 + w2) / 2
    c.drawString(*pt(x, inner_y), first)
    c.drawString(*pt(x + w1 + 4.0, inner_y), "North")
    ax = x + w1 + 2.0
    c.setLineWidth(0.6)
    c.line(*pt(ax, inner_y), *pt(ax, inner_y - 2.2))
    arrow = c.beginPath()
    arrow.moveTo(*pt(ax - 0.9, inner_y - 1.8))
    arrow.lineTo(*pt(ax + 0.9, inner_y - 1.8))
    arrow.lineTo(*pt(ax, inner_y - 3.0))
    arrow.close()
    c.drawPath(arrow, stroke=0, fill=1)
    # Text: title and instructions, on the side of the page away from the square.
    margin = 15.0
    tx = margin
    ty = sy + sq + 15 if not south else margin + 8
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(
        *pt(tx, ty), f"Corner marker {name} ({marker}): the mat's {CORNER_WORDS[marker]} corner"
    )
    c.setFont("Helvetica", 10)
    lines = [
        "1. Print at 100% ('Actual size', never 'Fit to page'). Check with a ruler: the",
        f"   bar below is 100 mm and the black square is {FIDUCIAL_MM:.0f} mm.",
        "2. Cut along the dashed line (a 100 mm square).",
        f"3. Lay it in the mat's {CORNER_WORDS[marker]} corner, its two thick edges on the mat's",
        "   edges and its small arrow pointing North (towards the North seat). Tape it flat.",
        f"4. The four marker centres must be {SIDE_MM:.0f} mm apart along each side",
        f"   (NW-NE, NE-SE, SE-SW, SW-NW) and {DIAGONAL_MM:.0f} mm across both diagonals",
        f"   (NW-SE, NE-SW). On an 800 mm mat each centre is {MAT_HALF - FIDUCIAL_CENTER:.0f} mm "
        "from both edges.",
        "   On a bare table, place the sheets by those distances, the table's centre in the",
        "   middle, and check the two diagonals are equal.",
        "5. Keep the sheets uncovered and out of glare, then run: table-controller calibrate",
    ]
    for i, line in enumerate(lines):
        c.drawString(*pt(tx, ty + 9 + 5.2 * i), line)
    # The 100 mm check bar.
    by = ty + 9 + 5.2 * len(lines) + 6
    c.setLineWidth(1)
    c.line(*pt(tx, by), *pt(tx + 100, by))
    for k in range(11):
        tick = 4 if k % 5 == 0 else 2
        c.line(*pt(tx + 10 * k, by - tick), *pt(tx + 10 * k, by))
    c.setFont("Helvetica", 8)
    c.drawString(*pt(tx + 103, by), "100 mm")
    # A map of the mat with this corner marked.
    mapx, mapy, mapsz = tx + 130, by - 40, 44.0
    if not south:
        mapx = pw - 15 - mapsz
        mapy = ty + 9 + 5.2 * len(lines) + 4 - mapsz
    c.setLineWidth(0.8)
    c.rect(*pt(mapx, mapy + mapsz), mapsz * u, mapsz * u, stroke=1, fill=0)
    for m in FIDUCIALS:
        fx, fy = fiducial_positions()[m]
        cx = mapx + (fx / (2 * MAT_HALF) + 0.5) * mapsz
        cy = mapy + (fy / (2 * MAT_HALF) + 0.5) * mapsz
        if m == marker:
            c.setFillColorRGB(0, 0, 0)
        else:
            c.setFillColorRGB(0.75, 0.75, 0.75)
        c.rect(*pt(cx - 3, cy + 3), 6 * u, 6 * u, stroke=0, fill=1)
    c.setFillColorRGB(0, 0, 0)
    c.setFont("Helvetica", 7)
    c.drawCentredString(*pt(mapx + mapsz / 2, mapy - 1.5), "North")
    c.drawCentredString(*pt(mapx + mapsz / 2, mapy + mapsz + 3.5), "South")
    c.setFont("Helvetica", 6)
    c.drawString(*pt(tx, ph - 6), "table-controller: Euchre table calibration mat")


def write_full_mat(path: str | Path, family: str | MarkerFamily = "aruco") -> Path:
    """The whole mat on one 800 mm page (for a print shop: vinyl, neoprene, cloth): the
    four fiducials, the zones outlined and the seats named."""
    new_canvas = _canvas_class()

    fam = _family(family)
    u = _mm()
    size = 2 * MAT_HALF
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    c = new_canvas(str(p), pagesize=(size * u, size * u), pageCompression=1, invariant=1)
    c.setTitle("Euchre table mat, 800 mm")

    def pt(x: float, y: float) -> tuple[float, float]:  # table mm -> PDF pt
        return (x + MAT_HALF) * u, (MAT_HALF - y) * u

    c.setStrokeColorRGB(0.55, 0.55, 0.55)
    c.setLineWidth(1.2)
    c.setFont("Helvetica", 14)
    for z in default_zones():
        path_ = c.beginPath()
        path_.moveTo(*pt(*z.polygon[0]))
        for q in z.polygon[1:]:
            path_.lineTo(*pt(*q))
        path_.close()
        c.drawPath(path_, stroke=1, fill=0)
        cx, cy = np.asarray(z.polygon).mean(axis=0)
        c.setFillColorRGB(0.6, 0.6, 0.6)
        c.drawCentredString(*pt(cx, cy), _zone_label(z))
    c.setFont("Helvetica-Bold", 28)
    c.setFillColorRGB(0.45, 0.45, 0.45)
    for word, (x, y), turn in (
        ("NORTH", (0, -MAT_HALF + 30), 180),
        ("SOUTH", (0, MAT_HALF - 30), 0),
        ("EAST", (MAT_HALF - 30, 0), 90),
        ("WEST", (-MAT_HALF + 30, 0), 270),
    ):
        c.saveState()
        c.translate(*pt(x, y))
        c.rotate(turn)
        c.drawCentredString(0, -10, word)
        c.restoreState()
    side = FIDUCIAL_MM
    for marker in FIDUCIALS:
        corners = fiducial_corners(marker)
        bits = _marker_bits(fam, marker)
        x, top = pt(corners[0, 0], corners[0, 1])
        _draw_bits(c, bits, x, top, side / bits.shape[0] * u)
        c.setFont("Helvetica", 9)
        c.setFillColorRGB(0.4, 0.4, 0.4)
        cx, cy = fiducial_positions()[marker]
        below = cy + side / 2 + 12 if cy < 0 else cy - side / 2 - 9
        c.drawCentredString(*pt(cx, below), f"{CORNER_NAMES[marker]} {marker}")
    c.setFont("Helvetica", 9)
    c.setFillColorRGB(0.4, 0.4, 0.4)
    c.drawCentredString(
        *pt(0, MAT_HALF - 8),
        f"Print at 100%: {size:.0f} x {size:.0f} mm, corner markers {side:.0f} mm, their centres "
        f"{SIDE_MM:.0f} mm apart. table-controller",
    )
    c.showPage()
    c.save()
    return p


def write_board(path: str | Path, paper: str = "a4", board: Any | None = None) -> Path:
    """The ChArUco board on one landscape page, with its measurements."""
    new_canvas = _canvas_class()

    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    b = board if board is not None else charuco_board()
    ph, pw = PAPERS[paper]  # landscape
    u = _mm()
    sx, sy = b.getChessboardSize()
    square = float(b.getSquareLength())
    marker = float(b.getMarkerLength())
    ppm = 1.0 if square.is_integer() and marker.is_integer() else 10.0
    bits = board_image(b, ppm) < 128
    bw, bh = sx * square, sy * square
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    c = new_canvas(str(p), pagesize=(pw * u, ph * u), pageCompression=1, invariant=1)
    c.setTitle("ChArUco board for measuring the camera's lens")
    left = (pw - bw) / 2
    top = (ph - bh) / 2 + 6
    _draw_bits(c, bits, left * u, (ph - top) * u, u / ppm)
    c.setFont("Helvetica", 8)
    c.drawString(
        left * u,
        (ph - top + 4) * u,
        f"ChArUco board {sx} x {sy} squares of {square:g} mm, markers {marker:g} mm "
        "(DICT_5X5_100). Print at 100% and check a square with a ruler.",
    )
    c.drawString(
        left * u,
        (ph - top - bh - 5) * u,
        "Glue it flat onto card. Take 10-20 pictures with the camera at its playing "
        "resolution: board tilted, near the edges and corners, then: "
        "table-controller calibrate lens --images DIR",
    )
    c.showPage()
    c.save()
    return p


__all__ = [
    "ADVISED_CELL_PX",
    "DRIFT_PX",
    "MAX_ERROR_MM",
    "MIN_CELL_PX",
    "LensFit",
    "MatFit",
    "Scale",
    "board_image",
    "calibrate",
    "charuco_board",
    "check_fit",
    "corner_label",
    "distort_points",
    "drift",
    "find_fiducials",
    "find_mat",
    "image_to_table",
    "lens",
    "load_lens",
    "measure_lens",
    "overlay",
    "save_lens",
    "scale",
    "sharpness_seen",
    "table_to_image",
    "undistort_points",
    "write_board",
    "write_corner_sheets",
    "write_full_mat",
]
