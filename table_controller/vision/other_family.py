"""Cards printed in the other marker family: a QR card at a table whose deck has ArUco
markers, an ArUco card at a table of QR cards.

Why: the reader reads the table's own family only, so a card of the other family was
read as nothing at all, and a player who lays one (a second deck, printed the other
way, mixed in) would see the table ignore it. It is another deck's card, and issue 31
wants it reported with its picture and never taken into the game, as a card of the
table's own family with a number no card has already is (foreign.py).

Why at a low rate: the table reads every frame in a few milliseconds, and a card of
the other family is rare and lies still for seconds. So the other family is looked
for in one frame in ``OTHER_EVERY`` (5: six looks a second at 30 frames a second), in
the same grey picture of the zones the reader reads; a card still needs two looks
that find it lying still within half a second (the tracker's steadiness) before it is
reported, which three looks in half a second give. ``CardReader(other_every=N)`` sets
the rate; 0 turns the looks off.

- **At an ArUco table, QR cards** (qr_look.py): a QR code is too fine for the camera to
  read at 1280x720 or 1920x1080, so the look finds the white card shapes the reader did
  not read and checks the places a card carries its markers for a QR code's finder
  patterns; only card-sized shapes are looked at, so a phone's QR code or a score sheet
  is not a card.
- **At a QR table, ArUco cards**: ArUco's own detector, set up for the size an ArUco
  marker printed on a card has there; every marker of the dictionary is another deck's
  (the table's deck, its corners included, is printed in QR codes), of a card marker's
  size on the table (the reader checks it, as for its own family).

Costs: docs/benchmarks.md (bench/vision.py ``--sections 7``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from table_controller.rules.events import Printing
from table_controller.vision.calibration import image_to_table, scale, table_to_image
from table_controller.vision.layout import Calibration
from table_controller.vision.markers import ArucoFamily, Gray, MarkerFamily, Sighting
from table_controller.vision.qr_look import QrCard, card_shapes, marker_squares, qr_card

OTHER_EVERY = 5  # frames: the other family is looked for in one frame in this many
# A card shape this near a card the reader read in the same frame (its centre, mm) is
# that card: not looked at (a card's centre from its markers is within a few mm).
READ_NEAR_MM = 30.0
# A card shape this near a QR card found in the look before (its centre, mm: a card's
# shape is placed within a mm or two) is that card still lying there, not checked again:
# the check costs a few ms a card, and the card may lie there for the rest of the hand.
KNOWN_MM = 4.0


def own_printing(family: MarkerFamily) -> Printing:
    """How the table's own deck is printed: ArUco for ``aruco``, QR for the QR readers."""
    return Printing.ARUCO if isinstance(family, ArucoFamily) else Printing.QR


class OtherFamily:
    """The looks for the other family's cards at one calibrated table: ``printing`` is
    what is looked for (the family the table's deck is not printed in); ``due`` says
    whether a frame is one to look in; ``qr_cards`` or ``aruco_markers`` look."""

    def __init__(
        self,
        calibration: Calibration,
        own: MarkerFamily,
        roi: tuple[int, int, int, int],
        every: int = OTHER_EVERY,
    ) -> None:
        if every < 1:
            raise ValueError(
                f"every {every}: the other family is looked for every 1 or more frames"
            )
        self.calibration = calibration
        self.every = every
        self.printing = Printing.QR if own_printing(own) is Printing.ARUCO else Printing.ARUCO
        self.px_per_mm = scale(calibration).px_per_mm
        self.frames = 0  # frames seen
        self.looks = 0  # frames looked in
        self.known: list[QrCard] = []  # the QR cards the last look found
        self.aruco: ArucoFamily | None = None
        if self.printing is Printing.ARUCO:
            s = scale(calibration, "aruco")
            x0, y0, x1, y1 = roi
            self.aruco = ArucoFamily().for_cells(
                s.min_cell_px, s.max_cell_px, max(x1 - x0, y1 - y0)
            )

    def due(self) -> bool:
        """Whether this frame is one to look in (one in ``every``, the first included);
        called once a frame."""
        due = self.frames % self.every == 0
        self.frames += 1
        self.looks += due
        return due

    def qr_cards(
        self, box: Gray, offset: tuple[int, int], read: Sequence[tuple[float, float]]
    ) -> list[QrCard]:
        """The QR cards in ``box`` (the zones' box of the frame, grey, full size, whose
        top-left is ``offset`` in the frame), leaving out the card shapes within
        ``READ_NEAR_MM`` of a card read in this frame (``read``: centres, mm). A shape
        where the last look found a QR card (within ``KNOWN_MM``) is that card."""
        cal = self.calibration
        shift = np.asarray(offset, np.float64)
        out = []
        for shape in card_shapes(box, self.px_per_mm, lambda p: image_to_table(cal, p + shift)):
            x, y = (float(v) for v in shape.mean(axis=0))
            if any(math.dist((x, y), r) <= READ_NEAR_MM for r in read):
                continue
            known = [q for q in self.known if math.dist((q.x, q.y), (x, y)) <= KNOWN_MM]
            if known:
                out.append(replace(known[0], outline=shape, x=x, y=y))
                continue
            squares = [table_to_image(cal, sq) - shift for sq in marker_squares(shape)]
            found = qr_card(box, shape, squares)
            if found is not None:
                out.append(found)
        self.known = out
        return out

    def aruco_markers(self, box: Gray) -> list[Sighting]:
        """Every ArUco marker of the dictionary in ``box`` (corners in its px), whatever
        its number: at a QR table none is this deck's."""
        assert self.aruco is not None, "ArUco markers are looked for at a QR table only"
        found, _, others = self.aruco.read_all(box)
        return found + others


__all__ = ["KNOWN_MM", "OTHER_EVERY", "READ_NEAR_MM", "OtherFamily", "own_printing"]
