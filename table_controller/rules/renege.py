"""Proving reneges from what the table sees (pure).

A renege is proven when a seat that did not follow the suit led later plays a card of
that suit in the same hand (it held that card then), or at once when a card of the suit
led is known to be in its hand (a known deal, a card exposed or dropped). The evidence is
the trick where it showed out and the card and trick that prove it. A seat that really
was void can never be flagged: every card it plays later was already in its hand.

One card proves every failure before it: a seat that showed out of clubs in tricks 1 and
3 and plays a club in trick 4 held that club in both, so both are proven, exactly as
they are at once when the hand is known. Every showing-out is remembered for that.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.cards import Card, Suit, effective_suit
from table_controller.rules.hand import HandState, Showing
from table_controller.seats import Seat


@dataclass(frozen=True, slots=True)
class Proof:
    seat: Seat
    trick: int  # where the seat showed out
    suit: Suit
    played: Card  # what it played instead
    proof: Card
    proof_trick: int


def held_of_suit(hand: HandState, seat: Seat, suit: Suit) -> Card | None:
    """A card of ``suit`` known to be in the seat's hand, if any (the highest code)."""
    trump = hand.trump
    found = [c for c in hand.holdings(seat) if effective_suit(c, trump) == suit]
    return max(found) if found else None


def check_play(
    hand: HandState, seat: Seat, card: Card, trick: int, led: Suit | None
) -> tuple[list[Proof], Showing | None]:
    """What a play shows: the reneges it proves, and a new showing-out to remember.

    One card can do both: a heart played on a spade lead proves an earlier failure to
    follow hearts and shows the seat out of spades. ``led`` is the suit led in the current
    trick, None when this card leads it. Called before the card leaves the seat's known
    holdings."""
    proofs: list[Proof] = []
    suit = effective_suit(card, hand.trump)
    showings = hand.showings[seat]
    for earlier in showings.get(suit, ()):
        if earlier.trick < trick:
            proofs.append(Proof(seat, earlier.trick, suit, earlier.card, card, trick))
    if led is None or suit == led:
        return proofs, None
    held = held_of_suit(hand, seat, led)
    if held is not None:
        proofs.append(Proof(seat, trick, led, card, held, trick))
        return proofs, None
    return proofs, Showing(trick, card)
