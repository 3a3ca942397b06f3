"""The events a seat may choose next, where its cards are known (pure).

What a bot, a simulation or a kiosk chooses from. Chance (the deal) and seats whose
hands are unknown have no choices here.
"""

from __future__ import annotations

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
    phase, hand, rules = game.phase, game.hand, game.rules
    if phase is Phase.PLAYING and hand is not None and hand.trick is not None:
        # The commonest question, answered directly: the legal cards of the seat to play.
        trick = hand.trick
        out_seat = hand.sitting_out
        seat = NEXT[(trick.leader * 16 + trick.mask) * 5 + (4 if out_seat is None else out_seat)]
        if seat is None or (held := hand.known[seat]) is None:
            return []
        if trick.led is not None:
            held = (held & hand.follow[trick.led]) or held
        plays = _PLAYS[seat]
        return [plays[c] for c in sorted(held)]
    if phase is Phase.CHOOSING_DEALER:
        if rules.first_dealer is FirstDealer.CHOSEN:
            return [DealerChosen(s) for s in SEATS]
        return []
    if hand is None:
        return []
    if phase is Phase.CHOOSING_REMEDY:
        # 003: the other side takes the points, or voids the bid and goes alone.
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
    seat = game.to_act
    if seat is None:
        return []
    held = hand.known[seat]
    if phase is Phase.PLAYING:
        if held is None:
            return []
        plays = _PLAYS[seat]
        return [plays[c] for c in game.legal_plays(seat)]
    if phase is Phase.DISCARDING:
        return [] if held is None else [_DISCARDS[c] for c in sorted(held)]
    if phase is Phase.EXCHANGING:
        theirs = hand.known[seat.partner]
        if held is None or theirs is None:
            return []
        return [CardsExchanged(d, r) for d in sorted(held) for r in sorted(theirs)]
    if held is None:
        return []
    if phase is Phase.NAMING_TRUMP:
        named: list[Suit | None] = list(SUITS)
        if rules.no_trump:
            named.append(None)
        return [TrumpCalled(seat, t) for t in named]
    if rules.variant is Variant.BID_EUCHRE:
        return bids(game, seat)
    upcard = hand.upcard
    assert upcard is not None
    if hand.round == 1:
        return [_PASSED[seat], *_ORDERED[seat]]
    events: list[InputEvent] = []
    stuck = seat == hand.dealer and rules.stick_the_dealer
    if not stuck:
        events.append(_PASSED[seat])
    barred = upcard.suit
    for suit in SUITS:
        if suit != barred:
            events.extend(_CALLED[seat][suit])
    return events


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
