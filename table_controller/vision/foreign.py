"""Cards that are none of this deck's: a marker of the deck's family whose number is no
card's (0-23) and no mat corner's (40-43), of a card marker's size on the table.

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

from table_controller.vision.tracker import FORGET_SECONDS, SAME_PLACE_MM, STILL_MM

Outline = tuple[tuple[float, float], ...]

# A foreign card reported and not read since is forgotten after this: a hand over it for
# a while does not report it again; one left on the table for minutes may be.
REPORTED_KEEP_SECONDS = 60.0


@dataclass(frozen=True)
class ForeignSeen:
    """A marker that is none of this deck's, read in one frame: its number in the
    family, where the card carrying it lies (table mm, as a card of this deck would)
    and the zone clearly holding it (None: none)."""

    marker: int
    x: float
    y: float
    zone: str | None
    outline: Outline = ()


@dataclass(frozen=True)
class ForeignCardLaid:
    """A card not of this deck laid, read still in ``zone`` (None: in no zone)."""

    marker: int
    zone: str | None
    frame: int
    time: float
    x: float
    y: float


@dataclass
class _Track:
    marker: int
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
                track = _Track(s.marker, (s.x, s.y), time)
                self.tracks.append(track)
            else:
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
                laid.append(ForeignCardLaid(s.marker, s.zone, frame, time, s.x, s.y))
        self.tracks = [
            t
            for t in self.tracks
            if time - t.last <= (REPORTED_KEEP_SECONDS if t.reported else FORGET_SECONDS)
        ]
        return laid

    def _near(self, s: ForeignSeen) -> _Track | None:
        near = [
            t
            for t in self.tracks
            if t.marker == s.marker and math.dist(t.anchor, (s.x, s.y)) <= SAME_PLACE_MM
        ]
        return min(near, key=lambda t: math.dist(t.anchor, (s.x, s.y))) if near else None


__all__ = ["ForeignCardLaid", "ForeignSeen", "ForeignTracker"]
