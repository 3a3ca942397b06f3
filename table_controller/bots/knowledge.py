"""What one seat knows: its own hand, the public events, and what follows from them.

A bot decides from a ``SeatView`` only. The view is a ``Game`` replayed from the events
as that seat saw them: the deal carries the upcard and the seat's own hand and nothing
else, the dealer's discard is blank to everyone but the dealer, and the 004 exchange is
blank to the opponents. So a bot cannot look at a hidden card even by mistake: the
hidden hands are simply not in its game (``hand.known[other]`` is ``None``).

From the view, ``Knowledge`` derives the hard constraints a deal of the unseen cards
must meet (who showed out of which suit, the cards seen, the upcard the dealer took)
and keeps the bidding as soft evidence for the sampler to weigh, never to exclude:
players do not always bid by the book.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from table_controller.cards import DECK, Card, Suit, suit_sets
from table_controller.rules.events import (
    CardsExchanged,
    DealerDiscarded,
    HandDealt,
    InputEvent,
    Passed,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import OUT_OF_PLAY, Phase
from table_controller.rules.presets import Rules, Variant
from table_controller.seats import SEATS, Seat


def redact(event: InputEvent, seat: Seat, maker: Seat | None = None) -> InputEvent:
    """The event as ``seat`` saw it: other hands and private cards blanked out.
    ``maker`` is the bidder of the hand in play (for the 004 exchange)."""
    if type(event) is HandDealt:
        own = event.hands.get(seat)
        return HandDealt(event.upcard, {} if own is None else {seat: own})
    if type(event) is DealerDiscarded:
        return event  # the caller blanks it where the seat is not the dealer
    if type(event) is CardsExchanged and maker is not None:
        if seat in (maker, maker.partner):
            return event
        return CardsExchanged(None, None)
    return event


class ViewKeeper:
    """The four seats' views of one game, kept up to date event by event, so that a
    decision costs one push per seat rather than a replay of the whole log."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.games = [Game(rules) for _ in SEATS]

    def push(self, event: InputEvent) -> None:
        for seat, game in zip(SEATS, self.games, strict=True):
            game.push(_seen_by(event, seat, game))

    def view(self, seat: Seat) -> SeatView:
        return SeatView(seat, self.games[seat])


def _seen_by(event: InputEvent, seat: Seat, game: Game) -> InputEvent:
    hand = game.hand
    if type(event) is DealerDiscarded:
        if hand is not None and hand.dealer != seat:
            return DealerDiscarded(None)
        return event
    return redact(event, seat, None if hand is None else hand.maker)


@dataclass(frozen=True)
class SeatView:
    """One seat's view: its seat and the game as it saw it (hidden hands unknown).
    Bots must not push to ``game``; ``Game.copy()`` it to look ahead."""

    seat: Seat
    game: Game

    @property
    def rules(self) -> Rules:
        return self.game.rules

    @property
    def cards(self) -> frozenset[Card]:
        """The seat's own cards now."""
        hand = self.game.hand
        held = None if hand is None else hand.known[self.seat]
        return frozenset(held or ())


def seat_view(game: Game, seat: Seat) -> SeatView:
    """The view of ``seat`` of a game whose hands are known (a simulation): the game's
    log replayed with everything ``seat`` could not see blanked out."""
    keeper_game = Game(game.rules)
    for event in game.log:
        keeper_game.push(_seen_by(event, seat, keeper_game))
    return SeatView(seat, keeper_game)


def seat_view_from(rules: Rules, seat: Seat, events: Iterable[InputEvent]) -> SeatView:
    """A view from public events (as a live table logs them) and the seat's own hand
    carried by each ``HandDealt`` (the other hands, if given, are dropped)."""
    view_game = Game(rules)
    for event in events:
        view_game.push(_seen_by(event, seat, view_game))
    return SeatView(seat, view_game)


_GONE = OUT_OF_PLAY | {"turned up"}


@dataclass(frozen=True)
class Knowledge:
    """The constraints on the unseen cards, from one seat's view of the hand in play.

    ``unseen``: cards neither in the seat's hand nor seen anywhere (played, turned down,
    discarded face up); ``must_hold[s]``: unseen cards known to be in seat ``s``'s hand
    (the upcard the dealer took); ``voids[s]``: the suits ``s`` showed out of (with the
    trump in play); ``counts[s]``: how many cards ``s`` holds now (0 for a seat sitting
    out); ``kitty``: how many unseen cards lie out of play (the undealt cards and a
    face-down discard). ``passed_upcard``: seats that passed the upcard in round 1;
    ``passed_round2``: seats that passed in round 2 (soft evidence only)."""

    seat: Seat
    trump: Suit | None
    unseen: frozenset[Card]
    must_hold: tuple[frozenset[Card], ...]
    voids: tuple[frozenset[Suit], ...]
    counts: tuple[int, ...]
    kitty: int
    upcard: Card | None
    passed_upcard: frozenset[Seat]
    passed_round2: frozenset[Seat]
    maker: Seat | None


def knowledge(view: SeatView) -> Knowledge:
    """What the seat knows about the other hands in the hand in play."""
    game, me = view.game, view.seat
    hand = game.hand
    if hand is None:
        raise ValueError("no hand is in play")
    mine = frozenset(hand.known[me] or ())
    n = game.rules.hand_size
    dealt_upcard = hand.upcard
    gone = {c for c, (kind, _, _) in hand.seen.items() if kind in _GONE}
    unseen = set(DECK) - mine - gone
    must: list[set[Card]] = [set(hand.exposed[s]) & unseen for s in SEATS]
    counts = [0, 0, 0, 0]
    for s in SEATS:
        counts[s] = 0 if not hand.active(s) else n - hand.played[s]
    # the dealer picked up the upcard: it holds it, unless a blank discard was the
    # upcard itself, which a bot assumes it was not.
    for c, (kind, who, _) in hand.seen.items():
        if kind == "picked up" and who is not None and who != me and c in unseen:
            must[who].add(c)
    trump = hand.trump if hand.trump_set else None
    voids = [frozenset(hand.showings[s]) if hand.trump_set else frozenset() for s in SEATS]
    if hand.trump_set:
        follow = suit_sets(trump)
        for s in SEATS:
            for suit in voids[s]:
                if follow[suit] & must[s]:
                    must[s] -= follow[suit]  # seen held after showing out: a renege
    for s in SEATS:
        if s != me and counts[s] < len(must[s]):
            must[s] = set(sorted(must[s])[: counts[s]])
    counts[me] = 0
    kitty = len(unseen) - sum(counts)
    passed1: set[Seat] = set()
    passed2: set[Seat] = set()
    round_ = 1
    for e in _hand_events(game):
        if type(e) is Passed:
            (passed1 if round_ == 1 else passed2).add(e.seat)
            if e.seat == hand.dealer and game.rules.variant is Variant.EUCHRE:
                round_ = 2
    return Knowledge(
        seat=me,
        trump=trump,
        unseen=frozenset(unseen),
        must_hold=tuple(frozenset(m) for m in must),
        voids=tuple(voids),
        counts=tuple(counts),
        kitty=max(kitty, 0),
        upcard=dealt_upcard,
        passed_upcard=frozenset(passed1),
        passed_round2=frozenset(passed2),
        maker=hand.maker,
    )


def _hand_events(game: Game) -> list[InputEvent]:
    """The events since the hand in play was dealt."""
    log = game.log
    for i in range(len(log) - 1, -1, -1):
        if type(log[i]) is HandDealt:
            return log[i + 1 :]
    return []


def is_playing(view: SeatView) -> bool:
    return view.game.phase is Phase.PLAYING


__all__ = [
    "Knowledge",
    "SeatView",
    "ViewKeeper",
    "knowledge",
    "redact",
    "seat_view",
    "seat_view_from",
]
