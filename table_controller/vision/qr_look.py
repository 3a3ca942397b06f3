"""Finding a QR-printed card at a table whose camera is too coarse to read QR codes.

A QR card (the project's own QR deck, or any card with a QR code the size of a card's
marker in its corner) laid at a table that reads ArUco cards must not pass unseen: it
is another deck's card (vision/foreign.py). But a QR module is 1.43 mm: about 1.1 px at
1280x720 and 1.8 px at 1920x1080 through the camera model, where zxing-cpp reads none
(docs/benchmarks.md; it needs 2304x1296). What a coarse picture still shows:

1. **a card**: a white shape on the darker mat whose outline, brought onto the table,
   is a 63.5 x 88.9 mm rectangle (``card_shapes``); a card the reader has read is left
   out by the caller, so only the cards it cannot read are looked at;
2. **where its markers are**: a card of any deck printed for this table carries them
   at the top right and, turned half round, at the bottom left (deck.py), so the card's
   outline says where to look (``marker_squares``), whichever way up it lies;
3. **a QR code there**: each square warped to ``PX`` px a module and compared with what
   every version-1 code has in common, as a soft lens blurs it: three finder patterns
   (a dark ring, a light ring, a dark centre) with their light separators; the data
   modules, unknown, left out (``qr_fit``: a normalised correlation over those parts,
   the best over a module's shift either way and the code's four turns). At 1 px a
   module the light rings are half washed out, so an ArUco marker (whose black border
   fills the same corners) fits up to about 0.5 too: the square is also compared with
   an ArUco marker's border and quiet zone, which an ArUco marker fits at about 0.9
   and a QR code at 0.55-0.8. A card is a QR card when both its squares fit the
   finders at least ``FIT_MIN`` and no worse than ``BORDER_LEAD`` below the border
   (``qr_card``). Through the camera model's venues (bench/vision.py ``--sections 7``,
   docs/benchmarks.md): 86-89 % of QR cards found in one look, no false alarm.

Where the picture is fine enough the code's text is read too (zxing-cpp on the warped
square), for the record: the card a code of the QR deck names.

Pure image code: no state, no clock. The reader (detect.py, other_family.py) says when
to look and what the table is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt
import zxingcpp

from table_controller.vision.deck import MARKER_MARGIN_MM, MARKER_MM
from table_controller.vision.layout import CARD_H, CARD_W
from table_controller.vision.markers import qr_marker

Gray = npt.NDArray[np.uint8]
Points = npt.NDArray[np.float64]  # N x 2
ToMm = Callable[[Points], Points]

MODULES = 21  # a version-1 QR code, as the project's QR deck prints (EU:JH)
FINDER = 7  # modules across a finder pattern
QUIET = 2  # modules of the quiet zone compared (the card's margin is 3 mm: 2.1 modules)
PX = 2  # px a module in the warped square compared
SHIFT = 2  # modules either way the square is moved to fit (the card found is +-2.5 mm)
BLURS = (0.4, 0.7, 1.0)  # the lens's blur, Gaussian sigma in modules, of the templates

FIT_MIN = 0.3  # the finders' fit of each of a QR card's squares, at least
BORDER_LEAD = 0.30  # ... and at most this below its fit to an ArUco marker's border
BRIGHTER = 12  # grey levels a card's face is above its neighbourhood's mean, at least
CARD_FIT = 0.15  # a card's outline: its sides within this share of a card's
CARD_FILLED = 0.85  # ... and its area at least this share of its rectangle's
SHAPE_PX_PER_MM = 0.35  # cards' shapes are looked for in a picture about this fine
HOLE_SHARE = 0.6  # a dark hole in a light shape smaller than this share of a card: filled

_OPEN = np.ones((3, 3), np.uint8)
_N = MODULES + 2 * QUIET  # modules across the compared square
_SIDE = _N * PX  # its px


@dataclass(frozen=True)
class QrFound:
    """A square looked at: its code's corners in the picture's px, clockwise from the
    code's own top-left (where the finders fit best), how well the finders fit there
    (``qr_fit``), and how well an ArUco marker's border does (``border``)."""

    corners: Points
    fit: float
    border: float

    @property
    def qr(self) -> bool:
        """A QR code rather than an ArUco marker or a plain face (module docstring)."""
        return self.fit >= FIT_MIN and self.fit >= self.border - BORDER_LEAD


@dataclass(frozen=True)
class QrCard:
    """A card found printed with QR codes: its outline on the table (mm, in order round
    it), its centre, its squares as looked at, and the card its code names where the
    picture let it be read (None: not read, or not a card of the project's QR deck)."""

    outline: Points
    x: float
    y: float
    squares: tuple[QrFound, ...]
    marker: int | None = None


def card_shapes(gray: Gray, px_per_mm: float, to_mm: ToMm) -> list[Points]:
    """White shapes of a card's size in ``gray``: each as its rectangle's four corners
    in table mm, in order round it. A card's face is lighter than the mat round it
    (``BRIGHTER`` levels above its neighbourhood's mean); its outline is as long and as
    wide as a card's on the table (within ``CARD_FIT``), and nearly fills its rectangle
    (a card partly under a hand or another card does not: it is looked for again in a
    later frame). ``px_per_mm``: the picture's scale, roughly; ``to_mm``: its px to mm."""
    k = 1  # halved while a card stays over SHAPE_PX_PER_MM a mm (cheap: pyrDown)
    while px_per_mm / (2 * k) >= SHAPE_PX_PER_MM:
        gray = np.asarray(cv2.pyrDown(gray), np.uint8)
        k *= 2
    px_per_mm /= k
    window = max(15, int(1.6 * CARD_H * px_per_mm) | 1)
    light = cv2.adaptiveThreshold(
        gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, window, -BRIGHTER
    )
    area = CARD_W * CARD_H * px_per_mm * px_per_mm
    # The mat's printed lines are light too: a card laid on one would join it. A card's
    # face is filled first (the dark of its markers and pips: holes smaller than a card,
    # where a zone's outline holds a hole larger), then opened by a few mm: a line goes,
    # the card stays.
    contours, tree = cv2.findContours(light, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if tree is not None:
        inner = np.flatnonzero(tree[0][:, 3] >= 0).tolist()  # holes: contours with a parent
        largest = HOLE_SHARE * area
        holes = [contours[i] for i in inner if cv2.contourArea(contours[i]) < largest]
        cv2.drawContours(light, holes, -1, 255, cv2.FILLED)
    light = cv2.morphologyEx(light, cv2.MORPH_OPEN, _OPEN)
    contours, _ = cv2.findContours(light, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    boxes = []
    for c in contours:
        a = cv2.contourArea(c)
        if not 0.5 * area <= a <= 2.0 * area:
            continue
        rect = cv2.minAreaRect(c)
        w, h = rect[1]
        if a < CARD_FILLED * w * h or max(w, h) > 2.0 * min(w, h):
            continue
        boxes.append(cv2.boxPoints(rect) * k)  # a halved picture's px i is 2i
    if not boxes:
        return []
    mm = to_mm(np.asarray(boxes, np.float64).reshape(-1, 2)).reshape(-1, 4, 2)
    out = []
    for box in mm:
        sides = np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1)
        short, long_ = sorted((float(sides[0] + sides[2]) / 2, float(sides[1] + sides[3]) / 2))
        if abs(short / CARD_W - 1) <= CARD_FIT and abs(long_ / CARD_H - 1) <= CARD_FIT:
            out.append(_card_sized(box))
    return out


def _card_sized(box: Points) -> Points:
    """A card's rectangle where ``box`` (4 corners, mm, in order round it) was found: the
    same centre and turn, a card's size. A shape found from its light face is found a
    little small (its edge blurred into the mat), and the markers are placed from it."""
    centre = box.mean(axis=0)
    a, b = box[1] - box[0], box[2] - box[1]
    if np.linalg.norm(a) > np.linalg.norm(b):
        a, b = b, a
    u = a / np.linalg.norm(a) * (CARD_W / 2)  # half the short side
    v = b / np.linalg.norm(b) * (CARD_H / 2)  # half the long side
    return np.asarray([centre - u - v, centre + u - v, centre + u + v, centre - u + v], np.float64)


def marker_squares(card: Points) -> list[Points]:
    """Where a card whose corners (table mm, in order round it) are ``card`` carries its
    two markers (deck.py: at the top right and, turned half round, at the bottom left),
    each as its corners in table mm clockwise from the marker's own top-left. The same
    pair whichever way up the card lies."""
    pts = np.asarray(card, np.float64).reshape(4, 2)
    # Clockwise as seen from above (the table's y runs south, as the picture's rows).
    d1, d2 = pts[1] - pts[0], pts[2] - pts[1]
    if d1[0] * d2[1] - d1[1] * d2[0] < 0:
        pts = pts[::-1]
    # Start at a corner from which the top (short) edge runs.
    if np.linalg.norm(pts[1] - pts[0]) > np.linalg.norm(pts[2] - pts[1]):
        pts = np.roll(pts, -1, axis=0)
    tl, tr, _, bl = pts
    w, h = float(np.linalg.norm(tr - tl)), float(np.linalg.norm(bl - tl))
    u, v = (tr - tl) / w, (bl - tl) / h  # along the top edge, down the side
    m, s = MARKER_MARGIN_MM, MARKER_MM
    square = np.array([[0.0, 0.0], [s, 0.0], [s, s], [0.0, s]])
    top_right = tl + (w - m - s) * u + m * v
    bottom_left = tl + m * u + (h - m - s) * v
    first = top_right + square[:, :1] * u + square[:, 1:] * v
    # Turned half round: its own top-left is the square's bottom-right.
    second = np.roll(bottom_left + square[:, :1] * u + square[:, 1:] * v, -2, axis=0)
    return [np.asarray(first, np.float64), np.asarray(second, np.float64)]


def qr_fit(gray: Gray, corners: Points) -> QrFound:
    """How well the square whose corners (px of ``gray``, clockwise from its top-left)
    are ``corners`` holds a QR code: the best normalised correlation of its finders and
    separators with the templates', over a module's shift either way and the code's four
    turns (which corner lacks a finder), with the code's corners at that best; and the
    best of an ArUco marker's border and quiet zone, for comparison."""
    pts = np.asarray(corners, np.float64).reshape(4, 2)
    reach = (QUIET + SHIFT) * PX
    far = reach + MODULES * PX
    square = np.array([[reach, reach], [far, reach], [far, far], [reach, far]], np.float32) - 0.5
    to_square = cv2.getPerspectiveTransform(pts.astype(np.float32), square)
    size = _SIDE + 2 * SHIFT * PX
    warped = cv2.warpPerspective(
        gray, to_square, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    steps = 2 * SHIFT * PX + 1
    windows = np.lib.stride_tricks.sliding_window_view(warped, (_SIDE, _SIDE))
    windows = windows[:steps, :steps].reshape(steps * steps, _SIDE * _SIDE)
    # A correlation over a mask at every shift: (sum t*a) / sqrt(var_mask(a)), t centred
    # and of unit length over the mask (zero off it); all templates and masks at once.
    # einsum, not a matrix product: numpy's BLAS spreads so small a product over threads
    # that spin, at ten times the CPU time (bench/vision.py sets one thread; a table
    # does not).
    sums = np.einsum("ij,kj->ik", windows, _ROWS)
    squares = np.einsum("ij,kj->ik", windows * windows, _MASKS)
    n = len(_MASK_OF)
    num, s1 = sums[:, :n], sums[:, n:]
    var = np.maximum(squares - s1 * s1 / _COUNTS, 1e-6)
    r_all = num / np.sqrt(var[:, _MASK_OF])
    r = r_all[:, : 4 * len(BLURS)]  # the finders, in each turn
    border = float(r_all[:, 4 * len(BLURS) :].max())
    best = int(np.argmax(r))
    fit = float(r.flat[best])
    where, template = divmod(best, r.shape[1])
    dy, dx = divmod(where, steps)
    turn = template // len(BLURS)
    # The best window's code corners, back in the picture.
    x0, y0 = dx + QUIET * PX, dy + QUIET * PX
    x1, y1 = x0 + MODULES * PX, y0 + MODULES * PX
    code = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64) - 0.5
    back = cv2.perspectiveTransform(code.reshape(-1, 1, 2), np.linalg.inv(to_square))
    # The template turned ``turn`` quarters clockwise has its top-left at that corner.
    found = np.roll(back.reshape(4, 2), -turn, axis=0)
    return QrFound(np.asarray(found, np.float64), fit, border)


def qr_card(gray: Gray, card: Points, squares_px: list[Points]) -> QrCard | None:
    """The card whose outline (table mm) is ``card`` as a QR card, when both its marker
    squares (``squares_px``: px of ``gray``, from ``marker_squares``) hold QR codes
    (``QrFound.qr``); None otherwise. Its code's text is read where the picture allows."""
    looked = [qr_fit(gray, sq) for sq in squares_px]
    if not looked or not all(q.qr for q in looked):
        return None
    marker = None
    for q in looked:
        marker = _text(gray, q.corners)
        if marker is not None:
            break
    x, y = (float(v) for v in np.asarray(card).mean(axis=0))
    return QrCard(np.asarray(card, np.float64), x, y, tuple(looked), marker)


def _skeleton(blur: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """A version-1 code's fixed parts in the compared square (``_SIDE`` px: the code with
    ``QUIET`` modules of its quiet zone round it): the three finders with their
    separators, ``PX`` px a module, blurred by ``blur`` modules; and the mask of those
    parts (the data modules and the quiet zone left out: an ArUco marker has a quiet
    zone too, which is what the border template weighs)."""
    img = np.full((_N, _N), 0.5, np.float32)
    known = np.zeros((_N, _N), bool)
    far = MODULES - FINDER
    for fx, fy in ((0, 0), (far, 0), (0, far)):
        x0, y0 = QUIET + fx, QUIET + fy
        sx0, sy0 = max(QUIET, x0 - 1), max(QUIET, y0 - 1)
        sx1, sy1 = min(_N - QUIET, x0 + FINDER + 1), min(_N - QUIET, y0 + FINDER + 1)
        img[sy0:sy1, sx0:sx1] = 1.0  # the separator
        known[sy0:sy1, sx0:sx1] = True
        for k, value in ((0, 0.0), (1, 1.0), (2, 0.0)):
            img[y0 + k : y0 + FINDER - k, x0 + k : x0 + FINDER - k] = value
    big = cv2.resize(img, (_SIDE, _SIDE), interpolation=cv2.INTER_NEAREST)
    if blur > 0:
        big = cv2.GaussianBlur(big, (0, 0), blur * PX)
    mask = cv2.resize(known.astype(np.uint8), (_SIDE, _SIDE), interpolation=cv2.INTER_NEAREST)
    return np.asarray(big, np.float32), mask.astype(bool)


def _border(blur: float) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """An ArUco marker of the same size in the compared square: its one-cell black border
    (a sixth of its side) and the light quiet zone round it, blurred by ``blur`` QR
    modules; and their mask (its 4x4 data cells, unknown, left out)."""
    yy, xx = np.mgrid[0:_SIDE, 0:_SIDE]
    u, v = (xx + 0.5) / PX - QUIET, (yy + 0.5) / PX - QUIET
    inside = (u >= 0) & (u < MODULES) & (v >= 0) & (v < MODULES)
    cell = MODULES / 6
    black = inside & ((u < cell) | (u >= MODULES - cell) | (v < cell) | (v >= MODULES - cell))
    img = np.where(black, 0.0, 1.0).astype(np.float32)
    if blur > 0:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), blur * PX), np.float32)
    return img, black | ~inside


def _bank() -> tuple[
    npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32], list[int]
]:
    """The templates as rows, each centred and of unit length over its mask (zero off
    it): the finders in each turn (0-3 quarters clockwise) at each blur, then the ArUco
    border at each blur; the masks as rows, their pixel counts, and each template's mask."""
    rows: list[npt.NDArray[np.float64]] = []
    masks: list[npt.NDArray[np.float32]] = []
    mask_of: list[int] = []
    shapes = [(turn, _skeleton) for turn in range(4)] + [(0, _border)]
    for turn, make in shapes:
        for blur in BLURS:
            t, m = make(blur)
            t, m = np.rot90(t, -turn), np.rot90(m, -turn)
            v = np.where(m, t - t[m].mean(), 0.0).ravel()
            rows.append(v / np.linalg.norm(v))
            mask_of.append(len(masks))
        masks.append(m.ravel().astype(np.float32))
    mask_rows = np.asarray(masks, np.float32)
    return np.asarray(rows, np.float32), mask_rows, mask_rows.sum(axis=1), mask_of


_BANK, _MASKS, _COUNTS, _MASK_LIST = _bank()
_MASK_OF = np.asarray(_MASK_LIST)
_ROWS = np.ascontiguousarray(np.vstack([_BANK, _MASKS]))  # the templates, then the masks


_QR = zxingcpp.barcode_formats_from_str("QRCode")


def _text(gray: Gray, corners: Points) -> int | None:
    """The card a code names, when zxing-cpp reads it (warped square, 4 px a module, with
    its quiet zone): where the picture is fine enough; None otherwise."""
    px, quiet = 4, 4
    side = (MODULES + 2 * quiet) * px
    a, b = quiet * px - 0.5, (quiet + MODULES) * px - 0.5
    square = np.array([[a, a], [b, a], [b, b], [a, b]], np.float32)
    to_square = cv2.getPerspectiveTransform(np.asarray(corners, np.float32), square)
    img = cv2.warpPerspective(
        gray, to_square, (side, side), flags=cv2.INTER_LINEAR, borderValue=255
    )
    for r in zxingcpp.read_barcodes(
        img,
        formats=_QR,
        try_rotate=True,
        try_downscale=False,
        try_invert=False,
    ):
        marker = qr_marker(r.text)
        if marker is not None and marker < 24:
            return marker
    return None


__all__ = [
    "BORDER_LEAD",
    "FIT_MIN",
    "MODULES",
    "QrCard",
    "QrFound",
    "card_shapes",
    "marker_squares",
    "qr_card",
    "qr_fit",
]
