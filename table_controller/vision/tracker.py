"""From cards read frame by frame to cards laid, moved and removed (pure: no images).

A camera frame is a noisy witness: a card may be read in one frame and missed in the
next (a hand over it, glare), and a marker could be misread. The tracker reports only
what it is sure of:

- a card is *laid* in a zone once it has been read there in ``stable_frames``
  consecutive frames (2 by default: at 30 fps the event comes on the second frame that
  shows the card);
- it is *moved* when it is then read, just as steadily, in another zone;
- it is *removed* once it has not been read for ``gone_seconds`` (a hand over a card for
  a moment is not a removal);
- a card read in two places at once (two cards with the same marker, or a misread) is
  an *alert*, never a guess: nothing is reported for it until it is in one place again.

The tracker never reports a card it has not read. What it reports maps onto the rules:
a card laid in a seat's play zone is that seat's ``CardPlayed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from table_controller.cards import Card
from table_controller.rules.events import CardPlayed, InputEvent
from table_controller.seats import Seat

SAME_PLACE_MM = 60.0  # two readings of one card further apart than this are two places


@dataclass(frozen=True)
class CardRead:
    """One card read in one frame: where (table mm, and the zone there) and how surely."""

    card: Card
    zone: str | None  # "play:N", "kitty", "tricks:E", or None: outside every zone
    x: float
    y: float
    confidence: float = 1.0


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
    card: Card
    zone: str
    frame: int
    time: float


@dataclass(frozen=True)
class CardSeenTwice:
    """The same card read in two places in one frame: an alert for the director."""

    card: Card
    places: tuple[tuple[str | None, float, float], ...]
    frame: int
    time: float


TrackerEvent = CardLaid | CardMoved | CardRemoved | CardSeenTwice


@dataclass
class _Track:
    zone: str | None = None  # where it is reported to be (None: not yet reported)
    candidate: str | None = None  # where it is being read now
    streak: int = 0  # consecutive frames read at ``candidate``
    last_seen: float = 0.0
    x: float = 0.0
    y: float = 0.0
    conflicted: bool = False


@dataclass
class Tracker:
    stable_frames: int = 2
    gone_seconds: float = 1.0
    tracks: dict[Card, _Track] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.stable_frames < 1:
            raise ValueError("stable_frames must be at least 1")
        if self.gone_seconds <= 0:
            raise ValueError("gone_seconds must be positive")

    def update(self, frame: int, time: float, reads: list[CardRead]) -> list[TrackerEvent]:
        """Feed one frame's readings; return what became certain with it."""
        events: list[TrackerEvent] = []
        by_card: dict[Card, list[CardRead]] = {}
        for r in reads:
            by_card.setdefault(r.card, []).append(r)
        for card, seen in by_card.items():
            track = self.tracks.setdefault(card, _Track())
            track.last_seen = time
            first = seen[0]
            if any(math.dist((r.x, r.y), (first.x, first.y)) > SAME_PLACE_MM for r in seen):
                if not track.conflicted:
                    places = tuple((r.zone, r.x, r.y) for r in seen)
                    events.append(CardSeenTwice(card, places, frame, time))
                track.conflicted = True
                track.candidate, track.streak = None, 0
                continue
            track.conflicted = False
            zone = first.zone
            if zone == track.candidate:
                track.streak += 1
            else:
                track.candidate, track.streak = zone, 1
            track.x, track.y = first.x, first.y
            if track.streak == self.stable_frames and zone is not None and zone != track.zone:
                if track.zone is None:
                    events.append(CardLaid(card, zone, frame, time, first.x, first.y))
                else:
                    events.append(CardMoved(card, track.zone, zone, frame, time))
                track.zone = zone
        for card, track in list(self.tracks.items()):
            if card in by_card or time - track.last_seen < self.gone_seconds:
                continue
            if track.zone is not None:
                events.append(CardRemoved(card, track.zone, frame, time))
            del self.tracks[card]
        return events

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
