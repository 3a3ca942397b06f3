"""Whether a card's place shows the empty mat: the evidence a card is gone.

The tracker never declares a card removed because it is merely not read (a hand over
it, glare, a blurred frame): it needs evidence. One is the card read elsewhere; the
other is its place seen empty, decided here from the picture.

``EmptyMat`` learns what the empty mat looks like, live, in a small colour picture of
the zones' box (one cell about ``CELL_MM`` square): wherever no card is read or reported
and the picture holds steady from frame to frame (not a hand moving), the cell's colour
is blended into the reference, so the reference follows light that changes slowly and
never learns a card. A card's place is *empty* when, inside its outline (shrunk by
``MARGIN_MM`` for the error of its position), at least ``EMPTY_SHARE`` of the cells
match the reference within ``TOLERANCE`` (after correcting the whole picture's
brightness, per colour, against the reference) and hold steady. A card face (white,
black markers), its back, a hand, a glare spot or a dark covered lens does not match
the mat, so the card stays reported.

Where the reference has never seen the mat (a card already lying there when the camera
started) a cell is compared with the mat's typical colour instead (the median of what
was learned), with a wider tolerance.

Limits: a hand held perfectly still over a card on a table of the same colour as the
hand (a wood top and skin of the same tone) would look like the table; hands are never
that still for ``empty_frames`` frames in practice, and the felt mat is unlike skin.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.calibration import table_to_image
from table_controller.vision.layout import Calibration

CELL_MM = 4.0  # the reference's cell: a card's place is about 13 x 20 cells
MARGIN_MM = 6.0  # a card's outline shrunk by this on every side before it is looked at
GUARD_MM = 15.0  # and grown by this where learning keeps away from a card
LEARN_BANDS = 8  # a frame's rows are learned from in this many bands, one a frame
LEARN_RATE = 0.1  # a cell's reference follows its colour with this weight a learning
KNOWN_AFTER = 2  # learnings a cell needs before its own reference is used
STEADY = 10  # grey levels a cell may change between two learnings and be learned
TOLERANCE = (0.12, 8.0)  # a cell matches the mat within 12 % of its level plus 8 levels
TYPICAL_TOLERANCE = (0.2, 12.0)  # ... or the mat's typical colour, where never learned
EMPTY_SHARE = 0.9  # share of a place's cells that must match for it to be empty
GAIN_RANGE = (0.5, 2.0)  # a frame much darker or brighter than the mat says nothing
GAIN_SAMPLES = 512  # cells (at most) a band's brightness is measured on

Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]


class EmptyMat:
    """The empty mat's look in the zones' box ``roi`` (x0, y0, x1, y1, image px)."""

    def __init__(self, calibration: Calibration, roi: tuple[int, int, int, int]) -> None:
        self.calibration = calibration
        self.roi = roi
        self.k = max(1, round(CELL_MM * calibration.px_per_mm()))
        x0, y0, x1, y1 = roi
        self.shape = (max(1, (y1 - y0) // self.k), max(1, (x1 - x0) // self.k))
        self.reference: npt.NDArray[np.float32] | None = None
        self.learned = np.zeros(self.shape, np.uint8)  # learnings of each cell, up to 255
        self.gain: npt.NDArray[np.float32] | None = None  # brightness against the reference
        self.frames = 0
        self._previous: Image | None = None  # each band's cells when last learned from
        self._typical: npt.NDArray[np.float32] | None = None

    def cells(self, frame: Image, rows: slice = slice(None), cols: slice = slice(None)) -> Image:
        """The zones' box of a frame (or the cells ``rows`` x ``cols`` of it), one colour
        (or grey) value a cell, H x W x channels."""
        x0, y0, _, _ = self.roi
        h, w = self.shape
        r0, r1, _ = rows.indices(h)
        c0, c1, _ = cols.indices(w)
        k = self.k
        box = frame[y0 + r0 * k : y0 + r1 * k, x0 + c0 * k : x0 + c1 * k]
        small = cv2.resize(box, (c1 - c0, r1 - r0), interpolation=cv2.INTER_AREA)
        return np.asarray(small, np.uint8).reshape(r1 - r0, c1 - c0, -1)

    def look(self, frame: Image, keep_out: Sequence[npt.NDArray[np.float64]]) -> None:
        """Take a frame in: learn the mat from one band of ``1 / LEARN_BANDS`` of its rows
        (the next band each frame, so every frame costs the same) away from the card
        outlines ``keep_out`` (table mm), and measure its brightness there."""
        h, _ = self.shape
        band = self.frames % LEARN_BANDS
        self.frames += 1
        rows = slice(band * h // LEARN_BANDS, (band + 1) * h // LEARN_BANDS)
        if rows.stop <= rows.start:
            return
        now = self.cells(frame, rows)
        if self._previous is None:
            self._previous = self.cells(frame)
        if self.reference is None:
            self.reference = self._previous.astype(np.float32)
        before = self._previous[rows]
        moved = cv2.absdiff(now, before)
        before[...] = now
        if moved.shape[2] > 1:
            moved = np.maximum(np.maximum(moved[..., 0], moved[..., 1]), moved[..., 2])
        steady = moved.reshape(now.shape[:2]) <= STEADY
        free = steady & ~self._mask(keep_out, GUARD_MM)[rows]
        learned = self.learned[rows]
        reference = self.reference[rows]
        gain = self._gain(now, reference, free & (learned >= KNOWN_AFTER))
        if gain is not None:  # too few cells of known mat in this band: keep the last
            lo, hi = GAIN_RANGE
            self.gain = gain if ((gain >= lo) & (gain <= hi)).all() else None
        mask = free.astype(np.uint8)
        fresh = mask & (learned == 0)
        cv2.accumulateWeighted(now, reference, 1.0, mask=fresh)
        cv2.accumulateWeighted(now, reference, LEARN_RATE, mask=mask - fresh)
        np.add(learned, 1, out=learned, where=free & (learned < 255))
        self._typical = None

    def empty(self, frame: Image, outline: npt.NDArray[np.float64]) -> bool:
        """Whether the place of a card (its outline, table mm) shows the empty mat in
        ``frame``, against what :meth:`look` learned."""
        if self.reference is None or self.gain is None:
            return False
        inside, rows, cols = self._place(outline)
        if not inside.any():
            return False
        cells = self.cells(frame, rows, cols)[inside].astype(np.float32)
        known = self.learned[rows, cols][inside] >= KNOWN_AFTER
        expected = self.reference[rows, cols][inside] * self.gain
        rel, base = TOLERANCE
        match = (np.abs(cells - expected) <= rel * expected + base).all(axis=1) & known
        if not known.all():
            typical = self.typical()
            if typical is None:
                return False
            rel, base = TYPICAL_TOLERANCE
            want = typical * self.gain
            match |= ~known & (np.abs(cells - want) <= rel * want + base).all(axis=1)
        return float(match.mean()) >= EMPTY_SHARE

    def typical(self) -> npt.NDArray[np.float32] | None:
        """The mat's typical colour: the median of the cells learned."""
        if self._typical is None:
            known = self.learned >= KNOWN_AFTER
            if not known.any() or self.reference is None:
                return None
            self._typical = np.median(self.reference[known], axis=0).astype(np.float32)
        return self._typical

    def _gain(
        self, now: Image, reference: npt.NDArray[np.float32], known: Mask
    ) -> npt.NDArray[np.float32] | None:
        """The frame's brightness per colour against the reference, from cells where
        the mat is known and nothing is (None: too few). Far from 1 (a covered lens, a
        light switched off), no place is said empty until it is back in ``GAIN_RANGE``."""
        channels = now.shape[2]
        flat = known.ravel()
        idx = np.flatnonzero(flat)
        if len(idx) < 16:
            return None
        idx = idx[:: max(1, len(idx) // GAIN_SAMPLES)]
        flat_now = now.reshape(-1, channels)[idx].astype(np.float32)
        flat_ref = reference.reshape(-1, channels)[idx]
        gain = np.median(flat_now, axis=0) / np.maximum(np.median(flat_ref, axis=0), 1.0)
        return np.asarray(gain, np.float32)

    def _place(self, outline: npt.NDArray[np.float64]) -> tuple[Mask, slice, slice]:
        """The cells inside a card's outline shrunk by ``MARGIN_MM``, as a mask over the
        rows and columns of the grid holding it."""
        h, w = self.shape
        cells = self._cells_of(_grown(outline, -MARGIN_MM))
        r0, c0 = (max(0, int(np.floor(v))) for v in cells.min(axis=0)[::-1])
        r1, c1 = (int(np.ceil(v)) + 1 for v in cells.max(axis=0)[::-1])
        rows, cols = slice(r0, min(h, max(r0, r1))), slice(c0, min(w, max(c0, c1)))
        mask = np.zeros((rows.stop - rows.start, cols.stop - cols.start), np.uint8)
        fixed = np.round((cells - (c0, r0)) * 16).astype(np.int32)
        cv2.fillConvexPoly(mask, fixed, 1, shift=4)
        return mask.astype(bool), rows, cols

    def _cells_of(self, points: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Table mm -> cell coordinates (a cell's centre at whole numbers)."""
        x0, y0, _, _ = self.roi
        px = table_to_image(self.calibration, points)
        return np.asarray((px - (x0, y0)) / self.k - 0.5, np.float64)

    def _mask(self, outlines: Sequence[npt.NDArray[np.float64]], grow_mm: float) -> Mask:
        """The cells whose centres lie inside any of the card outlines (table mm), each
        grown by ``grow_mm`` on every side."""
        mask = np.zeros(self.shape, np.uint8)
        if outlines:
            pts = np.concatenate([_grown(np.asarray(o, np.float64), grow_mm) for o in outlines])
            fixed = np.round(self._cells_of(pts) * 16).astype(np.int32).reshape(-1, 4, 2)
            for poly in fixed:
                cv2.fillConvexPoly(mask, poly, 1, shift=4)
        return mask.astype(bool)


def _grown(outline: npt.NDArray[np.float64], mm: float) -> npt.NDArray[np.float64]:
    """A card's four corners moved ``mm`` outwards along both of its sides."""
    u = outline[1] - outline[0]
    v = outline[3] - outline[0]
    u = u / max(1e-9, float(np.hypot(u[0], u[1])))
    v = v / max(1e-9, float(np.hypot(v[0], v[1])))
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    return np.asarray(outline + mm * (signs[:, :1] * u + signs[:, 1:] * v), np.float64)
