"""How sharp the camera sees the table, measured at the mat's corner markers.

Each fiducial is a black square on white paper: its four outer edges are straight steps
from black to white. A sharp lens shows each step within about a pixel; a soft one
spreads it. Across each edge the grey level is sampled along the edge's normal, the
profiles of one side averaged (noise falls with every sample), levelled between the
side's own black and white (so the light level does not count) and the 10-90 % rise
width read off. A step blurred by a Gaussian of sigma s rises from 10 % to 90 % over
2 x 1.2816 s, so the width divided by 2.563 is the *equivalent blur sigma* in the
picture's pixels: the figure `calibrate` prints and the live view shows.

The same profiles put each edge at its 50 % crossing, which blur does not move, and the
marker's corners at the crossings of its edge lines: sharper corners for measuring the
lens (:mod:`table_controller.vision.mat_lens`) than a corner detector's, which a soft
picture pulls into the black.

Why :data:`SOFTEST_BLUR_PX` is 1.5 (px at 1280x720, the equivalent sigma measured
here): card markers must read down to about 3 px a cell (``calibration.MIN_CELL_PX``;
calibrate advises 3.5), and in one frame. A cell's black-white step spread over sigma s
px leaves a lone white cell of c px between black ones a contrast of
erf(c / (2 sqrt(2) s)): 0.70 at c = 3.5, s = 1.5, which the reader's second decode
(:mod:`table_controller.vision.decode`, a fit of the whole marker at several blurs)
still reads; past about 1.6 the rate falls. Measured with ``bench/focus_limit.py
--venues 150`` on the camera model (:mod:`table_controller.vision.optics`: random
venues with their own focus, lens, light, Bayer, sharpening and JPEG; glare not
excluded), the share of sharp unoccluded cards read in one frame, by the blur the
calibration measures:

    blur (sigma)   <0.9   0.9-1.1  1.1-1.3  1.3-1.5  1.5-1.6  1.6-2.0
    1280x720       99.7%  99.1%    99.6%    99.4%    99.4%    95.7%
    1920x1080      99.1%  99.9%    99.8%    100%     98.7%    99.5%

(3.4-3.8 px a cell at 1280x720, 5.1-5.7 at 1920x1080; the misses below the limit are
under glare.) Of the venues ``calibrate`` accepts at 1.5 and does not warn of glare,
99.8 % of cards read at 1280x720 and 99.6 % at 1920x1080 (docs/benchmarks.md). The
limit grows with a picture wider than 1280 (:attr:`Sharpness.limit_px`): the same lens
blur spreads over more pixels of a larger picture, and so do the cells.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]

SOFTEST_BLUR_PX: float = 1.5  # the largest equivalent blur sigma calibrate accepts (1280x720)
REFERENCE_WIDTH = 1280  # SOFTEST_BLUR_PX is in pixels of a picture this wide
RISE_PER_SIGMA = 2 * 1.2815516  # a Gaussian-blurred step's 10-90 % width, in sigmas
MIN_CONTRAST = 25.0  # grey levels between an edge's black and white to measure it


@dataclass(frozen=True)
class MarkerEdges:
    """One fiducial's outer edges, measured."""

    corners: Points  # 4 x 2, from the edge lines' crossings (clockwise, as given)
    blur_px: float  # equivalent Gaussian sigma, median of the sides measured (nan: none)
    sides: int  # sides measured (contrast enough, in the picture)


def _sample(gray: npt.NDArray[np.float32], xy: Points) -> npt.NDArray[np.float32]:
    """Bilinear grey levels at the points (N x ... x 2)."""
    shape = xy.shape[:-1]
    flat = xy.reshape(-1, 1, 2).astype(np.float32)
    out = cv2.remap(
        gray, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.asarray(out, np.float32).reshape(shape)


def _crossings(
    profiles: npt.NDArray[np.float64], level: float, near: float
) -> npt.NDArray[np.float64]:
    """Where each rising profile (a row) crosses ``level``, as a fractional index: the
    crossing nearest index ``near``, so that a data cell's edge farther in is not taken
    (nan where a row never crosses)."""
    above = profiles >= level
    rises = ~above[:, :-1] & above[:, 1:]
    idx = np.arange(rises.shape[1], dtype=np.float64)
    distance = np.where(rises, np.abs(idx - near), np.inf)
    j = np.argmin(distance, axis=1)
    rows = np.arange(len(profiles))
    a, b = profiles[rows, j], profiles[rows, j + 1]
    step = np.where(b != a, (level - a) / np.where(b != a, b - a, 1.0), 0.0)
    return np.where(rises.any(axis=1), j + step, np.nan)


def _quantile(values: npt.NDArray[np.float64], q: float) -> float:
    """The ``q`` quantile, the nearest sample (numpy's interpolating one is several
    times slower, and the live view measures every frame it shows)."""
    flat = np.sort(values, axis=None)
    return float(flat[round(q * (len(flat) - 1))])


def _side(
    gray: npt.NDArray[np.float32], a: Points, b: Points, outward: Points, cell_px: float
) -> tuple[Points, float] | None:
    """One side from corner ``a`` to ``b``: its edge points at the 50 % crossing and its
    10-90 % rise width (px), or None when it cannot be measured."""
    length = float(np.linalg.norm(b - a))
    if length < 8:
        return None
    n = max(8, int(length / 1.5))
    ts = np.linspace(0.2, 0.8, n)
    step = 0.1
    reach_in = max(1.2, 0.7 * cell_px)  # inside: the one-cell black border
    reach_out = max(2.0, 1.2 * cell_px)  # outside: the white paper
    offsets = np.arange(-reach_in, reach_out + 1e-9, step)
    centres = a[None, :] + (b - a)[None, :] * ts[:, None]
    grid = centres[:, None, :] + offsets[None, :, None] * outward[None, None, :]
    profiles = _sample(gray, grid).astype(np.float64)  # n x len(offsets)
    # Each sample's own 50 % crossing: the edge's position along the side.
    black = _quantile(profiles[:, offsets < -0.5 * reach_in], 0.2)
    white = _quantile(profiles[:, offsets > 0.5 * reach_out], 0.8)
    if white - black < MIN_CONTRAST:
        return None
    zero = reach_in / step  # the index of the detector's edge
    x = _crossings(profiles, (black + white) / 2, zero)
    found = np.isfinite(x)
    if found.sum() < max(4, n // 3):
        return None
    shifts = offsets[0] + x[found] * step
    points = centres[found] + shifts[:, None] * outward[None, :]
    # The profiles, aligned on their own crossings and averaged: the rise width.
    stacked = points[:, None, :] + offsets[None, :, None] * outward[None, None, :]
    mean = _sample(gray, stacked).astype(np.float64).mean(axis=0)
    lo = _quantile(mean[offsets < -0.5 * reach_in], 0.5)
    hi = _quantile(mean[offsets > 0.5 * reach_out], 0.5)
    if hi - lo < MIN_CONTRAST:
        return None
    norm = ((mean - lo) / (hi - lo))[None, :]
    x10 = float(_crossings(norm, 0.1, zero)[0])
    x90 = float(_crossings(norm, 0.9, zero)[0])
    if not (math.isfinite(x10) and math.isfinite(x90)) or x90 <= x10:
        return points, math.nan
    return points, float((x90 - x10) * step)


def _intersect(p1: Points, d1: Points, p2: Points, d2: Points) -> Points | None:
    m = np.column_stack([d1, -d2])
    if abs(np.linalg.det(m)) < 1e-9:
        return None
    t = np.linalg.solve(m, p2 - p1)
    return np.asarray(p1 + t[0] * d1, np.float64)


def marker_edges(gray: Image, corners: npt.ArrayLike, cells: int = 6) -> MarkerEdges:
    """Measure one black-bordered marker (``corners`` clockwise, as a detector gives
    them): its corners from its edge lines and how soft its edges are."""
    seen = np.asarray(corners, np.float64).reshape(4, 2)
    side_px = float(np.mean(np.linalg.norm(seen - np.roll(seen, -1, axis=0), axis=1)))
    cell_px = side_px / cells
    # Only the marker and a margin round it, as floats (not the whole frame).
    h, w = gray.shape[:2]
    margin = 2 * cell_px + 4
    x0, y0 = np.clip(np.floor(seen.min(axis=0) - margin), 0, [w - 1, h - 1]).astype(int)
    x1, y1 = np.clip(np.ceil(seen.max(axis=0) + margin), 0, [w - 1, h - 1]).astype(int)
    g = np.asarray(gray[y0 : y1 + 1, x0 : x1 + 1], np.float32)
    origin = np.array([x0, y0], np.float64)
    c = seen - origin
    centre = c.mean(axis=0)
    lines: list[tuple[Points, Points] | None] = []
    widths = []
    for i in range(4):
        a, b = c[i], c[(i + 1) % 4]
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        normal = np.array([d[1], -d[0]])
        if np.dot(normal, (a + b) / 2 - centre) < 0:
            normal = -normal
        got = _side(g, a, b, normal, cell_px)
        if got is None:
            lines.append(None)
            continue
        pts, width = got
        if math.isfinite(width):
            widths.append(width)
        vx, vy, px, py = cv2.fitLine(pts.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([px, py], np.float64), np.array([vx, vy], np.float64)))
    refined = c.copy()
    for i in range(4):  # corner i lies on sides i-1 and i
        before, after = lines[(i - 1) % 4], lines[i]
        if before is None or after is None:
            continue
        x = _intersect(before[0], before[1], after[0], after[1])
        if x is not None and np.linalg.norm(x - c[i]) < max(2.0, 0.5 * cell_px):
            refined[i] = x
    blur = float(np.median(widths)) / RISE_PER_SIGMA if widths else math.nan
    return MarkerEdges(refined + origin, blur, sum(line is not None for line in lines))


@dataclass(frozen=True)
class Sharpness:
    """How soft the picture is at each fiducial, and whether calibrate accepts it."""

    blur_px: dict[int, float]  # equivalent sigma per fiducial (px in this picture)
    width: int  # the picture's width, px

    @property
    def worst_px(self) -> float:
        """The softest fiducial's blur (nan when none could be measured)."""
        values = [v for v in self.blur_px.values() if math.isfinite(v)]
        return max(values) if values else math.nan

    @property
    def limit_px(self) -> float:
        """:data:`SOFTEST_BLUR_PX` in this picture's pixels: the same blur of the lens
        spreads over more pixels of a wider picture (and its cells over more too). Never
        below the figure itself: a smaller picture is already warned of for its cells."""
        return SOFTEST_BLUR_PX * max(1.0, self.width / REFERENCE_WIDTH)

    @property
    def sharp_enough(self) -> bool:
        worst = self.worst_px
        return not math.isfinite(worst) or worst <= self.limit_px


def sharpness(gray: Image, fiducials: Mapping[int, npt.ArrayLike], cells: int = 6) -> Sharpness:
    """The blur at each fiducial seen (``fiducials``: marker -> its 4 corners)."""
    blur = {m: marker_edges(gray, c, cells).blur_px for m, c in fiducials.items()}
    return Sharpness(blur, int(gray.shape[1]))


def blur_figures(sharp: Sharpness) -> tuple[str, str]:
    """The measured blur and its limit as shown: one decimal, two near the limit, so a
    refusal never reads "blurred over 1.5 px, at most 1.5 px" (1.54 against 1.50)."""
    worst, limit = sharp.worst_px, sharp.limit_px
    digits = 2 if abs(worst - limit) < 0.05 else 1
    return f"{worst:.{digits}f}", f"{limit:.{digits}f}"


def focus_advice(sharp: Sharpness, camera: str | None = None) -> str:
    """What to do about a soft picture, for the camera in use."""
    worst, limit = blur_figures(sharp)
    return (
        f"the picture is soft: the corner markers' edges are blurred over {worst} "
        f"px (sigma), at most {limit} px reads cards reliably. Focus the camera "
        "on the table top. Raspberry Pi Camera Module 3: set the lens with "
        "`--camera picamera2,lens_position=D`, D about 1 / the camera's height in metres "
        "(1.0 m: 1.0, 1.2 m: 0.8), or leave it on autofocus. A fixed-focus USB camera: "
        "turn the lens ring until the markers' edges are crisp. Check it with "
        "`table-controller vision live --view`, which shows this figure, then calibrate again"
    )


__all__ = [
    "REFERENCE_WIDTH",
    "SOFTEST_BLUR_PX",
    "MarkerEdges",
    "Sharpness",
    "focus_advice",
    "marker_edges",
    "sharpness",
]
