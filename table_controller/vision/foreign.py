"""Cards that are none of this deck's: a marker of the deck's family whose number is no
card's (0-23) and no mat corner's (40-43), of a card marker's size on the table; or a
card printed in the other marker family (other_family.py: a QR card at a table whose
deck has ArUco markers), which says so (``family``).

A second deck printed with other numbers, or a marker from another set, is such a card.
It is never a card of the game, but a player who lays it thinks it is, so the table says
so, with its picture (rules/deck.py), rather than leave it unread. One glimpse proves
nothing (a pattern in a sleeve, a hand's shadow read as a marker): like a card laid
(tracker.py), it is reported once it has been read lying still, twice within
``within_seconds`` and ``STILL_MM``, and once only while it lies there.

Pure: no images. The reader (detect.py) finds the markers, the watcher (watcher.py)
takes the picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from table_controller.rules.events import Printing
from table_controller.vision.tracker import FORGET_SECONDS, SAME_PLACE_MM, STILL_MM

Outline = tuple[tuple[float, float], ...]

# A foreign card reported and not read since is forgotten after this: a hand over it for
# a while does not report it again; one left on the table for minutes may be.
REPORTED_KEEP_SECONDS = 60.0


@dataclass(frozen=True)
class ForeignSeen:
    """A marker that is none of this deck's, read in one frame: its number in the
    family (None: a code of the other family not read), where the card carrying it lies
    (table mm, as a card of this deck would) and the zone clearly holding it (None:
    none); ``family``: how the card is printed when not as this deck is (None: as it is)."""

    marker: int | None
    x: float
    y: float
    zone: str | None
    outline: Outline = ()
    family: Printing | None = None


@dataclass(frozen=True)
class ForeignCardLaid:
    """A card not of this deck laid, read still in ``zone`` (None: in no zone), printed
    in ``family`` when not as this deck is (None: as it is, with another number)."""

    marker: int | None
    zone: str | None
    frame: int
    time: float
    x: float
    y: float
    family: Printing | None = None


@dataclass
class _Track:
    marker: int | None
    family: Printing | None
    anchor: tuple[float, float]
    last: float
    streak: int = 1
    reported: bool = False


@dataclass
class ForeignTracker:
    """Foreign markers over frames: each card reported once, when it lies still."""

    stable_frames: int = 2
    within_seconds: float = 0.5
    tracks: list[_Track] = field(default_factory=list)

    def update(self, frame: int, time: float, seen: list[ForeignSeen]) -> list[ForeignCardLaid]:
        laid: list[ForeignCardLaid] = []
        touched: list[_Track] = []  # a card's two markers count once a frame
        for s in seen:
            track = self._near(s)
            if track is not None and any(track is t for t in touched):
                continue
            if track is None:
                track = _Track(s.marker, s.family, (s.x, s.y), time)
                self.tracks.append(track)
            else:
                if track.marker is None:  # a code of the other family read at last
                    track.marker = s.marker
                still = math.dist(track.anchor, (s.x, s.y)) <= STILL_MM
                if track.reported and still:
                    track.last = time
                    touched.append(track)
                    continue
                if still and time - track.last <= self.within_seconds:
                    track.streak += 1
                else:
                    track.anchor, track.streak, track.reported = (s.x, s.y), 1, False
                track.last = time
            touched.append(track)
            if not track.reported and track.streak >= self.stable_frames:
                track.reported = True
                laid.append(ForeignCardLaid(track.marker, s.zone, frame, time, s.x, s.y, s.family))
        self.tracks = [
            t
            for t in self.tracks
            if time - t.last <= (REPORTED_KEEP_SECONDS if t.reported else FORGET_SECONDS)
        ]
        return laid

    def _near(self, s: ForeignSeen) -> _Track | None:
        """The track of the same card: the same family, the same number (a code of the
        other family read in one look and not in another is the same), near."""
        near = [
            t
            for t in self.tracks
            if t.family == s.family
            and (t.marker == s.marker or (s.family is not None and None in (t.marker, s.marker)))
            and math.dist(t.anchor, (s.x, s.y)) <= SAME_PLACE_MM
        ]
        return min(near, key=lambda t: math.dist(t.anchor, (s.x, s.y))) if near else None


__all__ = ["ForeignCardLaid", "ForeignSeen", "ForeignTracker"]
