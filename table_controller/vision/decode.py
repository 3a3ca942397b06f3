"""A second, finer look at the outlines ArUco found but could not read.

At 3-4 px a marker cell, a soft lens, the Bayer mosaic and JPEG blur a lone cell into
its neighbours, and ArUco's own decoding (a 4 px a cell sampling of the outline as
found, thresholded) rejects markers whose bits are all there at a finer sampling (issue
18). For every rejected outline of a card marker's size this module:

- samples each of the 6x6 cells in its centre half (a 2x2 pattern, bilinear);
- correlates the 36 cells with every marker of the dictionary, in each of the 4 turns,
  each as printed and as a soft lens blurs it (a few blurs, measured in cells), so that
  uneven light and low contrast do not matter: the best fit names the marker, kept when
  it is one the table can hold (cards 0-23, fiducials 40-43) and its black-to-white
  step is at least ``MIN_CONTRAST`` grey levels.

An outline not surely read at first is polished: its grid scaled (0.95-1.15: the
outline of a soft marker is found about 13% small) and shifted by a quarter cell each
way, the best fit kept (a sub-pixel search where the corners themselves are too soft to
refine: cv2.cornerSubPix moved them further off, the card's edge 3 mm away pulling).

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
        self.centred = np.asarray(centred / self.norms[:, None], np.float32)
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


def _homographies(quads: Quads) -> npt.NDArray[np.float64]:
    """N x 3 x 3: the marker's own cells (0-6 each way) to image px, per outline."""
    unit = np.array([[0, 0], [CELLS, 0], [CELLS, CELLS], [0, CELLS]], np.float32)
    return np.array([cv2.getPerspectiveTransform(unit, q.astype(np.float32)) for q in quads])


def _apply(homs: npt.NDArray[np.float64], pts: npt.NDArray[np.float64]) -> Quads:
    """Points (N x S x 2, in cells) through each outline's homography to image px."""
    ones = np.ones((*pts.shape[:2], 1))
    img = np.matmul(np.concatenate([pts, ones], axis=2), homs.transpose(0, 2, 1))
    return np.asarray(img[..., :2] / img[..., 2:], np.float32)


def _sample(gray: Gray, xy: Quads) -> npt.NDArray[np.float32]:
    """Cell values from the sample points (N x 144 x 2 image px, 2x2 a cell), N x 36."""
    n, side = len(xy), 2 * CELLS
    mx = np.ascontiguousarray(xy[..., 0].reshape(n * side, side))
    my = np.ascontiguousarray(xy[..., 1].reshape(n * side, side))
    seen = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    blocks = seen.astype(np.float32).reshape(n, CELLS, 2, CELLS, 2)
    return np.asarray(blocks.mean(axis=(2, 4)).reshape(n, -1), np.float32)


def cells(gray: Gray, quads: Quads) -> npt.NDArray[np.float32]:
    """The 6x6 cells of the markers outlined by ``quads`` (N x 4 x 2, clockwise from any
    corner), N x 36: each cell's centre half sampled (bilinear) and averaged."""
    pts = np.broadcast_to(_SAMPLES, (len(quads), *_SAMPLES.shape))
    return _sample(gray, _apply(_homographies(quads), pts))


# An outline found on a soft marker is often a fraction of a cell off: the fits it
# may be polished by, the marker's grid shifted by these fractions of a cell each way
# and scaled by these factors about its centre (the outline as found among them).
POLISH_SHIFTS = (-0.25, 0.0, 0.25)
POLISH_SCALES = (0.95, 1.0, 1.05, 1.1, 1.15)  # outlines of soft markers: 13% small
POLISH_FIT = 0.75  # outlines fitting worse than this are not markers: not polished
POLISH_IDS = 3  # the ids a polish scores against (the final fit takes them all)
# A polished grid has more freedom to fit what is not a marker (a 5x5 marker fits a
# card's 4x4 to 0.35 when shifted and scaled): sure only when it fits this closely.
POLISHED_SURE_FIT = 0.3
_UNIT = np.array([[0, 0], [CELLS, 0], [CELLS, CELLS], [0, CELLS]], np.float64)


@dataclass(frozen=True)
class _Fit:
    """The best template of each of N cell patterns, and how well it fits."""

    best: npt.NDArray[np.intp]  # template row
    fit: npt.NDArray[np.float64]  # sqrt(1 - r^2)
    gap: npt.NDArray[np.float64]  # the best other id's fit over this one's
    contrast: npt.NDArray[np.float64]  # the fitted black-to-white step, grey levels
    worst: npt.NDArray[np.float64]  # the cell furthest off, in black-to-white steps
    top: npt.NDArray[np.intp]  # N x POLISH_IDS: the ids that fit best, best first


def _fit(t: Templates, x: npt.NDArray[np.float32]) -> _Fit:
    x = x - x.mean(axis=1, keepdims=True)
    norm = np.linalg.norm(x, axis=1)
    corr = (x @ t.centred.T) / np.maximum(norm, 1e-9)[:, None]  # N x T
    # Each id's best turn and blur, then the best id and the best of the others.
    per_id = corr.reshape(len(x), -1, t.per_id)
    id_best = per_id.max(axis=2)
    order = np.argsort(-id_best, axis=1)[:, :POLISH_IDS]
    rows = np.arange(len(x))
    top, second = id_best[rows, order[:, 0]], id_best[rows, order[:, 1]]
    best = order[:, 0] * t.per_id + per_id[rows, order[:, 0]].argmax(axis=1)
    fit = np.sqrt(np.clip(1.0 - top**2, 0.0, None))
    rival = np.sqrt(np.clip(1.0 - second**2, 0.0, None))
    contrast = np.einsum("ij,ij->i", t.centred[best], x) / t.norms[best]
    # A pattern that fits on the whole but has a cell plainly wrong is not that marker.
    model = t.centred[best] * (t.norms[best] * contrast)[:, None]
    worst = np.abs(x - model).max(axis=1) / np.maximum(contrast, 1e-9)
    return _Fit(best, fit, rival / np.maximum(fit, 1e-6), contrast, worst, order)


def _moved(
    variants: npt.NDArray[np.float64],
    base: npt.NDArray[np.float64] | None,
    pts: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Points (in cells) of each variant (scale, dx, dy) about the marker's centre, on
    top of each outline's ``base`` variant: N x V x P x 2 (N = 1 without a base)."""
    centre = CELLS / 2
    if base is None:
        base = np.array([(1.0, 0.0, 0.0)])
    scale = base[:, None, None, :1] * variants[None, :, None, :1]  # N x V x 1 x 1
    shift = base[:, None, None, 1:] + variants[None, :, None, 1:]  # N x V x 1 x 2
    return np.asarray(centre + scale * (pts[None, None] - centre) + shift, np.float64)


class FinerDecoder:
    """Reads markers from outlines by fitting every marker of the dictionary; only
    ``markers`` (the ones the table can hold) are reported.

    Every id competes, not just the wanted ones: a blurred marker of another id (a
    stray marker of ours, another game's) fits itself best and is dropped, where
    against the wanted ids alone it could come close enough to one of them."""

    def __init__(self, dictionary: cv2.aruco.Dictionary, markers: tuple[int, ...]) -> None:
        self.templates = Templates(dictionary, tuple(range(len(dictionary.bytesList))))
        self.markers = frozenset(markers)

    def read(self, gray: Gray, quads: Quads) -> list[Decoded]:
        """The markers among the outlines (N x 4 x 2, image px of ``gray``); outlines
        that fit no marker well are left out. An outline not surely read at first is
        polished: its grid shifted and scaled a little (``POLISH_*``), the best fit kept."""
        if len(quads) == 0:
            return []
        quads = clockwise(quads)
        t = self.templates
        homs = _homographies(quads)
        pts = np.broadcast_to(_SAMPLES, (len(quads), *_SAMPLES.shape))
        f = _fit(t, _sample(gray, _apply(homs, pts)))
        outline = np.broadcast_to(_UNIT, (len(quads), 4, 2)).copy()
        unsure = np.flatnonzero(((f.fit > SURE_FIT) | (f.gap < SURE_GAP)) & (f.fit <= POLISH_FIT))
        polished = np.zeros(len(quads), bool)
        if len(unsure):
            polished[unsure] = self._polish(gray, homs[unsure], f, unsure, outline)
        found = _apply(homs, outline)
        out: list[Decoded] = []
        ok = (
            (f.fit <= MAYBE_FIT)
            & (f.gap >= MAYBE_GAP)
            & (f.contrast >= MIN_CONTRAST)
            & (f.worst <= MAX_CELL_ERROR)
        )
        for i in np.flatnonzero(ok):
            marker = int(t.ids[f.best[i]])
            if marker not in self.markers:
                continue
            limit = POLISHED_SURE_FIT if polished[i] else SURE_FIT
            sure = bool(f.fit[i] <= limit and f.gap[i] >= SURE_GAP)
            corners = np.roll(found[i], int(t.turns[f.best[i]]), axis=0)
            out.append(
                Decoded(
                    marker,
                    np.asarray(corners, np.float32),
                    sure,
                    float(f.fit[i]),
                    float(f.gap[i]),
                    float(f.worst[i]),
                )
            )
        return out

    def _polish(
        self,
        gray: Gray,
        homs: npt.NDArray[np.float64],
        f: _Fit,
        which: npt.NDArray[np.intp],
        outline: npt.NDArray[np.float64],
    ) -> npt.NDArray[np.bool_]:
        """Shift, then scale, the grid of each outline ``which`` (``POLISH_*``), scoring
        each variant against the few ids that fit it best as found; the variant that
        scores best is fitted against every id, and replaces the fit in ``f`` and the
        outline in ``outline`` where it fits better (returned: where it did)."""
        t = self.templates
        n = len(which)
        rows = f.top[which][:, :, None] * t.per_id + np.arange(t.per_id)
        bank = t.centred[rows.reshape(n, -1)]  # n x R x 36: the candidates' own ids

        def best_of(
            variants: npt.NDArray[np.float64], base: npt.NDArray[np.float64] | None
        ) -> npt.NDArray[np.intp]:
            v = len(variants)
            grids = np.broadcast_to(_moved(variants, base, _SAMPLES), (n, v, *_SAMPLES.shape))
            x = _sample(gray, _apply(np.repeat(homs, v, axis=0), grids.reshape(n * v, -1, 2)))
            x = (x - x.mean(axis=1, keepdims=True)).reshape(n, v, -1)
            score = np.matmul(x, bank.transpose(0, 2, 1)).max(axis=2)
            score /= np.maximum(np.linalg.norm(x, axis=2), 1e-9)
            return np.asarray(score.argmax(axis=1), np.intp)

        # The scale first (the outline of a soft marker is often found a cell's
        # fraction inside its edge), then the shift at that scale.
        scales = np.array([(s, 0.0, 0.0) for s in POLISH_SCALES])
        scale = scales[best_of(scales, None)]
        shifts = np.array([(1.0, dx, dy) for dx in POLISH_SHIFTS for dy in POLISH_SHIFTS])
        shift = shifts[best_of(shifts, scale)]
        pick = np.column_stack([scale[:, 0], shift[:, 1:]])  # n x 3
        grid = _moved(pick, None, _SAMPLES)[0]  # n x S x 2: one variant per outline
        corners = _moved(pick, None, _UNIT)[0]
        g = _fit(t, _sample(gray, _apply(homs, grid)))
        better = g.fit < f.fit[which]
        for name in ("best", "fit", "gap", "contrast", "worst", "top"):
            getattr(f, name)[which[better]] = getattr(g, name)[better]
        outline[which[better]] = corners[better]
        return np.asarray(better, np.bool_)
