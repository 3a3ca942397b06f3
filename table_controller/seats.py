"""Seats and partnerships.

Seats are named by compass point, clockwise N E S W (the project's card-code contract);
partners sit opposite, so N-S play against E-W. Play and the deal move clockwise, which
is "to the left" in the rule texts.
"""

from __future__ import annotations

from enum import IntEnum

from table_controller.clip import clip


class Seat(IntEnum):
    """A seat at the table; the integer value is its clockwise position from North."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def left(self) -> Seat:
        """The next seat clockwise: the one that bids and plays after this one."""
        return _SEATS[(self + 1) % 4]

    @property
    def right(self) -> Seat:
        return _SEATS[(self + 3) % 4]

    @property
    def partner(self) -> Seat:
        return _SEATS[(self + 2) % 4]

    @property
    def team(self) -> Team:
        return _TEAMS[self & 1]

    @classmethod
    def parse(cls, text: str) -> Seat:
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown seat {clip(text)}: seats are N, E, S and W") from None

    def clockwise_from(self) -> tuple[Seat, Seat, Seat, Seat]:
        """All four seats in playing order, starting with this one."""
        return _ORDERS[self]

    def __str__(self) -> str:
        return self.name


class Team(IntEnum):
    """A partnership: North-South or East-West."""

    NS = 0
    EW = 1

    @property
    def seats(self) -> tuple[Seat, Seat]:
        return (Seat(self.value), Seat(self.value + 2))

    @property
    def other(self) -> Team:
        return _TEAMS[1 - self]

    @classmethod
    def parse(cls, text: str) -> Team:
        key = text.strip().upper().replace("-", "")
        try:
            return cls[key]
        except KeyError:
            raise ValueError(f"unknown team {clip(text)}: teams are NS and EW") from None

    def __str__(self) -> str:
        return self.name


_SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
SEATS = _SEATS  # iterating the enum class is slow on hot paths
_TEAMS = (Team.NS, Team.EW)
_ORDERS = {
    s: (_SEATS[s], _SEATS[(s + 1) % 4], _SEATS[(s + 2) % 4], _SEATS[(s + 3) % 4]) for s in _SEATS
}
