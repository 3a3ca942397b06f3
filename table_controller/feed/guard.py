"""How much one table may send the director: a rate per table, and the size of a status
(pure: the clock is given).

Why: the broker lets a table write its own topics as fast and as big as it likes (its
``max_packet_size`` bounds one message only), and everything the director takes is
written to its store and read by the dashboard. A table gone wrong, or anyone holding
its password, could fill the director's disk and slow every page. So each table has a
token bucket of messages and one of bytes: what comes beyond them is dropped (and
acknowledged: the broker would otherwise send it again for ever), with one alert, not
one a message. A table's events dropped are not lost: the director's mark does not
move over them, so the table sends them again (docs/feed.md, "Delivery"). The limits
are far above what a table sends (a few messages a second, an event's picture about
30 KB), and the bucket holds a table's whole backlog sent again after a reconnect; a
director changes them (limits.py), and they are given here, never read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

QUIET = 60.0  # seconds without a drop before a table's next drop counts as a new flood


@dataclass(frozen=True)
class FeedLimits:
    """What the guard and the service check of each message, in bytes: made from the
    director's limits (limits.py ``Limits.feed``, which a director sets: docs/director.md,
    "Limits"); the defaults are those limits' defaults."""

    rate: float = 100.0  # messages a second, sustained
    burst: float = 3000.0  # messages at once (a backlog sent again after a reconnect)
    byte_rate: float = 2.0 * 1024 * 1024  # bytes a second, sustained
    byte_burst: float = 40.0 * 1024 * 1024  # bytes at once
    status_bytes: int = 64 * 1024  # a status bigger than this is refused (one is ~1 KB)
    picture_bytes: int = 1024 * 1024  # an event's picture bigger than this is refused


@dataclass
class _Bucket:
    messages: float
    bytes: float
    at: float
    dropped: int = 0
    last_drop: float = -1e18
    flooding: bool = False


@dataclass(frozen=True)
class Admission:
    """One message's fate: ``ok`` take it; else ``first`` when it opens a flood (raise
    the alert), and ``dropped``, how many of this flood were dropped so far."""

    ok: bool
    first: bool = False
    dropped: int = 0


@dataclass
class RateGuard:
    """A token bucket per table, of messages and of bytes."""

    limits: FeedLimits = field(default_factory=FeedLimits)
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def admit(self, table: str, size: int, now: float) -> Admission:
        """Whether a message of ``size`` bytes from ``table`` at ``now`` is taken."""
        lim = self.limits
        b = self._buckets.get(table)
        if b is None:
            b = self._buckets[table] = _Bucket(lim.burst, lim.byte_burst, now)
        gone = max(0.0, now - b.at)
        b.at = now
        b.messages = min(lim.burst, b.messages + gone * lim.rate)
        b.bytes = min(lim.byte_burst, b.bytes + gone * lim.byte_rate)
        if b.flooding and now - b.last_drop >= QUIET:
            b.flooding, b.dropped = False, 0
        if b.messages >= 1.0 and b.bytes >= size:
            b.messages -= 1.0
            b.bytes -= size
            return Admission(ok=True)
        first = not b.flooding
        b.flooding, b.last_drop = True, now
        b.dropped += 1
        return Admission(ok=False, first=first, dropped=b.dropped)

    def dropped(self) -> dict[str, int]:
        """Per table, the messages dropped in its current flood (0: none now)."""
        return {t: b.dropped for t, b in self._buckets.items() if b.flooding}


__all__ = ["QUIET", "Admission", "FeedLimits", "RateGuard"]
