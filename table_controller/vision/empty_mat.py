"""Whether a card's place shows the empty mat: the evidence a card is gone.

The tracker never declares a card removed because it is merely not read (a hand over
it, glare, a blurred frame): it needs evidence. One is the card read elsewhere; the
other is its place seen empty, decided here from the picture.

``EmptyMat`` learns what the empty mat looks like, live, in a small colour picture of
the zones' box (one cell about ``CELL_MM`` square), from one band of rows in every
other frame so that the cost is small and the same every time: wherever no card is
read or reported lying and the picture holds steady from one look to the next (not a
hand moving), the cell's colour is blended into the reference, so the reference
follows light that changes slowly and never learns a card. A card's place is *empty*
when, inside its outline (shrunk by ``MARGIN_MM`` for the error of its position) and
outside the cards read in the frame, at least ``EMPTY_SHARE`` of the cells match the
reference within ``TOLERANCE``, after correcting the picture's brightness per colour
against the reference. A card face, its back, a hand or a glare spot does not match
the mat, so the card stays reported; a picture far darker or brighter than the mat (a
covered lens) is neither learned from nor said to show any place empty.

Where the reference has never seen the mat (a card already lying there when the camera
started) a cell is compared with the mat's typical colour instead (the median of what
was learned), with a wider tolerance.

Limits: a hand held perfectly still over a card on a table of the same colour as the
hand (a wood top and skin of the same tone) would look like the table; hands are never
that still for the tracker's ``empty_frames`` in practice, and the felt mat is unlike
skin. A light that changes for good by more than ``GAIN_RANGE`` stops all removals
(moves are still reported) until the table is watched afresh.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.vision.calibration import table_to_image
from table_controller.vision.layout import Calibration
from table_controller.vision.zones import Outline

CELL_MM = 4.0  # the reference's cell: a card's place is about 13 x 20 cells
MARGIN_MM = 6.0  # a card's outline shrunk by this on every side before it is looked at
GUARD_MM = 15.0  # and grown by this where learning keeps away from a card
LEARN_EVERY = 2  # frames: the mat is learned from one frame in two ...
LEARN_BANDS = 8  # ... and from one band of its rows of this many, the next each time
LEARN_RATE = 0.1  # a cell's reference follows its colour with this weight a learning
KNOWN_AFTER = 1  # learnings a cell needs before its own reference is used
STEADY = 10  # grey levels a cell may change between two learnings and be learned
TOLERANCE = (0.12, 8.0)  # a cell matches the mat within 12 % of its level plus 8 levels
TYPICAL_TOLERANCE = (0.2, 12.0)  # ... or the mat's typical colour, where never learned
EMPTY_SHARE = 0.9  # share of a place's cells that must match for it to be empty
JUDGED_SHARE = 0.4  # ... of the cells not under another card read, at least this share
GAIN_RANGE = (0.5, 2.0)  # a frame much darker or brighter than the mat says nothing
TYPICAL_EVERY = 30  # frames between two measures of the mat's typical colour
GAIN_CELLS = 16  # cells of known mat a band needs to measure the brightness on
RING_IN_MM = 3.0  # the ring of mat looked at round a card (``around``) starts this far
RING_OUT_MM = 20.0  # outside its outline (the error of its position) and ends this far
OCCLUDER_CELLS = 4  # cells (4 mm) of something else touching: a hand; fewer: noise

Image = npt.NDArray[np.uint8]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class Patch:
    """The mat's cells ``rows`` x ``cols`` of one frame (``EmptyMat.patch``)."""

    rows: slice
    cols: slice
    cells: Image


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
        self._read_outlines: list[Outline] = []  # the cards read in the last frame
        self._read: Mask | None = None  # the cells under them (when needed)
        self._places: dict[Outline, tuple[Mask, slice, slice]] = {}
        self._typical_at = -TYPICAL_EVERY

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

    def look(
        self,
        frame: Image,
        read: Sequence[Outline],
        lying: Sequence[Outline] = (),
    ) -> None:
        """Take a frame in, with the outlines (table mm) of the cards ``read`` in it and
        of those reported ``lying`` (read or not). One frame in ``LEARN_EVERY``, learn
        the mat from one band of ``1 / LEARN_BANDS`` of its rows (the next band each
        time, so every such frame costs the same) away from all those cards, and
        measure the frame's brightness there.

        A band much darker or brighter than the mat learned (outside ``GAIN_RANGE``: a
        covered lens, the lights off) is not learned from, and no place is said empty
        until the light is back: a blank picture must never become the mat."""
        h, _ = self.shape
        self.frames += 1
        self._read_outlines, self._read = list(read), None
        if (self.frames - 1) % LEARN_EVERY:
            return
        band = (self.frames - 1) // LEARN_EVERY % LEARN_BANDS
        self._read, guard = self._masks(read, lying)
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
        clear = ~guard[rows]
        free = steady & clear
        learned = self.learned[rows]
        reference = self.reference[rows]
        gain = self._gain(now, reference, clear & (learned >= KNOWN_AFTER))
        if gain is not None:  # None: too few cells of known mat in this band, keep the last
            lo, hi = GAIN_RANGE
            if not ((gain >= lo) & (gain <= hi)).all():
                self.gain = None
                return
            self.gain = gain
        mask = free.astype(np.uint8)
        fresh = mask & (learned == 0)
        cv2.accumulateWeighted(now, reference, 1.0, mask=fresh)
        cv2.accumulateWeighted(now, reference, LEARN_RATE, mask=mask - fresh)
        np.add(learned, 1, out=learned, where=free & (learned < 255))

    def empty(self, frame: Image, outline: Outline) -> bool:
        """Whether the place of a card (its outline, table mm) shows the empty mat in
        ``frame``, against what :meth:`look` learned. The parts of it under cards read
        in the frame are left out (another card laid over part of it says nothing of
        this one); if they leave less than ``JUDGED_SHARE`` of it, nothing is said."""
        if self.reference is None or self.gain is None:
            return False
        inside, rows, cols = self._place(outline)
        total = int(inside.sum())
        if self._read is None:
            self._read = self._masks(self._read_outlines, ())[0]
        inside &= ~self._read[rows, cols]
        if total == 0 or inside.sum() < JUDGED_SHARE * total:
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

    def around(self, frame: Image, outline: Outline, others: Sequence[Outline] = ()) -> bool | None:
        """Whether the mat shows all round a card (its outline, table mm) in ``frame``:
        the evidence that no hand is over it, since a hand, a finger or a sleeve over a
        card reaches it from beyond its edge and so crosses the ring of the mat from
        ``RING_IN_MM`` to ``RING_OUT_MM`` outside it. True: the ring shows the mat but for
        specks (noise) smaller than ``OCCLUDER_CELLS``; False: something else crosses it;
        None: it cannot be told (the mat not learned yet, a light out of range, or less
        than ``JUDGED_SHARE`` of the ring clear of the ``others`` cards' outlines)."""
        if self.reference is None or self.gain is None:
            return None
        outer = _grown(outline, RING_OUT_MM)
        rows, cols = self._span(outer)
        if rows.stop <= rows.start or cols.stop <= cols.start:
            return None
        ring = self._polygon(outer, rows, cols) & ~self._polygon(
            _grown(outline, RING_IN_MM), rows, cols
        )
        judged = ring.copy()
        for other in others:
            judged &= ~self._polygon(_grown(other, MARGIN_MM), rows, cols)
        total = int(ring.sum())
        if total == 0 or judged.sum() < JUDGED_SHARE * total:
            return None
        cells = self.cells(frame, rows, cols)
        match = self._matches(cells, rows, cols, self._ring_gain(cells, judged, rows, cols))
        if match is None:
            return None
        unlike = (judged & ~match).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(unlike, connectivity=8)
        largest = int(stats[1:, cv2.CC_STAT_AREA].max()) if n > 1 else 0
        return largest < OCCLUDER_CELLS

    def patch(self, frame: Image, outline: Outline) -> Patch:
        """The cells of ``frame`` round a card (its outline grown by ``RING_OUT_MM``), to
        compare a later frame with (``same``): the grid is the mat's, so two frames'
        cells are the same places whatever the jitter of the card's position read."""
        rows, cols = self._span(_grown(outline, RING_OUT_MM))
        return Patch(rows, cols, self.cells(frame, rows, cols))

    def same(self, frame: Image, patch: Patch) -> bool:
        """Whether ``frame`` shows what ``patch`` showed, but for its brightness: no group
        of ``OCCLUDER_CELLS`` cells or more changed by over ``STEADY`` levels and 6 % (a
        hand moving over or beside the card changes many; the sensor's noise, a few
        apart)."""
        now = self.cells(frame, patch.rows, patch.cols).astype(np.float32)
        if now.shape != patch.cells.shape or now.size == 0:
            return False
        before = patch.cells.astype(np.float32)
        # The light may change from frame to frame (a camera's exposure): by the median.
        gain = np.median(now / np.maximum(before, 1.0), axis=(0, 1))
        expected = before * gain
        moved = np.abs(now - expected) - TOLERANCE[0] / 2 * expected
        changed = (moved.max(axis=2) > STEADY).astype(np.uint8)
        n, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        return n <= 1 or int(stats[1:, cv2.CC_STAT_AREA].max()) < OCCLUDER_CELLS

    def _ring_gain(
        self, cells: Image, judged: Mask, rows: slice, cols: slice
    ) -> npt.NDArray[np.float32]:
        """The brightness of the ring against the reference: the median over its known
        cells, which a hand over less than half of it does not move (the frame's
        ``gain``, measured on one band of rows, may have been measured on a hand)."""
        assert self.reference is not None and self.gain is not None
        known = judged & (self.learned[rows, cols] >= KNOWN_AFTER)
        if int(known.sum()) < GAIN_CELLS:
            return self.gain
        seen = cells[known].astype(np.float32)
        reference = np.maximum(self.reference[rows, cols][known], 1.0)
        return np.asarray(np.median(seen / reference, axis=0), np.float32)

    def _matches(
        self, cells: Image, rows: slice, cols: slice, gain: npt.NDArray[np.float32]
    ) -> Mask | None:
        """Which of the cells ``rows`` x ``cols`` of a frame (``cells``) show the mat at
        brightness ``gain``: against their own reference where learned, the mat's typical
        colour (wider tolerance) where not; None if the typical colour is not known."""
        assert self.reference is not None
        seen = cells.astype(np.float32)
        known = self.learned[rows, cols] >= KNOWN_AFTER
        expected = self.reference[rows, cols] * gain
        rel, base = TOLERANCE
        match = (np.abs(seen - expected) <= rel * expected + base).all(axis=2) & known
        if not known.all():
            typical = self.typical()
            if typical is None:
                return None
            rel, base = TYPICAL_TOLERANCE
            want = typical * gain
            match |= ~known & (np.abs(seen - want) <= rel * want + base).all(axis=2)
        return np.asarray(match, bool)

    def _span(self, outline: Outline) -> tuple[slice, slice]:
        """The rows and columns of the grid holding an outline (clipped to the grid)."""
        h, w = self.shape
        cells = self._cells_of(outline)
        r0, c0 = (max(0, int(np.floor(v))) for v in cells.min(axis=0)[::-1])
        r1, c1 = (int(np.ceil(v)) + 1 for v in cells.max(axis=0)[::-1])
        return slice(r0, min(h, max(r0, r1))), slice(c0, min(w, max(c0, c1)))

    def _polygon(self, outline: Outline, rows: slice, cols: slice) -> Mask:
        """The cells of ``rows`` x ``cols`` inside an outline (table mm)."""
        mask = np.zeros((rows.stop - rows.start, cols.stop - cols.start), np.uint8)
        fixed = np.round((self._cells_of(outline) - (cols.start, rows.start)) * 16)
        cv2.fillConvexPoly(mask, fixed.astype(np.int32), 1, shift=4)
        return mask.astype(bool)

    def typical(self) -> npt.NDArray[np.float32] | None:
        """The mat's typical colour: the median of the cells learned (measured again
        every ``TYPICAL_EVERY`` frames)."""
        if self._typical is None or self.frames - self._typical_at >= TYPICAL_EVERY:
            self._typical_at = self.frames
            known = self.learned >= KNOWN_AFTER
            if not known.any() or self.reference is None:
                return None
            self._typical = np.median(self.reference[known], axis=0).astype(np.float32)
        return self._typical

    def _gain(
        self, now: Image, reference: npt.NDArray[np.float32], known: Mask
    ) -> npt.NDArray[np.float32] | None:
        """The frame's brightness per colour against the reference: the mean of the
        cells where the mat is known and no card is (None: too few). Far from 1 (a covered lens, a
        light switched off), no place is said empty until it is back in ``GAIN_RANGE``."""
        mask = known.astype(np.uint8)
        if cv2.countNonZero(mask) < GAIN_CELLS:
            return None
        channels = now.shape[2]
        seen = np.array(cv2.mean(now, mask=mask)[:channels], np.float32)
        learned = np.array(cv2.mean(reference, mask=mask)[:channels], np.float32)
        return np.asarray(seen / np.maximum(learned, 1.0), np.float32)

    def _place(self, outline: Outline) -> tuple[Mask, slice, slice]:
        """The cells inside a card's outline shrunk by ``MARGIN_MM``, as a mask over the
        rows and columns of the grid holding it (kept: a card lying is looked at again)."""
        found = self._places.get(outline)
        if found is None:
            if len(self._places) > 256:
                self._places.clear()
            found = self._places[outline] = self._new_place(outline)
        return found[0].copy(), found[1], found[2]

    def _new_place(self, outline: Outline) -> tuple[Mask, slice, slice]:
        shrunk = _grown(outline, -MARGIN_MM)
        rows, cols = self._span(shrunk)
        return self._polygon(shrunk, rows, cols), rows, cols

    def _cells_of(self, points: Sequence[tuple[float, float]]) -> npt.NDArray[np.float64]:
        """Table mm -> cell coordinates (a cell's centre at whole numbers)."""
        x0, y0, _, _ = self.roi
        px = table_to_image(self.calibration, np.array(points, np.float64))
        return np.asarray((px - (x0, y0)) / self.k - 0.5, np.float64)

    def _masks(self, read: Sequence[Outline], lying: Sequence[Outline]) -> tuple[Mask, Mask]:
        """The cells under the cards ``read`` (their outlines grown by ``MARGIN_MM``), and
        those near any card read or ``lying`` (grown by ``GUARD_MM``): one projection."""
        under = np.zeros(self.shape, np.uint8)
        near = np.zeros(self.shape, np.uint8)
        outlines = [*read, *lying]
        if outlines:
            pts = [p for o in read for p in _grown(o, MARGIN_MM)]
            pts += [p for o in outlines for p in _grown(o, GUARD_MM)]
            fixed = np.round(self._cells_of(pts) * 16).astype(np.int32).reshape(-1, 4, 2)
            for poly in fixed[: len(read)]:
                cv2.fillConvexPoly(under, poly, 1, shift=4)
            for poly in fixed[len(read) :]:
                cv2.fillConvexPoly(near, poly, 1, shift=4)
        return under.view(bool), near.view(bool)


def _grown(outline: Outline, mm: float) -> Outline:
    """A card's four corners (in order round it) moved ``mm`` outwards along both of its
    sides."""
    (ax, ay), (bx, by), _, (dx, dy) = outline[:4]
    ux, uy = bx - ax, by - ay
    vx, vy = dx - ax, dy - ay
    nu, nv = math.hypot(ux, uy) or 1.0, math.hypot(vx, vy) or 1.0
    ux, uy, vx, vy = ux * mm / nu, uy * mm / nu, vx * mm / nv, vy * mm / nv
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    return tuple(
        (x + su * ux + sv * vx, y + su * uy + sv * vy)
        for (x, y), (su, sv) in zip(outline, signs, strict=True)
    )
