"""The state of one hand: what is known of each seat's cards, the bidding, the tricks.

Mutable on purpose, like python-chess's Board: the engine validates an event completely
before it changes anything here, so a rejected event leaves the hand as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from table_controller.cards import Card, Suit
from table_controller.seats import Seat, Team


class Phase(Enum):
    CHOOSING_DEALER = "choosing_dealer"
    DEALING = "dealing"
    BIDDING = "bidding"
    CHOOSING_REMEDY = "choosing_remedy"  # 003: after a bid out of turn
    NAMING_TRUMP = "naming_trump"  # Bid Euchre: the winner of the bidding names trump
    DISCARDING = "discarding"
    EXCHANGING = "exchanging"  # 004: shooting for 12 with partner's best
    PLAYING = "playing"
    OVER = "over"


# The phases in which a hand is in play: someone has a decision to make about it.
HAND_PHASES = frozenset(
    {
        Phase.BIDDING,
        Phase.CHOOSING_REMEDY,
        Phase.NAMING_TRUMP,
        Phase.DISCARDING,
        Phase.EXCHANGING,
        Phase.PLAYING,
    }
)

# Where a card was seen: (kind, seat, trick). Kept as a plain tuple because one is
# recorded for every card played; ``describe`` puts it in words only for an error.
Sighting = tuple[str, Seat | None, int]
OUT_OF_PLAY = frozenset({"played", "led early", "discarded", "turned down", "passed"})


def describe(seen: Sighting) -> str:
    kind, seat, trick = seen
    if kind == "played":
        return f"played by {seat} in trick {trick}"
    if kind == "led early":
        return f"led by {seat} before the discard"
    if kind in ("passed", "given"):
        return f"{kind} to {seat}"
    if seat is not None:
        return f"{kind} by {seat}"
    return kind


def _next_table() -> tuple[Seat | None, ...]:
    """NEXT[(leader * 16 + played_mask) * 5 + sitting_out]: the seat to play next."""
    table: list[Seat | None] = []
    for leader in Seat:
        for mask in range(16):
            for out in range(5):
                nxt = None
                for seat in leader.clockwise_from():
                    if seat != out and not (mask >> seat) & 1:
                        nxt = seat
                        break
                table.append(nxt)
    return tuple(table)


NEXT = _next_table()


class Trick:
    """One trick: who led, the cards laid in order, the suit led."""

    __slots__ = ("dead", "leader", "led", "mask", "number", "plays")

    def __init__(self, number: int, leader: Seat) -> None:
        self.number = number  # 1-based
        self.leader = leader
        self.plays: list[tuple[Seat, Card]] = []
        self.led: Suit | None = None
        self.dead: set[Card] = set()  # cards that cannot take the trick (003)
        self.mask = 0  # bit s set: seat s has played to this trick

    def has_played(self, seat: Seat) -> bool:
        return bool((self.mask >> seat) & 1)

    def key(self) -> tuple[object, ...]:
        return (
            self.number,
            self.leader,
            tuple(self.plays),
            self.led,
            frozenset(self.dead),
            self.mask,
        )


@dataclass(slots=True)
class Showing:
    """A seat did not follow ``suit`` in ``trick`` by playing ``card``: if it later shows
    a card of that suit, it held one then."""

    trick: int
    card: Card


class HandState:
    """Everything about the hand in play. Built once per deal, so written out by hand
    (a dataclass with twenty default factories costs more than the rest of the deal)."""

    __slots__ = (
        "alone",
        "bid",
        "bid_trump",
        "claims",
        "dealer",
        "discard_pending",
        "dropped",
        "eff",
        "ended",
        "exposed",
        "follow",
        "forfeited",
        "has_dropped",
        "high_bid",
        "high_bidder",
        "known",
        "maker",
        "number",
        "offender",
        "played",
        "renege_tricks",
        "reneged",
        "round",
        "seen",
        "showings",
        "sitting_out",
        "spotted",
        "trick",
        "tricks",
        "trump",
        "trump_set",
        "turn",
        "upcard",
        "won",
    )

    def __init__(
        self, number: int, dealer: Seat, upcard: Card | None, known: list[set[Card] | None]
    ) -> None:
        self.number = number
        self.dealer = dealer
        self.upcard = upcard
        # cards: a seat's whole remaining hand where known, else None
        self.known = known
        # cards known to be in a seat's hand without the whole hand being known
        self.exposed: list[set[Card]] = [set(), set(), set(), set()]
        # where each card was seen, for "the same card seen twice"
        self.seen: dict[Card, Sighting] = {}
        # bidding
        self.round = 1
        self.turn: Seat | None = None
        self.high_bid: int | None = None
        self.high_bidder: Seat | None = None
        self.bid_trump: Suit | None = None  # 002: the trump the high bid named
        self.forfeited: set[Team] = set()
        self.offender: Seat | None = None  # a bid out of turn awaiting the other side's choice
        # the contract
        self.trump: Suit | None = None
        self.trump_set = False
        self.maker: Seat | None = None
        self.alone = False
        self.sitting_out: Seat | None = None
        self.bid: int | None = None
        self.discard_pending = False
        # play
        self.tricks: list[Trick] = []
        self.trick: Trick | None = None
        self.won = [0, 0]
        self.played = [0, 0, 0, 0]
        # every trick in which a seat did not follow a suit, oldest first, until proven
        self.showings: list[dict[Suit, list[Showing]]] = [{}, {}, {}, {}]
        self.dropped: list[set[Card]] = [set(), set(), set(), set()]
        self.has_dropped = False  # any dropped card: the play's fast path is off
        self.eff: tuple[Suit, ...] = ()  # effective suit by card, once trump is set
        self.follow: tuple[frozenset[Card], ...] = ()  # the cards of each suit, likewise
        # 000: reneges seen in the open trick, which may still be taken back
        self.spotted: list[
            tuple[Seat, int, Suit, Card, Card]
        ] = []  # seat, trick, suit, played, held
        self.reneged: list[Seat] = []
        self.renege_tricks: list[tuple[Seat, int]] = []  # seat, trick it reneged in
        self.claims: list[tuple[Seat, Seat, int | None]] = []  # by, against, trick named
        self.ended = False

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
        out = 4 if self.sitting_out is None else self.sitting_out
        return NEXT[(trick.leader * 16 + trick.mask) * 5 + out]

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
            self.bid_trump,
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
            tuple(
                tuple(sorted((s, w.trick, w.card) for s, ws in d.items() for w in ws))
                for d in self.showings
            ),
            tuple(frozenset(d) for d in self.dropped),
            tuple(self.spotted),
            tuple(self.reneged),
            tuple(self.renege_tricks),
            tuple(self.claims),
            self.ended,
        )
