"""A renege in words: one sentence, the same on the table's page, the narrated replay, the
score sheet and the kiosk's coach.

Four places used to word it each their own way and drifted (the page said "shown in
trick N" even when the proof was a card known to be in the hand). The evidence differs
by how the renege was proven: by a card of the suit played later (its trick is named), or
by a card known to be in the hand then (a known deal, the upcard picked up, a card
exposed or dropped).
"""

from __future__ import annotations

from table_controller.cards import Suit
from table_controller.rules.events import RenegeProven, RenegeSpotted
from table_controller.seats import Seat

SEAT_NAMES = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}


def suit_text(suit: Suit | None) -> str:
    return "no trump" if suit is None else f"{suit.symbol} {suit.word}"


def renege_evidence(event: RenegeProven) -> str:
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
        f"({renege_evidence(event)})"
    )
