"""What one seat knows: its own hand, the public events, and what follows from them.

A bot decides from a ``SeatView`` only. The view is a ``Game`` replayed from the events
as that seat saw them: the deal carries the upcard and the seat's own hand and nothing
else, the dealer's discard is blank to everyone but the dealer, and the 004 exchange is
blank to the opponents. So a bot cannot look at a hidden card even by mistake: the
hidden hands are simply not in its game (``hand.known[other]`` is ``None``). One
exception, after the fact: a hand that a renege proven from a hidden hand ended (a table
that knows every hand, as the kiosk) is replayed, once over, with the offender's hand
shown, as a real table shows the cards to prove a renege (``_Follower``).

From the view, ``Knowledge`` derives the hard constraints a deal of the unseen cards
must meet (who showed out of which suit, the cards seen, the upcard the dealer took)
and keeps the bidding as soft evidence for the sampler to weigh, never to exclude:
players do not always bid by the book.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from table_controller.cards import DECK, Card, Suit, suit_sets
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    CardsExchanged,
    DealerDiscarded,
    HandDealt,
    HandScored,
    InputEvent,
    OutputEvent,
    Passed,
    RenegeProven,
    RenegeSpotted,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import OUT_OF_PLAY
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
    decision costs one push per seat rather than a replay of the whole log. ``push``
    takes the whole game's outputs for the event when the caller has them (else the
    keeper plays the whole game itself, to follow a hand a hidden renege ended)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._whole = Game(rules)
        self._seats = [_Follower(rules, seat) for seat in SEATS]

    def push(self, event: InputEvent, outputs: Sequence[OutputEvent] | None = None) -> None:
        if outputs is None:
            outputs = self._whole.push(event)
        for follower in self._seats:
            follower.push(event, outputs)

    def view(self, seat: Seat) -> SeatView:
        return SeatView(seat, self._seats[seat].game)


def _seen_by(
    event: InputEvent, seat: Seat, game: Game, shown: frozenset[Seat] = frozenset()
) -> InputEvent:
    """``event`` as ``seat`` saw it, in ``game`` (its view so far); ``shown``: seats whose
    hand was shown after a renege proven from it (their cards are public then)."""
    hand = game.hand
    if type(event) is HandDealt and shown:
        hands = {s: h for s, h in event.hands.items() if s == seat or s in shown}
        return HandDealt(event.upcard, hands)
    if type(event) is DealerDiscarded:
        if hand is not None and hand.dealer != seat and hand.dealer not in shown:
            return DealerDiscarded(None)
        return event
    if (
        shown
        and type(event) is CardsExchanged
        and hand is not None
        and hand.maker is not None
        and {hand.maker, hand.maker.partner} & shown
    ):
        return event
    return redact(event, seat, None if hand is None else hand.maker)


_RENEGES = (RenegeProven, RenegeSpotted)


class _Follower:
    """One seat's view, kept in step with the whole game.

    The whole game may prove a renege the seat's view cannot: at a table that knows every
    hand (the kiosk, a simulation) a card played off suit is proven a renege at once from
    the offender's hidden hand, and the penalty may end the hand. The view then falls out
    of step (its hand still in play, the scores short), and the next deal would not
    replay. So once the whole game's hand is over, a hand whose reneges the view missed
    is replayed with the offenders' hands shown, as the cards are shown at a real table
    to prove a renege. The hand in play is never shown: until it ends the view just lacks
    the proof (under rules where play goes on after a renege, its penalty too)."""

    def __init__(self, rules: Rules, seat: Seat) -> None:
        self.seat = seat
        self.game = Game(rules)
        self._dealt_at = 0  # the view's log length before this hand's deal
        self._hand: list[InputEvent] = []  # the whole events since this hand's deal
        self._missed: set[Seat] = set()  # seats the whole game proved reneges of, unseen
        self._shown: frozenset[Seat] = frozenset()

    def push(self, event: InputEvent, outputs: Sequence[OutputEvent] | None) -> None:
        """Follow ``event``; ``outputs``: what the whole game made of it (None: unknown,
        the view is only redacted)."""
        view = self.game
        if type(event) is HandDealt:
            self._dealt_at, self._hand = len(view.log), []
            self._missed, self._shown = set(), frozenset()
        self._hand.append(event)
        seen = view.push(_seen_by(event, self.seat, view, self._shown))
        if not outputs:
            return
        whole = {(o.seat, o.trick) for o in outputs if isinstance(o, _RENEGES)}
        if whole:
            mine = {(o.seat, o.trick) for o in seen if isinstance(o, _RENEGES)}
            self._missed |= {s for s, _ in whole - mine if s != self.seat}
        if self._missed and any(isinstance(o, HandScored) for o in outputs):
            self._show(frozenset(self._missed))  # the whole game's hand is over

    def _show(self, seats: frozenset[Seat]) -> None:
        """Replay the hand just over with ``seats``' hands shown."""
        view = Game.replay(self.game.rules, self.game.log[: self._dealt_at])
        shown = self._shown | seats
        for event in self._hand:
            view.push(_seen_by(event, self.seat, view, shown))
        self.game, self._shown, self._missed = view, shown, set()


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
    """The view of ``seat`` of a game whose hands are known (a simulation, the kiosk):
    the game's log replayed with everything ``seat`` could not see blanked out (and a
    hand a renege proven from a hidden hand ended, shown once it is over: _Follower)."""
    return seat_view_from(game.rules, seat, game.log)


def seat_view_from(rules: Rules, seat: Seat, events: Iterable[InputEvent]) -> SeatView:
    """A view from the events as a table logs them: public events, and each
    ``HandDealt`` with the seat's own hand (other hands, if given, are blanked out, and
    used only to follow a hand a renege proven from them ended)."""
    whole: Game | None = Game(rules)
    follower = _Follower(rules, seat)
    for event in events:
        outputs: list[OutputEvent] | None = None
        if whole is not None:
            try:
                outputs = whole.push(event)
            except RulesError:  # not the whole game (a live table's log): redact only
                whole = None
        follower.push(event, outputs)
    return SeatView(seat, follower.game)


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


__all__ = [
    "Knowledge",
    "SeatView",
    "ViewKeeper",
    "knowledge",
    "redact",
    "seat_view",
    "seat_view_from",
]
