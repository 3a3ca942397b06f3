"""The state of one hand: what is known of each seat's cards, the bidding, the tricks.

Mutable on purpose, like python-chess's Board: the engine validates an event completely
before it changes anything here, so a rejected event leaves the hand as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from table_controller.cards import Card, Suit
from table_controller.seats import Seat, Team


@dataclass(slots=True)
class Trick:
    number: int  # 1-based
    leader: Seat
    plays: list[tuple[Seat, Card]] = field(default_factory=list)
    led: Suit | None = None
    dead: set[Card] = field(default_factory=set)  # cards that cannot take the trick (003)

    def has_played(self, seat: Seat) -> bool:
        return any(s == seat for s, _ in self.plays)

    def key(self) -> tuple[object, ...]:
        return (self.number, self.leader, tuple(self.plays), self.led, frozenset(self.dead))


@dataclass(slots=True)
class Showing:
    """A seat did not follow ``suit`` in ``trick`` by playing ``card``: if it later shows
    a card of that suit, it held one then."""

    trick: int
    card: Card


@dataclass(slots=True)
class HandState:
    number: int
    dealer: Seat
    upcard: Card | None
    # cards: a seat's whole remaining hand where known, else None
    known: list[set[Card] | None]
    # cards known to be in a seat's hand without the whole hand being known
    exposed: list[set[Card]] = field(default_factory=lambda: [set(), set(), set(), set()])
    # where each card was seen, for "the same card seen twice"
    seen: dict[Card, str] = field(default_factory=dict)
    # bidding
    round: int = 1
    turn: Seat | None = None
    high_bid: int | None = None
    high_bidder: Seat | None = None
    forfeited: set[Team] = field(default_factory=set)
    offender: Seat | None = None  # a bid out of turn awaiting the other side's choice
    # the contract
    trump: Suit | None = None
    trump_set: bool = False
    maker: Seat | None = None
    alone: bool = False
    sitting_out: Seat | None = None
    bid: int | None = None
    discard_pending: bool = False
    # play
    tricks: list[Trick] = field(default_factory=list)
    trick: Trick | None = None
    won: list[int] = field(default_factory=lambda: [0, 0])
    played: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    showings: list[dict[Suit, Showing]] = field(default_factory=lambda: [{}, {}, {}, {}])
    dropped: list[set[Card]] = field(default_factory=lambda: [set(), set(), set(), set()])
    spotted: tuple[Seat, Card, Card] | None = None  # 000: renege seen, may be taken back
    reneged: list[Seat] = field(default_factory=list)
    claims: list[tuple[Seat, Seat]] = field(default_factory=list)
    ended: bool = False

    @property
    def eldest(self) -> Seat:
        return self.dealer.left

    @property
    def started(self) -> bool:
        """Whether any card has been played (or led early) in this hand."""
        return self.trick is not None

    def active(self, seat: Seat) -> bool:
        return seat != self.sitting_out

    def active_count(self) -> int:
        return 3 if self.sitting_out is not None else 4

    def first_active_from(self, seat: Seat) -> Seat:
        return seat if seat != self.sitting_out else seat.left

    def holdings(self, seat: Seat) -> set[Card]:
        """Cards known to be in the seat's hand now."""
        hand = self.known[seat]
        return hand if hand is not None else self.exposed[seat]

    def next_to_play(self) -> Seat | None:
        trick = self.trick
        if trick is None:
            return None
        for seat in trick.leader.clockwise_from():
            if seat != self.sitting_out and not trick.has_played(seat):
                return seat
        return None

    def key(self) -> tuple[object, ...]:
        return (
            self.number,
            self.dealer,
            self.upcard,
            tuple(None if k is None else frozenset(k) for k in self.known),
            tuple(frozenset(e) for e in self.exposed),
            tuple(sorted(self.seen.items())),
            self.round,
            self.turn,
            self.high_bid,
            self.high_bidder,
            frozenset(self.forfeited),
            self.offender,
            self.trump,
            self.trump_set,
            self.maker,
            self.alone,
            self.sitting_out,
            self.bid,
            self.discard_pending,
            tuple(t.key() for t in self.tricks),
            None if self.trick is None else self.trick.key(),
            tuple(self.won),
            tuple(self.played),
            tuple(tuple(sorted((s, w.trick, w.card) for s, w in d.items())) for d in self.showings),
            tuple(frozenset(d) for d in self.dropped),
            self.spotted,
            tuple(self.reneged),
            tuple(self.claims),
            self.ended,
        )
