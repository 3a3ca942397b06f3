"""A simple legal strategy for the simulated players: enough to play a game that looks
like one (issue 7's bots play well; these only play legally and sensibly). Pure: cards in,
a choice out."""

from __future__ import annotations

from collections.abc import Sequence

from table_controller.cards import (
    Card,
    Rank,
    Suit,
    beats,
    effective_suit,
    is_trump,
    legal_plays,
    power,
)
from table_controller.devices.seat_events import SeatButton
from table_controller.seats import Seat


def strength(card: Card, trump: Suit | None, led: Suit | None) -> tuple[int, int, int]:
    return (
        int(is_trump(card, trump)),
        int(led is not None and effective_suit(card, trump) == led),
        power(card, trump),
    )


def worth_calling(cards: Sequence[Card], trump: Suit) -> tuple[bool, bool]:
    """(call, alone) with ``trump`` as trump: call with three trumps (bowers counted) or
    two and an off-suit ace; alone with four including the right bower, or five."""
    trumps = [c for c in cards if is_trump(c, trump)]
    off_ace = any(c.rank == Rank.ACE and not is_trump(c, trump) for c in cards)
    right = Card.of(Rank.JACK, trump) in trumps
    call = len(trumps) >= 3 or (len(trumps) == 2 and off_ace)
    alone = len(trumps) >= 5 or (len(trumps) >= 4 and right and off_ace)
    return call, alone


def first_round_bid(cards: Sequence[Card], upcard: Card, *, dealer: bool) -> SeatButton:
    """Order up (CALL or ALONE) or PASS; the dealer counts the upcard, which it takes."""
    held = [*cards, upcard] if dealer else list(cards)
    call, alone = worth_calling(held, upcard.suit)
    if alone:
        return SeatButton.ALONE
    return SeatButton.CALL if call else SeatButton.PASS


def second_round_bid(
    cards: Sequence[Card], turned_down: Suit, *, stuck: bool
) -> tuple[Suit, bool] | None:
    """(suit, alone) to name, or None to pass; a stuck dealer names its best suit."""
    options = []
    for suit in Suit:
        if suit == turned_down:
            continue
        call, alone = worth_calling(cards, suit)
        trumps = sorted((power(c, suit) for c in cards if is_trump(c, suit)), reverse=True)
        options.append((call, len(trumps), trumps, -int(suit), suit, alone))
    best = max(options)
    call, _, _, _, suit, alone = best
    if call or stuck:
        return suit, alone and call
    return None


def dealer_discard(cards: Sequence[Card], trump: Suit) -> Card:
    """The card the dealer throws away: its weakest, keeping trumps and aces."""
    return min(cards, key=lambda c: (is_trump(c, trump), c.rank == Rank.ACE, power(c, trump)))


def choose_play(
    cards: Sequence[Card], plays: Sequence[tuple[Seat, Card]], led: Suit | None, trump: Suit | None
) -> Card:
    """Lead the highest off-suit ace, else the lowest card; follow with the highest card
    if it takes the trick, else the lowest. Always legal by the effective suit."""
    legal = legal_plays(cards, led, trump)
    if not plays or led is None:
        aces = [c for c in legal if c.rank == Rank.ACE and not is_trump(c, trump)]
        if aces:
            return max(aces)
        return min(legal, key=lambda c: (strength(c, trump, None), int(c)))
    best = plays[0][1]
    for _, card in plays[1:]:
        if beats(card, best, trump, led):
            best = card
    top = max(legal, key=lambda c: (strength(c, trump, led), int(c)))
    if beats(top, best, trump, led):
        return top
    return min(legal, key=lambda c: (strength(c, trump, led), int(c)))
