"""The game in words: seats, suits, and what each output event means, the same on the
table's page, the narrated replay, the score sheet and the kiosk's coach.

Four places used to word them each their own way and drifted (the page said "shown in
trick N" even when a renege's proof was a card known to be in the hand; the sheet printed
"loner partner played" from the enum's code). Every enum the engine reports has its
words here, and a test holds that no member lacks them.
"""

from __future__ import annotations

from collections.abc import Mapping

from table_controller.cards import Card, Rank, Suit
from table_controller.rules.codec import event_name
from table_controller.rules.events import (
    INPUT_EVENTS,
    OUTPUT_EVENTS,
    HandResult,
    HandVoided,
    HowChosen,
    InputEvent,
    Irregularity,
    Remedy,
    RenegeProven,
    RenegeSpotted,
    ScoreAdjusted,
    ThrowIn,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat, Team

SEAT_NAMES = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
RANK_NAMES = {
    Rank.NINE: "Nine",
    Rank.TEN: "Ten",
    Rank.JACK: "Jack",
    Rank.QUEEN: "Queen",
    Rank.KING: "King",
    Rank.ACE: "Ace",
}
SUIT_NAMES = {Suit.C: "Clubs", Suit.D: "Diamonds", Suit.H: "Hearts", Suit.S: "Spades"}
TEAM_WORDS = {Team.NS: "North–South", Team.EW: "East–West"}
TEAM_SHORT = {Team.NS: "N–S", Team.EW: "E–W"}  # as the table's score box names the sides

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
    Irregularity.SECOND_COPY: "A second copy of a card",
    Irregularity.FOREIGN_CARD: "A card not of this deck",
    Irregularity.WRONG_KITTY: "A card in the kitty that was seen elsewhere",
    Irregularity.SHORT_HAND: "A hand ended short",
}
REMEDY_WORDS = {
    Remedy.CANCELLED: "cancelled, no penalty",
    Remedy.NOTED: "noted, no penalty",
    Remedy.PENALTY: "penalty",
    Remedy.CARD_DEAD: "the card stays and has no value",
    Remedy.LONER_CANCELLED: "the lone call is cancelled",
    Remedy.FORFEIT: "the team loses its bid",
    Remedy.AWAITING_CHOICE: "the other side chooses the remedy",
    Remedy.DIRECTOR: "not taken into the game: call the director",
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
# What the director did, by the ruling's kind (feed/signing.py), after "the director".
RULING_DONE = {
    "confirm_renege": "upheld the renege",
    "dismiss_renege": "dismissed the renege",
    "adjust_score": "adjusted the score",
    "void_hand": "voided the hand",
}
FIRST_DEALER_WORDS = {
    HowChosen.CHOSEN: "chosen",
    HowChosen.FIRST_ACE: "first ace",
    HowChosen.FIRST_JACK: "first jack",
    HowChosen.HIGH_CUT: "high cut",
}


# What the table is doing, as a heading reads it ("Bidding"), for the dashboard, the hall
# screen and the table's page; never the enum's code (``choosing_dealer``).
PHASE_WORDS = {
    Phase.CHOOSING_DEALER: "Choosing the first dealer",
    Phase.DEALING: "Dealing",
    Phase.BIDDING: "Bidding",
    Phase.CHOOSING_REMEDY: "Choosing a remedy",
    Phase.NAMING_TRUMP: "Naming trump",
    Phase.DISCARDING: "Dealer discarding",
    Phase.EXCHANGING: "Exchanging cards",
    Phase.PLAYING: "Playing",
    Phase.OVER: "Game over",
}

# Every event the engine takes or reports, by its name on the wire ("hand_dealt"), as a
# person reads it in a history or a log ("Cards dealt").
EVENT_WORDS: dict[str, str] = {
    "dealer_chosen": "First dealer chosen",
    "face_up_card_dealt": "Card dealt face up",
    "card_cut": "Card cut",
    "hand_dealt": "Cards dealt",
    "passed": "Passed",
    "ordered_up": "Ordered up",
    "trump_called": "Trump called",
    "bid_made": "Bid",
    "trump_bid": "Bid with trump",
    "dealer_discarded": "Dealer discarded",
    "cards_exchanged": "Cards exchanged",
    "card_played": "Card played",
    "card_taken_back": "Card taken back",
    "renege_claimed": "Renege claimed",
    "misdeal_declared": "Misdeal declared",
    "wrong_card_count": "Wrong number of cards",
    "all_nines_shown": "All nines shown",
    "card_dropped": "Card dropped",
    "penalty_accepted": "Penalty accepted",
    "hand_laid_down": "Hand laid down",
    "score_adjusted": "Score adjusted by the director",
    "hand_voided": "Hand voided by the director",
    "second_copy_seen": "A second copy of a card seen",
    "foreign_card_seen": "A card not of this deck seen",
    "kitty_card_seen": "A card seen in the kitty",
    "first_dealer_set": "First dealer set",
    "cut_tied": "Cut tied",
    "hand_started": "Hand started",
    "hand_thrown_in": "Hand thrown in",
    "bid_won": "Bid won",
    "trump_set": "Trump set",
    "trick_won": "Trick won",
    "renege_spotted": "Renege spotted",
    "renege_proven": "Renege proven",
    "irregularity_found": "Irregularity",
    "claim_judged": "Renege claim judged",
    "penalty_scored": "Penalty scored",
    "score_corrected": "Score corrected",
    "hand_scored": "Hand scored",
    "game_ended": "Game over",
    "playoff_started": "Playoff started",
    "match_won": "Match won",
}
assert set(EVENT_WORDS) == {event_name(c) for c in (*INPUT_EVENTS, *OUTPUT_EVENTS)}


def phase_words(phase: Phase | str | None) -> str:
    """The phase as a heading ("Bidding"); a phase by its code ("choosing_dealer") too, as
    a table's status sends it; "" for none, and an unknown code as it is (a newer table)."""
    if phase is None or phase == "":
        return ""
    try:
        return PHASE_WORDS[Phase(phase)]
    except ValueError:
        return str(phase)


def event_words(name: str) -> str:
    """An event's name on the wire in words ("hand_dealt" -> "Cards dealt"); an unknown
    name with its underscores made spaces, never shown raw."""
    return EVENT_WORDS.get(name) or name.replace("_", " ").capitalize()


def card_words(card: Card | str) -> str:
    """A card as a person says it: "Jack of Hearts" (a code such as "JH" is read)."""
    if isinstance(card, str):
        card = Card.parse(card)
    return f"{RANK_NAMES[card.rank]} of {SUIT_NAMES[card.suit]}"


def card_face(card: Card | str) -> str:
    """A card as a face reads: "J♥" ("10♠" for a ten)."""
    if isinstance(card, str):
        card = Card.parse(card)
    rank = "10" if card.code[0] == "T" else card.code[0]
    return rank + card.suit.symbol


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


def signed_points(points: int) -> str:
    """A change of score as a scoreboard reads it: "+2", "−2" (a minus sign, not a dash)."""
    return f"+{points}" if points > 0 else f"−{-points}" if points < 0 else "0"


def ruling_change(
    kind: str,
    change: InputEvent | None,
    players: Mapping[Seat, str] | None = None,
    hand: int | None = None,
) -> str:
    """What a director's ruling changed at the table, side and signed points first:
    "E–W (Bo & Di) −2: the director dismissed the renege". The players at the table
    read it off the page, so it says the change itself, not only the director's reason
    (which once was all the page showed). ``change`` is the event the ruling carried."""
    done = RULING_DONE.get(kind, "made a ruling")
    if isinstance(change, ScoreAdjusted):
        side = TEAM_SHORT[change.team]
        names = [(players or {}).get(s, "").strip() for s in change.team.seats]
        if all(names) and names != [SEAT_NAMES[s] for s in change.team.seats]:
            side += f" ({names[0]} & {names[1]})"
        return f"{side} {signed_points(change.points)}: the director {done}"
    if isinstance(change, HandVoided):
        which = f"Hand {hand}" if hand else "The hand"
        return f"{which} void: the director {done}; the same dealer deals again"
    if kind == "confirm_renege":
        return f"The director {done}: its penalty stands, the score does not change"
    return f"The director {done}: the score does not change"


def ruling_announcement(
    kind: str,
    change: InputEvent | None,
    reason: str,
    players: Mapping[Seat, str] | None = None,
    hand: int | None = None,
) -> str:
    """The table page's notice for an applied ruling: the change, then the reason."""
    said = ruling_change(kind, change, players, hand)
    why = reason.strip().rstrip(".")
    return f"{said}. Reason: {why}" if why else said


__all__ = [
    "EVENT_WORDS",
    "FIRST_DEALER_WORDS",
    "IRREGULARITY_WORDS",
    "PHASE_WORDS",
    "RANK_NAMES",
    "REMEDY_WORDS",
    "RESULT_WORDS",
    "RULING_DONE",
    "SEAT_NAMES",
    "SUIT_NAMES",
    "TEAM_SHORT",
    "TEAM_WORDS",
    "THROW_IN_WORDS",
    "card_face",
    "card_words",
    "event_words",
    "phase_words",
    "reason_words",
    "renege_sentence",
    "ruling_announcement",
    "ruling_change",
    "signed_points",
    "suit_name",
    "suit_text",
]
