"""What the kiosk's camera loses: the table under a cover, cards swept off.

Something over the camera (a hand, a bag, a card held up): the VIEW fault, and the cards
the cover hid.

A covered lens gives dark, blank frames; after ``covered_after`` seconds of them the
kiosk raises the VIEW fault (the page's banner, the lights) and clears it by itself when
the table is in view again. Meanwhile the camera's tracker keeps the cards it cannot
see (a dark frame shows no place empty); should it report one removed all the same and,
when the view is back, laid again, that is the same card lying where it was, not a new
one: a card of the last hand left in a play zone must not be taken for a card of the
next deal, and a played card is not a sweep. ``CoverWatch`` remembers the cards the
cover hid until they are seen again.

Cards swept off: the camera says a card is gone only once its place is seen empty (the
tracker's removal, camera time), which may be a while after it was last read, and the
bots may have finished the trick meanwhile. ``CoverWatch.in_trick`` tells a visitor's
card swept off the trick in play, even when that trick is over by the time the camera
says so, from a card of a finished trick picked up after it (the visitor tidying:
nothing to say).
"""

from __future__ import annotations

from table_controller.cards import Card
from table_controller.rules.events import OutputEvent, TrickWon
from table_controller.rules.hand import HandState
from table_controller.seats import Seat
from table_controller.vision.camera import Frame

COVER_FIX = (
    "Move it away (a hand, a bag, a card held up) from the camera above the table: the "
    "game waits, and goes on by itself when the table is in view again."
)
DARK_LEVEL = 40.0  # a frame's mean brightness below this, and ...
BLANK_SPREAD = 12.0  # ... its spread below this: the lens is covered
REFOUND = 3.0  # seconds of a clear view after a cover: the cards there are seen again


def covered(frame: Frame) -> bool:
    """Whether the frame is the dark blank of a covered lens."""
    small = frame.image[::8, ::8]
    return float(small.mean()) < DARK_LEVEL and float(small.std()) < BLANK_SPREAD


class CoverWatch:
    """Whether the lens is covered, from frame to frame, and the cards it hid."""

    def __init__(self, covered_after: float) -> None:
        self.covered_after = covered_after
        self.dark_since: float | None = None
        self._clear_since: float | None = None
        self._hidden: dict[Card, str | None] = {}  # card: the zone it lay in
        self.camera_time = 0.0  # the last frame's time (the camera's clock)
        # (hand, plays, camera time) of the last trick won
        self._last_trick: tuple[int, tuple[tuple[Seat, Card], ...], float] = (0, (), 0.0)

    def look(self, frame: Frame, read_at: float) -> bool | None:
        """True: covered long enough to say so; False: the view is clear; None: dark,
        not yet for long."""
        self.camera_time = frame.timestamp
        if covered(frame):
            if self.dark_since is None:
                self.dark_since = read_at
            return read_at - self.dark_since >= self.covered_after or None
        if self.dark_since is not None:
            self._clear_since = read_at
        elif self._clear_since is not None and read_at - self._clear_since > REFOUND:
            self._hidden.clear()  # what was there has been seen again by now
            self._clear_since = None
        self.dark_since = None
        return False

    @property
    def dark(self) -> bool:
        return self.dark_since is not None

    def hid(self, card: Card, zone: str | None) -> None:
        """The camera lost ``card`` while the lens was covered: not gone, hidden."""
        self._hidden[card] = zone

    def seen_again(self, card: Card, zone: str | None) -> bool:
        """Whether ``card`` laid in ``zone`` is a hidden card seen again where it lay."""
        return card in self._hidden and self._hidden.pop(card) == zone

    def played(self, outputs: list[OutputEvent]) -> None:
        """An input's outputs: a trick won is remembered with the camera's time."""
        for out in outputs:
            if isinstance(out, TrickWon):
                self._last_trick = (out.hand, out.plays, self.camera_time)

    def in_trick(self, hand: HandState, card: Card, at: float, gone: float) -> Seat | None:
        """Who played ``card`` to the trick in play, or to the last trick if the camera
        lost it (reported gone at ``at``, unseen ``gone`` seconds) before that trick was
        over; None if neither."""
        plays = list(hand.trick.plays) if hand.trick is not None else []
        number, last, done_at = self._last_trick
        if number == hand.number and at - gone < done_at:
            plays += last
        return next((s for s, c in plays if c == card), None)


__all__ = ["COVER_FIX", "CoverWatch", "covered"]
