"""The deck's integrity in a hand (pure): each of the 24 cards seen at most once, no
card that is none of the deck's, the kitty consistent with the cards seen, and every
seat's five cards played before the hand is over.

The camera is the witness (vision/, table/inputs.py): it reports a second copy of a
card's code, a marker that is none of this deck's, or a card turned up in the kitty
while the hand is played, as input events; this module says what each means against
the cards the hand has seen, as ``IrregularityFound`` outputs for the director. None of
them changes the game: the copy or the foreign card is never taken into it, and what
follows (a misdeal, the hand void) is the director's ruling, since the rule texts give
it to the director ("DO NOT make your own Rulings! Please call the Tournament
Director", 003). Details name seats by letter and cards by code, as the rest of the
rules core does; the page and the dashboard put them in words.
"""

from __future__ import annotations

from table_controller.cards import Card
from table_controller.rules.events import (
    ForeignCardSeen,
    Irregularity,
    IrregularityFound,
    Printing,
    Remedy,
    SecondCopySeen,
)
from table_controller.rules.hand import HandState, Sighting, describe
from table_controller.seats import SEATS, Seat

# How a card seen earlier in the hand may still turn up in the kitty: the card turned
# down there, the dealer's discard, or the upcard the dealer picked up (and then
# discarded unseen).
_IN_KITTY = frozenset({"turned down", "discarded", "turned up"})


def earlier_copy(hand: HandState, seat: Seat, card: Card) -> Sighting | None:
    """Where the hand saw ``card`` before, when ``seat`` laying it now is a second copy
    (hands unknown: a live table); None when ``seat`` may lay it. The upcard the seat
    picked up, or a card it exposed or dropped, is its own to play."""
    seen = hand.seen.get(card)
    if seen is None or card in hand.exposed[seat] or card in hand.dropped[seat]:
        return None
    if hand.upcard == card and seen == ("picked up", seat, 0):
        return None
    return seen


def second_copy(hand: HandState | None, ev: SecondCopySeen) -> IrregularityFound:
    """A second card with ``ev.card``'s code: not taken into the game."""
    card = ev.card
    where = f" in {ev.seat}'s square" if ev.seat is not None else ""
    if ev.at_once:
        detail = (
            f"{card} is on the table twice at once{where}: two cards carry its marker (two "
            "decks mixed?); neither is taken until one is taken away"
        )
    else:
        seen = hand.seen.get(card) if hand is not None else None
        before = f"already {describe(seen)}" if seen is not None else "already seen this hand"
        detail = (
            f"a second {card} was laid{where}, {before}: two decks mixed? The second copy is "
            "not taken into the game"
        )
    return IrregularityFound(Irregularity.SECOND_COPY, ev.seat, Remedy.DIRECTOR, detail, card)


# How a card printed in another marker family is named to the people at the table (the
# alert here, the dashboard's caption of its picture).
PRINTED = {Printing.QR: "QR codes", Printing.ARUCO: "ArUco markers"}


def foreign_card(ev: ForeignCardSeen) -> IrregularityFound:
    """A card whose marker is none of this deck's: not taken into the game. A card printed
    in another marker family (``ev.family``) is named by how it is printed, which is what
    the players can see on it."""
    where = f" in {ev.seat}'s square" if ev.seat is not None else ""
    if ev.family is not None:
        detail = (
            f"a card printed with {PRINTED[ev.family]} (another deck's) was laid{where}; "
            "it is not taken into the game"
        )
    else:
        detail = (
            f"a card that is not of this deck was laid{where}: its marker is none of the 24 "
            "cards' (another deck's card); it is not taken into the game"
        )
    return IrregularityFound(Irregularity.FOREIGN_CARD, ev.seat, Remedy.DIRECTOR, detail)


def kitty_card(
    hand: HandState, card: Card, *, in_play: bool, hand_size: int
) -> list[IrregularityFound]:
    """A card turned up in the kitty while the hand is still played (``in_play``; or the
    dealer's discard the rules could not take): a card the hand saw elsewhere cannot be
    there, and, since the kitty is only turned once the hand is over (the next deal's
    upcard, or the kitty shown), every seat that has not played its cards ended the hand
    short."""
    out: list[IrregularityFound] = []
    seen = hand.seen.get(card)
    if seen is not None and not _may_be_in_kitty(hand, card, seen):
        out.append(
            IrregularityFound(
                Irregularity.WRONG_KITTY,
                None,
                Remedy.DIRECTOR,
                f"{card} turned up in the kitty, but it was {describe(seen)}: two copies of it "
                "(two decks mixed?)",
                card,
            )
        )
    if in_play:
        short = short_seats(hand, hand_size)
        if short:
            counts = ", ".join(f"{seat} {played} of {hand_size}" for seat, played in short)
            out.append(
                IrregularityFound(
                    Irregularity.SHORT_HAND,
                    short[0][0] if len(short) == 1 else None,
                    Remedy.DIRECTOR,
                    f"a card turned up in the kitty before the hand was played out (the next "
                    f"deal begun?): cards played {counts}",
                    card,
                )
            )
    return out


def short_seats(hand: HandState, hand_size: int) -> list[tuple[Seat, int]]:
    """The seats in play that have played fewer than ``hand_size`` cards, with how many."""
    return [
        (seat, hand.played[seat])
        for seat in SEATS
        if hand.active(seat) and hand.played[seat] < hand_size
    ]


def _may_be_in_kitty(hand: HandState, card: Card, seen: Sighting) -> bool:
    kind = seen[0]
    if kind == "picked up":  # the dealer's: in the kitty only as the unseen discard
        return not any(s[0] == "discarded" for s in hand.seen.values())
    return kind in _IN_KITTY


__all__ = ["PRINTED", "earlier_copy", "foreign_card", "kitty_card", "second_copy", "short_seats"]
