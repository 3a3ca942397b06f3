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
LEARN_RATE = 0.05  # a cell's reference follows its colour with this weight a frame
KNOWN_AFTER = 3  # frames a cell must be learned in before its own reference is used
STEADY = 10.0  # grey levels a cell may change between frames and still hold steady
TOLERANCE = (0.12, 8.0)  # a cell matches the mat within 12 % of its level plus 8 levels
TYPICAL_TOLERANCE = (0.2, 12.0)  # ... or the mat's typical colour, where never learned
EMPTY_SHARE = 0.9  # share of a place's cells that must match for it to be empty
GAIN_RANGE = (0.5, 2.0)  # a frame much darker or brighter than the mat says nothing
GAIN_SAMPLES = 1024  # cells the frame's brightness is measured on

Image = npt.NDArray[np.uint8]
Cells = npt.NDArray[np.float32]


class EmptyMat:
    """The empty mat's look in the zones' box ``roi`` (x0, y0, x1, y1, image px)."""

    def __init__(self, calibration: Calibration, roi: tuple[int, int, int, int]) -> None:
        self.calibration = calibration
        self.roi = roi
        self.k = max(1, round(CELL_MM * calibration.px_per_mm()))
        x0, y0, x1, y1 = roi
        self.shape = (max(1, (y1 - y0) // self.k), max(1, (x1 - x0) // self.k))
        self.reference: Cells | None = None
        self.learned = np.zeros(self.shape, np.int32)  # frames each cell was learned in
        self.steady = np.zeros(self.shape, bool)
        self.gain: Cells | None = None  # this frame's brightness against the reference
        self._previous: Cells | None = None
        self._typical: Cells | None = None
        rng = np.random.default_rng(0)
        n = self.shape[0] * self.shape[1]
        self._sample = rng.choice(n, size=min(n, GAIN_SAMPLES), replace=False)

    def cells(self, frame: Image) -> Cells:
        """The zones' box of a frame, one colour (or grey) value a cell."""
        x0, y0, _, _ = self.roi
        h, w = self.shape
        box = frame[y0 : y0 + h * self.k, x0 : x0 + w * self.k]
        small = cv2.resize(box, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
        return small.reshape(h, w, -1)

    def look(self, frame: Image, keep_out: Sequence[npt.NDArray[np.float64]]) -> Cells:
        """Take a frame in: measure its brightness and learn the mat from it, away from
        the card outlines ``keep_out`` (table mm). Returns its cells for :meth:`empty`."""
        now = self.cells(frame)
        previous = self._previous if self._previous is not None else now
        self.steady = np.abs(now - previous).max(axis=2) <= STEADY
        self._previous = now
        if self.reference is None:
            self.reference = now.copy()
        free = self.steady & ~self._mask(keep_out, GUARD_MM)
        self.gain = self._gain(now, free)
        fresh = free & (self.learned == 0)
        self.reference[fresh] = now[fresh]
        old = free & (self.learned > 0)
        self.reference[old] += LEARN_RATE * (now[old] - self.reference[old])
        self.learned[free] = np.minimum(self.learned[free] + 1, 1 << 20)
        self._typical = None
        return now

    def empty(self, now: Cells, outline: npt.NDArray[np.float64]) -> bool:
        """Whether the place of a card (its outline, table mm) shows the empty mat in the
        frame last given to :meth:`look` (``now``: its cells)."""
        if self.reference is None or self.gain is None:
            return False
        inside = self._mask([outline], -MARGIN_MM)
        if not inside.any():
            return False
        cells = now[inside]
        known = self.learned[inside] >= KNOWN_AFTER
        expected = self.reference[inside] * self.gain
        rel, base = TOLERANCE
        match = (np.abs(cells - expected) <= rel * expected + base).all(axis=1) & known
        unknown = ~known
        if unknown.any():
            typical = self.typical()
            if typical is None:
                return False
            rel, base = TYPICAL_TOLERANCE
            want = typical * self.gain
            match |= unknown & (np.abs(cells - want) <= rel * want + base).all(axis=1)
        match &= self.steady[inside]
        return float(match.mean()) >= EMPTY_SHARE

    def typical(self) -> Cells | None:
        """The mat's typical colour: the median of the cells learned."""
        if self._typical is None:
            known = self.learned >= KNOWN_AFTER
            if not known.any() or self.reference is None:
                return None
            self._typical = np.median(self.reference[known], axis=0).astype(np.float32)
        return self._typical

    def _gain(self, now: Cells, free: npt.NDArray[np.bool_]) -> Cells | None:
        """The frame's brightness per colour against the reference, from cells where
        the mat is known and nothing is; None when it is far from the mat's (a covered
        lens, a light switched off): then no place is said empty."""
        assert self.reference is not None
        idx = self._sample[(free & (self.learned >= KNOWN_AFTER)).ravel()[self._sample]]
        if len(idx) < 16:
            return None
        flat_now = now.reshape(-1, now.shape[2])[idx]
        flat_ref = self.reference.reshape(-1, now.shape[2])[idx]
        gain = np.median(flat_now, axis=0) / np.maximum(np.median(flat_ref, axis=0), 1.0)
        lo, hi = GAIN_RANGE
        if not ((gain >= lo) & (gain <= hi)).all():
            return None
        return gain.astype(np.float32)

    def _mask(
        self, outlines: Sequence[npt.NDArray[np.float64]], grow_mm: float
    ) -> npt.NDArray[np.bool_]:
        """The cells whose centres lie inside any of the card outlines (table mm), each
        grown (or, negative, shrunk) by ``grow_mm`` on every side."""
        mask = np.zeros(self.shape, np.uint8)
        if not outlines:
            return mask.astype(bool)
        pts = np.concatenate([_grown(np.asarray(o, np.float64), grow_mm) for o in outlines])
        px = table_to_image(self.calibration, pts)
        x0, y0, _, _ = self.roi
        cells = (px - (x0, y0)) / self.k - 0.5
        fixed = np.round(cells * 16).astype(np.int32).reshape(-1, 4, 2)
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
