"""The game in words: seats, suits, and what each output event means, the same on the
table's page, the narrated replay, the score sheet and the kiosk's coach.

Four places used to word them each their own way and drifted (the page said "shown in
trick N" even when a renege's proof was a card known to be in the hand; the sheet printed
"loner partner played" from the enum's code). Every enum the engine reports has its
words here, and a test holds that no member lacks them.
"""

from __future__ import annotations

from table_controller.cards import Suit
from table_controller.rules.events import (
    HandResult,
    HowChosen,
    Irregularity,
    Remedy,
    RenegeProven,
    RenegeSpotted,
    ThrowIn,
)
from table_controller.seats import Seat

SEAT_NAMES = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
SUIT_NAMES = {Suit.C: "Clubs", Suit.D: "Diamonds", Suit.H: "Hearts", Suit.S: "Spades"}

IRREGULARITY_WORDS = {
    Irregularity.BID_OUT_OF_TURN: "Bid out of turn",
    Irregularity.PASS_OUT_OF_TURN: "Pass out of turn",
    Irregularity.LEAD_OUT_OF_TURN: "Lead out of turn",
    Irregularity.PLAY_OUT_OF_TURN: "Card played out of turn",
    Irregularity.LEAD_BEFORE_DISCARD: "Lead before the dealer's discard",
    Irregularity.DEALER_DID_NOT_DISCARD: "Dealer did not discard",
    Irregularity.LONER_PARTNER_PLAYED: "The loner's partner played",
    Irregularity.TURNED_DOWN_SUIT_NAMED: "Turned-down suit named",
    Irregularity.CARD_DROPPED: "Card dropped",
    Irregularity.DROPPED_CARD_NOT_PLAYED: "Dropped card not played",
    Irregularity.FALSE_RENEGE_CLAIM: "False renege claim",
    Irregularity.RENEGE_TAKEN_BACK: "Renege taken back",
}
REMEDY_WORDS = {
    Remedy.CANCELLED: "cancelled, no penalty",
    Remedy.NOTED: "noted, no penalty",
    Remedy.PENALTY: "penalty",
    Remedy.CARD_DEAD: "the card stays and has no value",
    Remedy.LONER_CANCELLED: "the lone call is cancelled",
    Remedy.FORFEIT: "the team loses its bid",
    Remedy.AWAITING_CHOICE: "the other side chooses the remedy",
}
RESULT_WORDS = {
    HandResult.MADE: "made",
    HandResult.MARCH: "march",
    HandResult.EUCHRED: "euchred",
    HandResult.RENEGE: "ended by a renege",
    HandResult.PENALTY: "ended by a penalty",
}
THROW_IN_WORDS = {
    ThrowIn.ALL_PASSED: "all passed",
    ThrowIn.MISDEAL: "misdeal",
    ThrowIn.ALL_NINES: "a hand of all nines",
    ThrowIn.WRONG_CARD_COUNT: "wrong number of cards",
    ThrowIn.BID_FORFEITED: "the bid was forfeited",
    ThrowIn.VOIDED: "voided by the director",
}
FIRST_DEALER_WORDS = {
    HowChosen.CHOSEN: "chosen",
    HowChosen.FIRST_ACE: "first ace",
    HowChosen.FIRST_JACK: "first jack",
    HowChosen.HIGH_CUT: "high cut",
}


def reason_words(reason: Irregularity | HandResult) -> str:
    """Why points moved outside a hand's score: "renege", "false renege claim"."""
    if isinstance(reason, Irregularity):
        return IRREGULARITY_WORDS[reason].lower()
    return "renege" if reason is HandResult.RENEGE else RESULT_WORDS[reason]


def suit_text(suit: Suit | None) -> str:
    """A suit in a sentence: "♣ clubs"."""
    return "no trump" if suit is None else f"{suit.symbol} {suit.word}"


def suit_name(suit: Suit | None) -> str:
    """A suit as a heading: "Clubs"."""
    return "no trump" if suit is None else SUIT_NAMES[suit]


def _evidence(event: RenegeProven) -> str:
    """How the renege is proven, in words."""
    if event.proof_trick != event.trick:
        return f"the {event.proof.pretty} was played in trick {event.proof_trick}"
    return f"the {event.proof.pretty} was known to be in the hand"


def renege_sentence(event: RenegeProven | RenegeSpotted, who: str | None = None) -> str:
    """The renege as one sentence, without a full stop. ``who`` names the seat as the
    screen does ("Ann (N)", "You"); by default the seat's name ("North")."""
    name = who if who is not None else SEAT_NAMES[event.seat]
    if isinstance(event, RenegeSpotted):
        return (
            f"{name} did not follow {suit_text(event.suit)} in trick {event.trick} while "
            f"holding the {event.held.pretty}: the card may be taken back before the trick "
            "is complete"
        )
    return (
        f"{name} did not follow {suit_text(event.suit)} in trick {event.trick}, playing the "
        f"{event.played.pretty} while holding the {event.proof.pretty} "
        f"({_evidence(event)})"
    )
