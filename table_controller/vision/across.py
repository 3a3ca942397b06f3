"""Cards lying across a zone's line, frame by frame (pure: no images).

The reader says, for every card it reads, when the card lies across a zone's line
(``CardSeen.on_line``: no zone clearly holds it, one or more touch it). Such a card is in
no zone, so the rules never see it; but a player who laid it means it to count, and
only moving it clearly into one zone makes it count. So the table tells the player,
for as long as the card lies there, and stops as soon as it does not.

What makes a card *across a line* here is the reader's word for it, read just as the
tracker reads a card laid (tracker.py): lying still, in ``stable_frames`` reads, each at
most ``within_seconds`` after the one before and within ``STILL_MM`` of the first. A card
carried over a line in a hand is never reported, nor a single misread.

It *ends* on the same kind of evidence the other way:

- the card read, just as steadily, not across a line (clearly in a zone, or away from
  every zone);
- its place seen empty in ``empty_frames`` frames running that do not read it (the
  caller says so, from the picture of the empty mat: watcher.py);
- not read at all for ``forget_seconds`` (picked up where the mat cannot be seen).

A hand over the card for a moment (not read, its place not empty) changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from table_controller.cards import Card
from table_controller.vision.tracker import STILL_MM, CardRead, check_steadiness
from table_controller.vision.zones import Outline, Shares

FORGET_SECONDS = 10.0  # a card across a line, unread this long, is taken as gone


@dataclass(frozen=True)
class CardAcross:
    """A card lying still across a zone's line: in no zone until it is moved clearly
    into one. ``shares``: the share of its area in each zone it touches, largest first."""

    card: Card
    shares: Shares
    x: float  # table mm of its centre
    y: float
    outline: Outline = ()

    @property
    def zones(self) -> tuple[str, ...]:
        """The zones it touches, the one holding most of it first."""
        return tuple(zone for zone, _ in self.shares)


@dataclass(frozen=True)
class Reading:
    """One card's read in one frame, and whether the reader puts it across a line."""

    read: CardRead
    across: bool


@dataclass
class _Line:
    shown: CardAcross | None = None  # what is reported now (None: not across)
    across: bool = False  # what the current run of still reads says
    streak: int = 0
    anchor: tuple[float, float] = (0.0, 0.0)
    last_read: float = -math.inf
    empty: int = 0


@dataclass
class AcrossLines:
    """Which cards lie across a line now (``cards``), updated one frame at a time."""

    stable_frames: int = 2
    within_seconds: float = 0.5
    empty_frames: int = 3
    forget_seconds: float = FORGET_SECONDS
    _lines: dict[Card, _Line] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_steadiness(self.stable_frames, self.within_seconds, self.empty_frames)
        if self.forget_seconds <= 0:
            raise ValueError("forget_seconds must be positive")

    @property
    def cards(self) -> tuple[CardAcross, ...]:
        """The cards reported across a line now, in the order they were first reported."""
        return tuple(line.shown for line in self._lines.values() if line.shown is not None)

    def update(
        self, time: float, readings: Sequence[Reading], empty: Collection[Card] = ()
    ) -> bool:
        """Feed one frame's readings (one per card read; a card read twice in a frame is
        the tracker's alert, and its first reading counts here), and the cards across a
        line, unread in this frame, whose place shows the empty mat. Whether ``cards``
        changed."""
        changed = False
        read: set[Card] = set()
        for reading in readings:
            card = reading.read.card
            if card in read:
                continue
            read.add(card)
            line = self._lines.setdefault(card, _Line())
            changed |= self._read(line, reading, time)
        for card, line in list(self._lines.items()):
            if card in read:
                continue
            line.empty = line.empty + 1 if card in empty else 0
            gone = line.empty >= self.empty_frames or time - line.last_read > self.forget_seconds
            if gone:
                changed |= line.shown is not None
                del self._lines[card]
        return changed

    def _read(self, line: _Line, reading: Reading, time: float) -> bool:
        r = reading.read
        gap = time - line.last_read
        line.last_read, line.empty = time, 0
        still = math.dist(line.anchor, (r.x, r.y)) <= STILL_MM
        if line.streak and reading.across == line.across and gap <= self.within_seconds and still:
            line.streak += 1
        else:
            line.across, line.streak, line.anchor = reading.across, 1, (r.x, r.y)
        if line.streak < self.stable_frames:
            return False
        before = line.shown
        if not line.across:
            line.shown = None
            return before is not None
        shown = CardAcross(r.card, r.shares, r.x, r.y, r.outline)
        line.shown = shown
        # A new report only when the zones it lies across change, not its every read.
        return before is None or before.zones != shown.zones


__all__ = ["FORGET_SECONDS", "AcrossLines", "CardAcross", "Reading"]
