"""The rule-of-thumb bot: the bidding and play of a sound club player, by point count.

Every decision of every preset: order up, pass or go alone and the second-round call
(stuck dealer included), the dealer's discard, Bid Euchre bids (shooting in 004), naming
trump, the 004 exchange, the 003 bid-out-of-turn remedy, and the card to play. It reads
only its ``SeatView``; it is also the strong bot's bidder and its fallback.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from table_controller.bots.knowledge import SeatView
from table_controller.cards import (
    SUITS,
    Card,
    Rank,
    Suit,
    beats,
    effective_suit,
    is_trump,
    power,
)
from table_controller.rules.events import (
    BidMade,
    CardPlayed,
    CardsExchanged,
    DealerDiscarded,
    InputEvent,
    OrderedUp,
    Passed,
    PenaltyAccepted,
    TrumpBid,
    TrumpCalled,
)
from table_controller.rules.hand import Phase
from table_controller.rules.presets import Variant
from table_controller.seats import Seat

# what each trump is worth (by power within trump: 9 T Q K A, then left, right)
_TRUMP_VALUE = {100: 1.2, 101: 1.3, 103: 1.5, 104: 1.7, 105: 2.0, 110: 2.6, 120: 3.0}
CALL = 6.4  # points to call trump (three trumps with the right and an ace: 7.3)
ALONE = 10.6
STICK_MARGIN = 0.0


def hand_value(cards: Iterable[Card], trump: Suit | None) -> float:
    """A point count of a hand with ``trump`` (None: no trump): trumps by rank, off-suit
    aces, kings behind them, and short suits once the hand can trump them."""
    held = list(cards)
    value = 0.0
    trumps = [c for c in held if is_trump(c, trump)]
    for c in trumps:
        value += _TRUMP_VALUE.get(power(c, trump), 1.0)
    for suit in SUITS:
        if suit == trump:
            continue
        mine = [c for c in held if not is_trump(c, trump) and effective_suit(c, trump) == suit]
        ranks = {c.rank for c in mine}
        if Rank.ACE in ranks:
            value += 1.0 if trump is not None else 1.6
            if Rank.KING in ranks:
                value += 0.5
        elif Rank.KING in ranks and len(mine) >= 2:
            value += 0.3
        if trump is not None and not mine and len(trumps) >= 2:
            value += 0.5
    return value


def estimated_tricks(cards: Sequence[Card], trump: Suit | None) -> float:
    """Tricks a 6-card Bid Euchre hand should take on its own."""
    return hand_value(cards, trump) / 2.0


def best_discard(cards: Iterable[Card], trump: Suit | None) -> Card:
    """Throw the weakest card, preferring to empty a short off suit."""
    held = list(cards)

    def cost(c: Card) -> tuple[int, int, int, int]:
        suit_len = sum(
            1
            for d in held
            if not is_trump(d, trump) and effective_suit(d, trump) == effective_suit(c, trump)
        )
        return (
            int(is_trump(c, trump)),
            int(c.rank == Rank.ACE),
            min(suit_len, 2),
            power(c, trump),
        )

    return min(held, key=lambda c: (cost(c), int(c)))


def best_card_to_give(cards: Iterable[Card], trump: Suit | None) -> Card:
    """The 004 partner's best card: the highest trump, else an ace."""
    return max(cards, key=lambda c: (int(is_trump(c, trump)), power(c, trump), int(c)))


class RuleOfThumbBot:
    name = "rule-of-thumb"

    def choose(self, view: SeatView, rng: random.Random) -> InputEvent:
        game, me = view.game, view.seat
        phase, hand = game.phase, game.hand
        if hand is None:
            raise ValueError(f"{me} has nothing to decide: {game.expecting()}")
        cards = view.cards
        if phase is Phase.CHOOSING_REMEDY:
            return PenaltyAccepted(me)
        if phase is Phase.EXCHANGING:
            trump = hand.trump
            if me == hand.maker:
                return CardsExchanged(best_discard(cards, trump), None)
            return CardsExchanged(None, best_card_to_give(cards, trump))
        legal = game.legal_events()
        if not legal:
            raise ValueError(f"{me} has nothing to decide: {game.expecting()}")
        if phase is Phase.PLAYING:
            return play_card(view)
        if phase is Phase.DISCARDING:
            return DealerDiscarded(best_discard(cards, hand.trump))
        if phase is Phase.NAMING_TRUMP:
            suits: list[Suit | None] = [e.trump for e in legal if isinstance(e, TrumpCalled)]
            return TrumpCalled(me, max(suits, key=lambda t: (hand_value(cards, t), _order(t))))
        if game.rules.variant is Variant.BID_EUCHRE:
            return bid(view, legal)
        return euchre_bid(view, legal)


def _order(t: Suit | None) -> int:
    return -1 if t is None else -int(t)


def euchre_bid(view: SeatView, legal: Sequence[InputEvent]) -> InputEvent:
    game, me = view.game, view.seat
    hand = game.hand
    assert hand is not None and hand.upcard is not None
    cards = view.cards
    up = hand.upcard
    if hand.round == 1:
        if me == hand.dealer:
            held = [*cards, up]
            held.remove(best_discard(held, up.suit))
            value = hand_value(held, up.suit)
        else:
            value = hand_value(cards, up.suit)
            up_value = _TRUMP_VALUE.get(power(up, up.suit), 1.0)
            value += 0.6 * up_value if me.partner == hand.dealer else -0.6 * up_value
        if value >= ALONE and OrderedUp(me, True) in legal:
            return OrderedUp(me, True)
        if value >= CALL:
            return OrderedUp(me, False)
        return Passed(me)
    options = [(hand_value(cards, s), -int(s), s) for s in SUITS if s != up.suit]
    value, _, suit = max(options)
    stuck = Passed(me) not in legal
    if value >= ALONE:
        return TrumpCalled(me, suit, True)
    if value >= CALL or stuck:
        return TrumpCalled(me, suit, False)
    return Passed(me)


def bid(view: SeatView, legal: Sequence[InputEvent]) -> InputEvent:
    """Bid Euchre: bid what the hand takes with one trick from partner; shoot (004)
    with a hand that should take every trick."""
    rules = view.rules
    cards = sorted(view.cards)
    trumps: list[Suit | None] = [*SUITS, None] if rules.no_trump else list(SUITS)
    est, _, best = max((estimated_tricks(cards, t), _order(t), t) for t in trumps)
    n = rules.hand_size
    target = min(n, int(est + 1.0))
    wanted: list[int] = []
    if rules.shoot_bids and est >= n - 0.2:
        wanted.append(24)
    if rules.shoot_bids and est >= n - 1.0:
        wanted.append(12)
    wanted += list(range(target, rules.min_bid - 1, -1)) if target >= 3 else []
    for amount in wanted:
        for event in legal:
            if isinstance(event, BidMade) and event.amount == amount:
                return event
            if isinstance(event, TrumpBid) and event.amount == amount and event.trump == best:
                return event
    if isinstance(legal[0], Passed):
        return legal[0]
    # the dealer must bid: the lowest bid on offer in the best trump
    low: list[InputEvent] = [e for e in legal if isinstance(e, TrumpBid) and e.trump == best]
    return min(low or legal, key=lambda e: getattr(e, "amount", 0))


def play_card(view: SeatView) -> CardPlayed:
    game, me = view.game, view.seat
    hand = game.hand
    assert hand is not None and hand.trick is not None
    trump = hand.trump
    legal = [e.card for e in game.legal_events() if isinstance(e, CardPlayed)]
    plays = hand.trick.plays
    led = hand.trick.led
    makers = hand.maker is not None and hand.maker.team == me.team
    return CardPlayed(me, choose_card(legal, plays, led, trump, me, makers, hand.active_count()))


def _strength(c: Card, trump: Suit | None, led: Suit | None) -> tuple[int, int, int]:
    return (
        int(is_trump(c, trump)),
        int(led is not None and effective_suit(c, trump) == led),
        power(c, trump),
    )


def choose_card(
    legal: Sequence[Card],
    plays: Sequence[tuple[Seat, Card]],
    led: Suit | None,
    trump: Suit | None,
    me: Seat,
    makers: bool,
    active: int,
) -> Card:
    """Lead: an off-suit ace, else (makers) the top trump, else the lowest off card.
    Follow: low when partner has the trick safe, else the cheapest winner, else the
    lowest card."""
    low = min(legal, key=lambda c: (_strength(c, trump, led), int(c)))
    if not plays or led is None:
        aces = [c for c in legal if c.rank == Rank.ACE and not is_trump(c, trump)]
        if aces:
            return max(aces)
        trumps = [c for c in legal if is_trump(c, trump)]
        if makers and len(trumps) >= 2:
            return max(trumps, key=lambda c: power(c, trump))
        off = [c for c in legal if not is_trump(c, trump)]
        if off:
            return min(off, key=lambda c: (power(c, trump), int(c)))
        return low
    best_seat, best = plays[0]
    for seat, card in plays[1:]:
        if beats(card, best, trump, led):
            best_seat, best = seat, card
    last = len(plays) == active - 1
    if best_seat == me.partner and (
        last
        or _strength(best, trump, led)[2] >= 104
        or (not is_trump(best, trump) and best.rank == Rank.ACE and len(plays) >= 2)
    ):
        return low
    winners = [c for c in legal if beats(c, best, trump, led)]
    if winners:
        return min(winners, key=lambda c: (_strength(c, trump, led), int(c)))
    return low
