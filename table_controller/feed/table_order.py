"""A table's messages in order: what lets the director tell an old message sent again
from a new one (pure: no clock read, no file).

Why: a signature says who made a message, not when. Someone who captured a table's
signed status (on the hall's network, in clear without TLS) and has its broker password
could send it again later, and the director would take it as the table's state now:
the game and hand its rulings name, a table that is gone shown as there. The table's
clock cannot say which is newer: a Pi has no clock of its own, a hall may have no
network time, and a director that compared the table's clock with its own would refuse
a table whose clock is wrong.

So each status, answer to a ruling and fleet answer a table signs carries its place,
``order``: ``[boot, link, n]``, compared in that order:

- ``boot`` grows at each start of the table's feed: the table's clock in whole seconds,
  or one more than the last start's when the clock is behind it (the last one is kept
  in the table's log, feed/outbox.py). A table whose clock is wrong still counts up;
  one whose log was made afresh counts from its clock.
- ``link``: the connection's number since that start (1, 2, ...).
- ``n``: the message's number on that connection (1, 2, ...). The last will has none
  (``null``): it is the connection's last word, after everything numbered on it and
  before anything of the next connection.

The director keeps, per table and kind, the newest place it took (in its store, so it
holds across its restart) and refuses one not after it (director/table_trust.py).
Events and pictures carry none: each is stored once, under its game and seq, so a copy
of one changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ORDER = "order"
LAST = 2**62  # the last will's ``n`` when compared: after every numbered message
_MAX = 2**53  # the largest whole number JSON carries exactly everywhere


@dataclass(frozen=True)
class Place:
    """A message's place in its table's order; ``n`` None for the last will."""

    boot: int
    link: int
    n: int | None

    @property
    def key(self) -> tuple[int, int, int]:
        """What places are compared by (the last will after its connection's messages)."""
        return (self.boot, self.link, LAST if self.n is None else self.n)

    def as_json(self) -> list[int | None]:
        return [self.boot, self.link, self.n]

    def words(self) -> str:
        what = "its last will" if self.n is None else f"message {self.n}"
        return f"start {self.boot}, connection {self.link}, {what}"


def is_ordered(kind: str) -> bool:
    """Whether a message of ``kind`` (a topic after ``tables/{id}/``) carries its place:
    a status, an answer to a ruling, a fleet answer."""
    return kind in ("status", "acks") or kind.startswith("fleet/")


def place_of(payload: Mapping[str, Any]) -> Place | None:
    """The payload's place, None when it has none that can be read."""
    value = payload.get(ORDER)
    if not isinstance(value, list) or len(value) != 3:
        return None
    boot, link, n = value
    if not _whole(boot, 0) or not _whole(link, 1) or not (n is None or _whole(n, 1)):
        return None
    return Place(boot, link, n)


def key_words(key: tuple[int, int, int]) -> str:
    """A place as the director keeps it (``Place.key``), in words."""
    boot, link, n = key
    return Place(boot, link, None if n == LAST else n).words()


def placed(payload: Mapping[str, Any], place: Place) -> dict[str, Any]:
    """``payload`` with its place (before it is signed: the place is signed with it)."""
    return {**payload, ORDER: place.as_json()}


def next_boot(last: int | None, now: float) -> int:
    """The number of a new start of the feed: the clock's whole seconds, or one more
    than the ``last`` start's when the clock is not ahead of it."""
    return max(int(now), (last or 0) + 1)


class Places:
    """The table's count (its feed's worker thread only): one connection after another
    within one start, each message numbered on its connection."""

    def __init__(self, boot: int) -> None:
        self.boot = boot
        self.link = 0
        self._n = 0

    def connected(self) -> None:
        """A new connection: its messages are numbered from 1."""
        self.link += 1
        self._n = 0

    def next(self) -> Place:
        self._n += 1
        return Place(self.boot, self.link, self._n)

    def last_word(self) -> Place:
        """The place of this connection's last will."""
        return Place(self.boot, self.link, None)


def _whole(value: Any, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < _MAX


__all__ = [
    "LAST",
    "ORDER",
    "Place",
    "Places",
    "is_ordered",
    "key_words",
    "next_boot",
    "place_of",
    "placed",
]
