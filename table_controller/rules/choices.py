"""The events a seat may choose next, where its cards are known (pure).

What a bot, a simulation or a kiosk chooses from. Chance (the deal) and seats whose
hands are unknown have no choices here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from table_controller.cards import DECK, SUITS, Suit
from table_controller.rules import scoring
from table_controller.rules.errors import RulesError
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    CardsExchanged,
    DealerChosen,
    DealerDiscarded,
    InputEvent,
    OrderedUp,
    Passed,
    PenaltyAccepted,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.hand import NEXT, Phase
from table_controller.rules.presets import FirstDealer, Variant
from table_controller.seats import SEATS, Seat

if TYPE_CHECKING:
    from table_controller.rules.game import Game


# Events are frozen, so the choices a seat can have are built once and shared.
_PASSED = tuple(Passed(s) for s in SEATS)
_ORDERED = tuple((OrderedUp(s, False), OrderedUp(s, True)) for s in SEATS)
_CALLED = tuple(
    tuple((TrumpCalled(s, t, False), TrumpCalled(s, t, True)) for t in SUITS) for s in SEATS
)
_DISCARDS = tuple(DealerDiscarded(c) for c in DECK)
_PLAYS = tuple(tuple(CardPlayed(s, c) for c in DECK) for s in SEATS)


def legal_events(game: Game) -> list[InputEvent]:
    """The events the seat to act may choose now: the phase's own function answers (as
    OpenSpiel splits its legal actions by phase), looked up in one table."""
    return BY_PHASE[game.phase](game)


def _none(game: Game) -> list[InputEvent]:
    """The deal (chance) and the game's end: nobody chooses anything."""
    return []


def _choosing_dealer(game: Game) -> list[InputEvent]:
    if game.rules.first_dealer is FirstDealer.CHOSEN:
        return [DealerChosen(s) for s in SEATS]
    return []  # cut or dealt face up: chance


def _choosing_remedy(game: Game) -> list[InputEvent]:
    """003: after a bid out of turn the other side takes the points, or voids the bid and
    goes alone."""
    hand, rules = game.hand, game.rules
    if hand is None:
        return []
    assert hand.offender is not None
    other = hand.offender.team.other.seats
    remedies: list[InputEvent] = [PenaltyAccepted(s) for s in other]
    if rules.variant is Variant.EUCHRE and hand.upcard is not None:
        if hand.round == 1:
            remedies += [OrderedUp(s, True) for s in other]
        else:
            barred = hand.upcard.suit
            remedies += [TrumpCalled(s, t, True) for s in other for t in SUITS if t != barred]
    return remedies


def _bidding(game: Game) -> list[InputEvent]:
    """Euchre's two rounds (order up or pass; then name a suit but the upcard's), or Bid
    Euchre's bids."""
    hand, rules = game.hand, game.rules
    seat = game.to_act
    if hand is None or seat is None or hand.known[seat] is None:
        return []
    if rules.variant is Variant.BID_EUCHRE:
        return bids(game, seat)
    upcard = hand.upcard
    assert upcard is not None
    if hand.round == 1:
        return [_PASSED[seat], *_ORDERED[seat]]
    events: list[InputEvent] = []
    if not (seat == hand.dealer and rules.stick_the_dealer):
        events.append(_PASSED[seat])
    barred = upcard.suit
    for suit in SUITS:
        if suit != barred:
            events.extend(_CALLED[seat][suit])
    return events


def _naming_trump(game: Game) -> list[InputEvent]:
    """Bid Euchre: the winner of the bidding names trump (or no trump, where allowed)."""
    hand, seat = game.hand, game.to_act
    if hand is None or seat is None or hand.known[seat] is None:
        return []
    named: list[Suit | None] = list(SUITS)
    if game.rules.no_trump:
        named.append(None)
    return [TrumpCalled(seat, t) for t in named]


def _discarding(game: Game) -> list[InputEvent]:
    hand, seat = game.hand, game.to_act
    if hand is None or seat is None or (held := hand.known[seat]) is None:
        return []
    return [_DISCARDS[c] for c in sorted(held)]


def _exchanging(game: Game) -> list[InputEvent]:
    """004: the maker shooting for 12 gives a card for partner's best."""
    hand, seat = game.hand, game.to_act
    if hand is None or seat is None:
        return []
    held, theirs = hand.known[seat], hand.known[seat.partner]
    if held is None or theirs is None:
        return []
    return [CardsExchanged(d, r) for d in sorted(held) for r in sorted(theirs)]


def _playing(game: Game) -> list[InputEvent]:
    """The legal cards of the seat to play: the commonest question, answered directly
    from the trick's bit masks (``NEXT`` gives the seat to play)."""
    hand = game.hand
    if hand is None:
        return []
    trick = hand.trick
    if trick is None:  # between tricks: as the rules say, through ``legal_plays``
        seat = game.to_act
        if seat is None or hand.known[seat] is None:
            return []
        plays = _PLAYS[seat]
        return [plays[c] for c in game.legal_plays(seat)]
    out_seat = hand.sitting_out
    seat = NEXT[(trick.leader * 16 + trick.mask) * 5 + (4 if out_seat is None else out_seat)]
    if seat is None or (held := hand.known[seat]) is None:
        return []
    if trick.led is not None:
        held = (held & hand.follow[trick.led]) or held
    plays = _PLAYS[seat]
    return [plays[c] for c in sorted(held)]


# One function per phase, every phase listed (a phase added to ``Phase`` needs one here).
BY_PHASE: dict[Phase, Callable[[Game], list[InputEvent]]] = {
    Phase.CHOOSING_DEALER: _choosing_dealer,
    Phase.DEALING: _none,
    Phase.BIDDING: _bidding,
    Phase.CHOOSING_REMEDY: _choosing_remedy,
    Phase.NAMING_TRUMP: _naming_trump,
    Phase.DISCARDING: _discarding,
    Phase.EXCHANGING: _exchanging,
    Phase.PLAYING: _playing,
    Phase.OVER: _none,
}


def bids(game: Game, seat: Seat) -> list[InputEvent]:
    """Bid Euchre: the bids ``seat`` may make now (a pass first where allowed); they do
    not depend on the cards held, so the touchscreen offers them at a live table too."""
    hand, rules = game.hand, game.rules
    assert hand is not None
    amounts = list(range(rules.min_bid, rules.hand_size + 1))
    if rules.shoot_bids:
        high = hand.high_bid or 0
        amounts += [12, 24] + ([high * 2] if scoring.is_shoot(high) and high >= 24 else [])
    events: list[InputEvent] = []
    trumps: list[Suit | None] = [*SUITS, None] if rules.no_trump else list(SUITS)
    for amount in amounts:
        try:
            game._check_bid(hand, seat, amount)
        except RulesError:
            continue
        if rules.bid_names_trump:
            events.extend(TrumpBid(seat, amount, t) for t in trumps)
        else:
            events.append(BidMade(seat, amount))
    must_bid = seat == hand.dealer and rules.dealer_min_bid is not None and hand.high_bid is None
    if not must_bid:
        events.insert(0, Passed(seat))
    return events
