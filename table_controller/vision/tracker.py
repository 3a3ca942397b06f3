"""From cards read frame by frame to cards laid, moved and removed (pure: no images).

A camera frame is a noisy witness: a card may be read in one frame and missed in the
next (a hand over it, glare, blur), and a marker could be misread. The tracker reports
only what it is sure of:

- a card is *laid* in a zone when it has been read there, lying still, in
  ``stable_frames`` frames (2 by default), each at most ``within_seconds`` (0.5 s) after
  the one before and within ``STILL_MM`` of the first: frames that miss it in between
  do not count against it, a read elsewhere starts the count again. At 30 fps a card
  read in every frame is reported on the second frame that shows it, one read in every
  other frame on the third. A single glimpse is never reported, nor a card carried
  across a zone in a hand (its reads are not still).
- it is *moved* when it is then read, just as steadily, clearly in another zone (a trick
  gathered into a tricks zone);
- it is *removed* only on evidence that it is gone: read just as steadily outside its
  zone (in no zone), or its place seen empty (the caller says so: ``update``'s
  ``empty``, which the watcher decides from the picture) in ``empty_frames``
  consecutive frames that do not read it. A card that is merely not read (a hand over
  it, glare, a blurred frame, a covered lens) stays where it was reported, however long:
  read again there later it is the same card still lying, not a new one. So a card is
  never laid twice without a removal between.
- a card read in two places at once (two cards with the same marker, or a misread) is
  an *alert*, never a guess: nothing is reported for it until it is in one place again.

Where a card is: the reader gives the share of its area in each zone and how far its
centre lies inside the zone of the largest share (zones.py); a card reported in a zone
stays there while ``HOLD_SHARE`` of it remains inside, or, no other zone touching it,
its centre is no further than ``HOLD_MM`` outside, and no other zone clearly holds it
(hysteresis), so a card laid near a line does not flicker out of its zone when its
position is read a few millimetres off.

The tracker never reports a card it has not read. What it reports maps onto the rules:
a card laid in a seat's play zone is that seat's ``CardPlayed``.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

from table_controller.cards import Card
from table_controller.rules.events import CardPlayed, InputEvent
from table_controller.seats import Seat
from table_controller.vision.zones import Outline, Shares, held

SAME_PLACE_MM = 60.0  # two readings of one card further apart than this are two places
# Two reads of a card lying still are this close: their errors (2.7 mm median, 11.2 mm
# worst, issue 18) come mostly from the lens, the same in both; a hand carrying a card
# moves it more than this between two frames until it lets go.
STILL_MM = 20.0
FORGET_SECONDS = 5.0  # a card read but never reported is forgotten after this unread


@dataclass(frozen=True)
class CardRead:
    """One card read in one frame: where (table mm, its outline, and the zone clearly
    holding it, with the share of it in each zone) and how surely."""

    card: Card
    zone: str | None  # "play:N", "kitty", "tricks:E", or None: in no zone clearly
    x: float
    y: float
    confidence: float = 1.0
    shares: Shares = ()  # (zone, share of the card's area), largest first; () unknown
    outline: Outline = ()  # its four corners on the table (mm); () unknown
    inside: float | None = None  # mm its centre lies inside the zone of shares[0]; None unknown

    def placed(self, reported: str | None) -> str | None:
        """The zone this reading puts the card in, for a card reported in ``reported``:
        that zone while the card is held there (zones.held), else the zone clearly
        holding it (None: no zone)."""
        if reported is not None and self.shares and held(self.shares, reported, self.inside):
            return reported
        return self.zone


@dataclass(frozen=True)
class CardLaid:
    card: Card
    zone: str
    frame: int
    time: float
    x: float
    y: float


@dataclass(frozen=True)
class CardMoved:
    card: Card
    source: str
    zone: str
    frame: int
    time: float


@dataclass(frozen=True)
class CardRemoved:
    """A card gone from ``zone``: its place seen empty, or the card read outside it.
    ``last_read``: the time it was last read in that zone (None: unknown)."""

    card: Card
    zone: str
    frame: int
    time: float
    last_read: float | None = None


@dataclass(frozen=True)
class CardSeenTwice:
    """The same card read in two places in one frame: an alert for the director."""

    card: Card
    places: tuple[tuple[str | None, float, float], ...]
    frame: int
    time: float


TrackerEvent = CardLaid | CardMoved | CardRemoved | CardSeenTwice


@dataclass(frozen=True)
class Lying:
    """A card reported lying in a zone, where it was last read there."""

    card: Card
    zone: str
    x: float
    y: float
    outline: Outline


@dataclass
class _Track:
    zone: str | None = None  # where it is reported to be (None: not reported)
    candidate: str | None = None  # where the current run of still reads puts it
    streak: int = 0  # reads in the current run
    anchor: tuple[float, float] = (0.0, 0.0)  # the run's first read
    last_read: float = -math.inf  # time of its last read (anywhere)
    seen_there: float = -math.inf  # time of its last read in its reported zone
    x: float = 0.0  # its last read in its reported zone
    y: float = 0.0
    outline: Outline = ()
    empty: int = 0  # consecutive unread frames its place was seen empty
    conflicted: bool = False


def check_steadiness(stable_frames: int, within_seconds: float, empty_frames: int) -> None:
    """The settings of how steadily a card must be read, refused when they cannot work
    (the tracker's, and the cards across a line's: across.py)."""
    if stable_frames < 1:
        raise ValueError("stable_frames must be at least 1")
    if within_seconds <= 0:
        raise ValueError("within_seconds must be positive")
    if empty_frames < 1:
        raise ValueError("empty_frames must be at least 1")


@dataclass
class Tracker:
    stable_frames: int = 2
    within_seconds: float = 0.5
    empty_frames: int = 3
    tracks: dict[Card, _Track] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_steadiness(self.stable_frames, self.within_seconds, self.empty_frames)

    def lying(self) -> list[Lying]:
        """The cards reported lying in a zone: the places to look at when unread."""
        return [
            Lying(card, t.zone, t.x, t.y, t.outline)
            for card, t in self.tracks.items()
            if t.zone is not None
        ]

    def update(
        self,
        frame: int,
        time: float,
        reads: list[CardRead],
        empty: Collection[Card] = (),
    ) -> list[TrackerEvent]:
        """Feed one frame's readings, and the cards reported lying whose place this
        frame shows empty (unread ones only count); return what became certain."""
        events: list[TrackerEvent] = []
        by_card: dict[Card, list[CardRead]] = {}
        for r in reads:
            by_card.setdefault(r.card, []).append(r)
        for card, seen in by_card.items():
            track = self.tracks.setdefault(card, _Track())
            event = self._read(track, card, seen, frame, time)
            if event is not None:
                events.append(event)
        for card, track in list(self.tracks.items()):
            if card in by_card:
                continue
            if track.zone is None:
                if time - track.last_read > FORGET_SECONDS:
                    del self.tracks[card]  # never reported: nothing to say
                continue
            track.empty = track.empty + 1 if card in empty else 0
            if track.empty >= self.empty_frames:
                events.append(CardRemoved(card, track.zone, frame, time, track.seen_there))
                track.zone, track.candidate, track.streak, track.empty = None, None, 0, 0
        return events

    def _read(
        self, track: _Track, card: Card, seen: list[CardRead], frame: int, time: float
    ) -> TrackerEvent | None:
        first = seen[0]
        gap = time - track.last_read
        track.last_read = time
        track.empty = 0
        if any(math.dist((r.x, r.y), (first.x, first.y)) > SAME_PLACE_MM for r in seen):
            track.candidate, track.streak = None, 0
            if track.conflicted:
                return None
            track.conflicted = True
            places = tuple((r.zone, r.x, r.y) for r in seen)
            return CardSeenTwice(card, places, frame, time)
        track.conflicted = False
        where = first.placed(track.zone)
        still = math.dist(track.anchor, (first.x, first.y)) <= STILL_MM
        if track.streak and where == track.candidate and gap <= self.within_seconds and still:
            track.streak += 1
        else:
            track.candidate, track.streak, track.anchor = where, 1, (first.x, first.y)
        if where is not None and where == track.zone:
            self._there(track, first, time)
            return None
        if track.streak < self.stable_frames or where == track.zone:
            return None
        source, track.zone = track.zone, where
        if where is None:
            assert source is not None
            return CardRemoved(card, source, frame, time, track.seen_there)
        self._there(track, first, time)
        if source is None:
            return CardLaid(card, where, frame, time, first.x, first.y)
        return CardMoved(card, source, where, frame, time)

    @staticmethod
    def _there(track: _Track, read: CardRead, time: float) -> None:
        track.seen_there, track.x, track.y, track.outline = time, read.x, read.y, read.outline

    def where(self, card: Card) -> str | None:
        """The zone the card is reported in, if any."""
        track = self.tracks.get(card)
        return None if track is None else track.zone


def to_input_event(event: TrackerEvent) -> InputEvent | None:
    """The rules' input event for a tracker event: a card laid (or moved) into a seat's
    play zone is that seat's ``CardPlayed``; everything else is for the table app."""
    if isinstance(event, CardLaid | CardMoved) and event.zone.startswith("play:"):
        return CardPlayed(Seat.parse(event.zone.split(":", 1)[1]), event.card)
    return None
