"""A second, finer look at the outlines ArUco found but could not read.

At 3-4 px a marker cell, a soft lens, the Bayer mosaic and JPEG blur a lone cell into
its neighbours, and ArUco's own decoding (a 4 px a cell sampling of the outline as
found, thresholded) rejects markers whose bits are all there at a finer sampling (issue
18). For every rejected outline of a card marker's size this module:

- refines the four corners to sub-pixels;
- samples each of the 6x6 cells in its centre half (a 2x2 pattern, bilinear);
- correlates the 36 cells with every marker of the dictionary, in each of the 4 turns,
  each as printed and as a soft lens blurs it (a few blurs, measured in cells), so that
  uneven light and low contrast do not matter: the best fit names the marker, kept when
  it is one the table can hold (cards 0-23, fiducials 40-43) and its black-to-white
  step is at least ``MIN_CONTRAST`` grey levels.

A fit is *sure* when it is close and every other marker (another id, any turn) fits
far worse; it is a *maybe* when it is only clearly the best. A maybe is never used
alone: the card reader takes it only when another read of the same card (its other
marker, or this one found by the first pass) puts the card at the same spot.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

Gray = npt.NDArray[np.uint8]
Quads = npt.NDArray[np.float32]  # N x 4 x 2

CELLS = 6  # a 4x4 marker with its one-cell black border
# Blur of the templates, Gaussian sigma in cells: sharp, soft, very soft.
BLURS = (0.0, 0.3, 0.45, 0.6)
MIN_CONTRAST = 18.0  # grey levels from the marker's black to its white

# Fit thresholds on sqrt(1 - r^2), r the correlation of the 36 cells with a template: a
# sure read fits within SURE_FIT and the best other marker (another id) SURE_GAP times worse.
SURE_FIT, SURE_GAP = 0.45, 1.4
MAYBE_FIT, MAYBE_GAP = 0.55, 1.15
MAX_CELL_ERROR = 0.8  # true markers: 0.4 at p99, 0.69 at most (hard frames)


@dataclass(frozen=True)
class Decoded:
    """A marker read from an outline: its id, its corners (clockwise from its own
    top-left, refined), whether the read is sure, and how well it fit."""

    marker: int
    corners: npt.NDArray[np.float32]
    sure: bool
    fit: float  # sqrt(1 - r^2), r the correlation with the best template
    gap: float  # the best other marker's fit over this one's
    worst: float = 0.0  # the cell furthest from the template, in black-to-white steps


def _blur_kernel(sigma: float) -> npt.NDArray[np.float64]:
    if sigma <= 0:
        return np.array([[1.0]])
    r = np.arange(-2, 3, dtype=np.float64)
    g = np.exp(-0.5 * (r / sigma) ** 2)
    k = np.outer(g, g)
    return np.asarray(k / k.sum(), np.float64)


class Templates:
    """Markers as their 6x6 cells would look (0 black, 1 white) in each turn and at each
    blur: ``bank`` is T x 36, ``ids`` and ``turns`` name them; ``centred`` holds the
    rows centred and of unit length, ``norms`` their lengths before."""

    def __init__(self, dictionary: cv2.aruco.Dictionary, markers: tuple[int, ...]) -> None:
        rows: list[npt.NDArray[np.float64]] = []
        ids: list[int] = []
        turns: list[int] = []
        for marker in markers:
            cells = cv2.aruco.generateImageMarker(dictionary, marker, CELLS).astype(np.float64)
            cells /= 255.0
            for turn in range(4):
                grid = np.ones((CELLS + 6, CELLS + 6))  # the white around the marker
                grid[3:-3, 3:-3] = np.rot90(cells, turn)
                for sigma in BLURS:
                    seen = cv2.filter2D(grid, -1, _blur_kernel(sigma))
                    rows.append(np.asarray(seen[3:-3, 3:-3], np.float64).ravel())
                    ids.append(marker)
                    turns.append(turn)
        self.bank = np.array(rows, np.float64)
        centred = self.bank - self.bank.mean(axis=1, keepdims=True)
        # Unit rows: a dot product with a centred, unit observation is their correlation.
        self.norms = np.linalg.norm(centred, axis=1)
        self.centred = centred / self.norms[:, None]
        self.ids = np.array(ids)
        self.turns = np.array(turns)
        self.per_id = 4 * len(BLURS)  # rows of one id, together


def clockwise(quads: Quads) -> Quads:
    """The quads' corners in clockwise order in the image (y down), starting anywhere."""
    q = np.asarray(quads, np.float32).copy()
    a, b, c = q[:, 0], q[:, 1], q[:, 2]
    cross = (b[:, 0] - a[:, 0]) * (c[:, 1] - b[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - b[:, 0])
    flip = cross < 0
    q[flip] = q[flip][:, ::-1]
    return q


def refine(gray: Gray, quads: Quads, cell_px: float) -> Quads:
    """Sub-pixel corners: each corner looked for within half a cell (a window that does
    not reach the cells inside the border); a corner moved further is kept as found."""
    if len(quads) == 0:
        return quads
    half = max(2, round(0.5 * cell_px))
    pts = np.ascontiguousarray(quads.reshape(-1, 1, 2), np.float32)
    h, w = gray.shape[:2]
    inside = (
        (pts[:, 0, 0] > half + 1)
        & (pts[:, 0, 0] < w - half - 2)
        & (pts[:, 0, 1] > half + 1)
        & (pts[:, 0, 1] < h - half - 2)
    )
    if not inside.any():
        return quads
    moved = pts[inside].copy()
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.02)
    cv2.cornerSubPix(gray, moved, (half, half), (-1, -1), criteria)
    shift = np.linalg.norm(moved - pts[inside], axis=2).ravel()
    ok = shift <= 0.6 * cell_px
    out = pts.copy()
    idx = np.flatnonzero(inside)[ok]
    out[idx] = moved[ok]
    return np.asarray(out.reshape(-1, 4, 2), np.float32)


# Where each cell is sampled, in cells from the marker's top-left: a 2x2 pattern in
# the cell's centre half (its edges are its neighbours' blur).
_SAMPLES = (
    np.stack(
        np.meshgrid(
            np.add.outer(np.arange(CELLS), (0.375, 0.625)).ravel(),
            np.add.outer(np.arange(CELLS), (0.375, 0.625)).ravel(),
        ),
        axis=-1,
    )
    .reshape(-1, 2)
    .astype(np.float64)
)


def cells(gray: Gray, quads: Quads) -> npt.NDArray[np.float64]:
    """The 6x6 cells of the markers outlined by ``quads`` (N x 4 x 2, clockwise from any
    corner), N x 36: each cell's centre half sampled (bilinear) and averaged."""
    unit = np.array([[0, 0], [CELLS, 0], [CELLS, CELLS], [0, CELLS]], np.float32)
    homs = np.array([cv2.getPerspectiveTransform(unit, q.astype(np.float32)) for q in quads])
    pts = np.concatenate([_SAMPLES, np.ones((len(_SAMPLES), 1))], axis=1)  # S x 3
    img = np.einsum("nij,sj->nsi", homs, pts)  # N x S x 3
    xy = (img[..., :2] / img[..., 2:]).astype(np.float32)  # N x S x 2
    side = 2 * CELLS
    mx = np.ascontiguousarray(xy[..., 0].reshape(len(quads) * side, side))
    my = np.ascontiguousarray(xy[..., 1].reshape(len(quads) * side, side))
    seen = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    blocks = seen.astype(np.float64).reshape(len(quads), CELLS, 2, CELLS, 2)
    return np.asarray(blocks.mean(axis=(2, 4)).reshape(len(quads), -1), np.float64)


class FinerDecoder:
    """Reads markers from outlines by fitting every marker of the dictionary; only
    ``markers`` (the ones the table can hold) are reported.

    Every id competes, not just the wanted ones: a blurred marker of another id (a
    stray marker of ours, another game's) fits itself best and is dropped, where
    against the wanted ids alone it could come close enough to one of them."""

    def __init__(self, dictionary: cv2.aruco.Dictionary, markers: tuple[int, ...]) -> None:
        self.templates = Templates(dictionary, tuple(range(len(dictionary.bytesList))))
        self.markers = frozenset(markers)

    def read(self, gray: Gray, quads: Quads, cell_px: float) -> list[Decoded]:
        """The markers among the outlines (N x 4 x 2, image px of ``gray``); outlines
        that fit no marker well are left out."""
        if len(quads) == 0:
            return []
        quads = refine(gray, clockwise(quads), cell_px)
        t = self.templates
        x = cells(gray, quads)
        x -= x.mean(axis=1, keepdims=True)
        norm = np.linalg.norm(x, axis=1)
        corr = (x @ t.centred.T) / np.maximum(norm, 1e-9)[:, None]  # N x T
        # Each id's best turn and blur, then the best id and the best of the others.
        per_id = corr.reshape(len(quads), -1, t.per_id)
        id_best = per_id.max(axis=2)
        order = np.argsort(-id_best, axis=1)[:, :2]
        rows = np.arange(len(quads))
        top, second = id_best[rows, order[:, 0]], id_best[rows, order[:, 1]]
        best = order[:, 0] * t.per_id + per_id[rows, order[:, 0]].argmax(axis=1)
        fit = np.sqrt(np.clip(1.0 - top**2, 0.0, None))
        rival = np.sqrt(np.clip(1.0 - second**2, 0.0, None))
        gap = rival / np.maximum(fit, 1e-6)
        # The fitted template's black-to-white step, in grey levels.
        contrast = np.einsum("ij,ij->i", t.centred[best], x) / t.norms[best]
        # The cell furthest from the fitted template, in black-to-white steps: a pattern
        # that fits on the whole but has a cell plainly wrong is not that marker.
        model = t.centred[best] * (t.norms[best] * contrast)[:, None]
        worst = np.abs(x - model).max(axis=1) / np.maximum(contrast, 1e-9)
        out: list[Decoded] = []
        for i in np.flatnonzero(
            (fit <= MAYBE_FIT)
            & (gap >= MAYBE_GAP)
            & (contrast >= MIN_CONTRAST)
            & (worst <= MAX_CELL_ERROR)
        ):
            marker = int(t.ids[best[i]])
            if marker not in self.markers:
                continue
            sure = bool(fit[i] <= SURE_FIT and gap[i] >= SURE_GAP)
            corners = np.roll(quads[i], int(t.turns[best[i]]), axis=0)
            out.append(
                Decoded(
                    marker,
                    np.asarray(corners, np.float32),
                    sure,
                    float(fit[i]),
                    float(gap[i]),
                    float(worst[i]),
                )
            )
        return out
