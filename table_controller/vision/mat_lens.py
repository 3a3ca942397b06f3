"""The lens's barrel distortion measured from the mat itself, in the same picture.

A wide lens pulls the picture's edges towards its centre, more the farther out: each of
the mat's corner markers comes out squeezed along the line to the picture's centre
(a marker at radius r is shrunk radially by about 1 + 3 k r^2 but across only by
1 + k r^2). A homography cannot bend like that, so its fit through the 16 fiducial
corners leaves that pattern in its residuals, and the zones in between come out a few
millimetres off. The first-order radial model (one coefficient, k1, about the picture's
centre) fitted together with the homography takes it out.

From one picture of a flat mat only k1 / f^2 can be told (a longer focal length with a
stronger k1 bends the picture the same way), so the focal length is a guess
(:func:`focal_guess`) and k1 is given at that focal length; the correction is the same.
How far the lens pulls the mat's corners in (:meth:`RadialFit.bend_px`) says it without
the guess.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Points = npt.NDArray[np.float64]
Matrix = npt.NDArray[np.float64]

K1_RANGE = (-0.8, 0.3)  # at the guessed focal length: beyond a fisheye, or pincushion
MIN_EXPLAINED_MM2 = 0.1  # mm^2 of the plain fit's mean square miss the lens must explain
MAX_LEFT = 0.85  # ... leaving at most this share of its rms
ALIKE = 1.045  # the largest over the smallest marker size, both ways, for "alike"


def focal_guess(size: tuple[int, int]) -> float:
    """A focal length (px) for a picture of ``size``, the guess k1 is given at: half
    its diagonal (a view about 82 degrees across at 16:9, between the usual 66 and the
    wide 102). Only k1 / f^2 counts; a guess near the short end keeps k1 small, and the
    model invertible out to the picture's corners."""
    return math.hypot(*size) / 2


def camera_matrix(size: tuple[int, int], focal_px: float | None = None) -> Matrix:
    """K with the principal point at the picture's centre (pixel centres at integers)."""
    w, h = size
    f = focal_guess(size) if focal_px is None else focal_px
    return np.array([[f, 0.0, (w - 1) / 2], [0.0, f, (h - 1) / 2], [0.0, 0.0, 1.0]])


def undistort_radial(points: npt.ArrayLike, k: Matrix, k1: float) -> Points:
    """Seen pixels as a perfect lens would have put them, for the one-coefficient model
    (solved by Newton's method on the radius: exact where OpenCV's fixed iterations are
    not, at a wide lens's corners)."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    c = k[:2, 2]
    f = k[0, 0]
    d = (pts - c) / f
    rd = np.linalg.norm(d, axis=1)
    ru = rd.copy()
    for _ in range(30):  # ru (1 + k1 ru^2) = rd
        g = ru * (1 + k1 * ru**2) - rd
        dg = 1 + 3 * k1 * ru**2
        ru = ru - g / np.where(np.abs(dg) < 1e-9, 1e-9, dg)
    scale = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
    return np.asarray(c + d * scale[:, None] * f, np.float64)


@dataclass(frozen=True)
class RadialFit:
    """The homography (undistorted px -> table mm) and the lens's k1 fitted together."""

    k1: float
    camera_matrix: Matrix
    homography: Matrix
    residual_mm: npt.NDArray[np.float64]

    @property
    def distortion(self) -> Matrix:
        return np.array([self.k1, 0.0, 0.0, 0.0, 0.0])

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.residual_mm**2)))

    @property
    def max_mm(self) -> float:
        return float(self.residual_mm.max())

    def bend_px(self, seen_px: npt.ArrayLike) -> float:
        """How far (px) the lens moved the farthest of the points seen (the mat's
        corners): k1's size without the focal length guess."""
        pts = np.asarray(seen_px, np.float64).reshape(-1, 2)
        und = undistort_radial(pts, self.camera_matrix, self.k1)
        return float(np.linalg.norm(und - pts, axis=1).max())


def _homography(src: Points, dst: Points) -> Matrix | None:
    hom, _ = cv2.findHomography(src, dst, 0)
    if hom is None or not np.isfinite(hom).all() or abs(hom[2, 2]) < 1e-12:
        return None
    return np.asarray(hom / hom[2, 2], np.float64)


def _residual(hom: Matrix, src: Points, dst: Points) -> npt.NDArray[np.float64]:
    p = cv2.perspectiveTransform(src.reshape(-1, 1, 2), hom).reshape(-1, 2)
    return np.asarray(np.linalg.norm(p - dst, axis=1), np.float64)


def _golden(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-5) -> float:
    """The minimum of a function with one dip between ``lo`` and ``hi``."""
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def fit_radial(
    image_px: npt.ArrayLike, table_mm: npt.ArrayLike, size: tuple[int, int]
) -> RadialFit | None:
    """The k1 (at :func:`focal_guess`) and homography that best map the seen corners
    onto the table (least squares in mm). None when no homography fits at all."""
    src = np.asarray(image_px, np.float64).reshape(-1, 2)
    dst = np.asarray(table_mm, np.float64).reshape(-1, 2)
    k = camera_matrix(size)

    def cost(k1: float) -> float:
        hom = _homography(undistort_radial(src, k, k1), dst)
        if hom is None:
            return 1e12
        return float(np.sum(_residual(hom, undistort_radial(src, k, k1), dst) ** 2))

    # A coarse scan first (the cost can have a shallow second dip far out), then refine.
    grid = np.linspace(K1_RANGE[0], K1_RANGE[1], 45)
    costs = [cost(float(g)) for g in grid]
    i = int(np.argmin(costs))
    step = grid[1] - grid[0]
    lo, hi = max(K1_RANGE[0], grid[i] - step), min(K1_RANGE[1], grid[i] + step)
    k1 = _golden(cost, lo, hi)
    und = undistort_radial(src, k, k1)
    hom = _homography(und, dst)
    if hom is None:
        return None
    return RadialFit(k1, k, hom, _residual(hom, und, dst))


@dataclass(frozen=True)
class MarkerShape:
    """How each fiducial's printed square comes out on the table (mm), measured in the
    frame of a homography through the four marker centres only: a lens squeezes a
    marker along the line from the picture's centre (radial) and hardly across it
    (tangential); a sheet printed at the wrong size is smaller or larger both ways."""

    radial_mm: npt.NDArray[np.float64]  # 4, NW NE SE SW
    tangential_mm: npt.NDArray[np.float64]  # 4

    @property
    def size_mm(self) -> float:
        """The markers' size across (the direction a lens leaves alone)."""
        return float(np.median(self.tangential_mm))

    @property
    def alike(self) -> bool:
        """All four markers the same size, both ways (within a few per cent): what a
        print at the wrong scale gives, and neither a lens nor a misplaced sheet."""
        sizes = np.concatenate([self.radial_mm, self.tangential_mm])
        return float(sizes.max() / sizes.min()) < ALIKE

    @property
    def squeeze(self) -> float:
        """Radial over tangential size, the median marker: 1 for a straight lens, below
        1 for a barrel lens (about 1 + 2 k1 r^2)."""
        return float(np.median(self.radial_mm / self.tangential_mm))


def marker_shape(
    image_px: npt.ArrayLike, table_mm: npt.ArrayLike, size: tuple[int, int]
) -> MarkerShape | None:
    """The four markers' radial and tangential sizes (``image_px``: 16 corners, four a
    marker, undistorted if a lens is known; ``table_mm`` their true places)."""
    px = np.asarray(image_px, np.float64).reshape(4, 4, 2)
    mm = np.asarray(table_mm, np.float64).reshape(4, 4, 2)
    centres_px = px.mean(axis=1).astype(np.float32)
    centres_mm = mm.mean(axis=1).astype(np.float32)
    try:
        hom = np.asarray(cv2.getPerspectiveTransform(centres_px, centres_mm), np.float64)
    except cv2.error:
        return None
    if not np.isfinite(hom).all():
        return None
    w, h = size
    middle = cv2.perspectiveTransform(np.array([[[(w - 1) / 2, (h - 1) / 2]]]), hom)[0, 0]
    radial, tangential = [], []
    for i in range(4):
        seen = cv2.perspectiveTransform(px[i].reshape(-1, 1, 2), hom).reshape(4, 2)
        true = mm[i] - mm[i].mean(axis=0)
        got = seen - seen.mean(axis=0)
        a, *_ = np.linalg.lstsq(true, got, rcond=None)  # got = true @ a
        out = mm[i].mean(axis=0) - middle
        u = out / max(float(np.linalg.norm(out)), 1e-9)
        t = np.array([-u[1], u[0]])
        side = float(np.linalg.norm(true[1] - true[0]))
        radial.append(float(np.linalg.norm(u @ a)) * side)
        tangential.append(float(np.linalg.norm(t @ a)) * side)
    return MarkerShape(np.array(radial), np.array(tangential))


def lens_helps(plain_rms_mm: float, fit: RadialFit) -> bool:
    """Is the fitted lens worth keeping: the radial pattern explains a part of the plain
    fit's miss well above what the corners' own noise could (one more number fitted
    to 32 takes out about 1/23 of the noise's square, far below
    :data:`MIN_EXPLAINED_MM2` at the noise seen), and a good share of it."""
    explained = plain_rms_mm**2 - fit.rms_mm**2
    return explained >= MIN_EXPLAINED_MM2 and fit.rms_mm <= MAX_LEFT * plain_rms_mm


__all__ = [
    "MarkerShape",
    "RadialFit",
    "camera_matrix",
    "fit_radial",
    "focal_guess",
    "lens_helps",
    "marker_shape",
    "undistort_radial",
]
