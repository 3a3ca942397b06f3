"""The events: frozen, past-tense records of what happened at the table.

Input events are what the table saw or heard (a card laid, a call made); the engine
folds them into its state. Output events are what follows from the rules (a trick won,
a renege proven, a hand scored). Both are plain frozen dataclasses so that a test, a
transcript, a bot or the camera can produce them alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum

from table_controller.cards import Card, Suit
from table_controller.seats import Seat, Team

# ---------------------------------------------------------------------------------
# Input events
# ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InputEvent:
    """Something the table saw or heard."""


@dataclass(frozen=True, slots=True)
class DealerChosen(InputEvent):
    """The players (or the director) chose the first dealer."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class FaceUpCardDealt(InputEvent):
    """A card dealt face up to choose the first dealer (first ace 001, first jack 003)."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class CardCut(InputEvent):
    """A seat cut a card to choose the first dealer: high card deals (000)."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class HandDealt(InputEvent):
    """The dealer dealt. ``upcard`` is the turned card (none in Bid Euchre); ``hands``
    holds the hands that are known (all for a simulation, none for a live table)."""

    upcard: Card | None = None
    hands: Mapping[Seat, tuple[Card, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Passed(InputEvent):
    seat: Seat


@dataclass(frozen=True, slots=True)
class OrderedUp(InputEvent):
    """First round: the seat told the dealer to pick up (the dealer: picked it up)."""

    seat: Seat
    alone: bool = False


@dataclass(frozen=True, slots=True)
class TrumpCalled(InputEvent):
    """Trump named: in the second round, or by the winner of the bidding (Bid Euchre).
    ``trump`` None is no trump, where the preset allows it."""

    seat: Seat
    trump: Suit | None
    alone: bool = False


@dataclass(frozen=True, slots=True)
class BidMade(InputEvent):
    """Bid Euchre: a bid of a number of tricks, or a shoot (12, 24, 48, ...; 004)."""

    seat: Seat
    amount: int


@dataclass(frozen=True, slots=True)
class TrumpBid(InputEvent):
    """Bid Euchre (002): a bid of a number of tricks naming its trump, a suit or no-trump
    (``trump`` None); the winning bid's trump is the hand's trump."""

    seat: Seat
    amount: int
    trump: Suit | None


@dataclass(frozen=True, slots=True)
class DealerDiscarded(InputEvent):
    """The dealer discarded after picking up; ``card`` None when it went down unseen."""

    card: Card | None = None


@dataclass(frozen=True, slots=True)
class CardsExchanged(InputEvent):
    """Shooting for 12 (004): the bidder's discard went to the partner, and the
    partner's best card to the bidder; either may be unseen (None)."""

    discard: Card | None = None
    received: Card | None = None


@dataclass(frozen=True, slots=True)
class CardPlayed(InputEvent):
    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class CardTakenBack(InputEvent):
    """A player picked a card up again before the trick was complete (000: a renege
    caught before the trick has finished may be taken back without penalty)."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class RenegeClaimed(InputEvent):
    """``by`` alleged that ``against`` reneged in the current (or just finished) hand;
    ``trick`` (1-based, optional) names the trick alleged, and the claim is then judged
    on that trick alone."""

    by: Seat
    against: Seat
    trick: int | None = None


@dataclass(frozen=True, slots=True)
class MisdealDeclared(InputEvent):
    """The deal was found faulty before play; the same dealer deals again (001 s21)."""


@dataclass(frozen=True, slots=True)
class WrongCardCount(InputEvent):
    """A seat was found holding the wrong number of cards (003)."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class AllNinesShown(InputEvent):
    """A player showed a hand with all four 9s: a misdeal (004). ``cards`` (optional) is
    the hand shown, so that a table that does not know the hands can check it."""

    seat: Seat
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class CardDropped(InputEvent):
    """A card fell out of a hand face up (003): it stays on the table, must be played at
    the first legal opportunity, and cannot take a trick."""

    seat: Seat
    card: Card


@dataclass(frozen=True, slots=True)
class PenaltyAccepted(InputEvent):
    """The non-offending side took the penalty for a bid out of turn (003) instead of
    voiding the bid and going alone."""

    seat: Seat


@dataclass(frozen=True, slots=True)
class HandLaidDown(InputEvent):
    """The player on lead laid down the rest of their hand, claiming every remaining
    trick (004 house rule); uncertain tricks go to the other side."""

    seat: Seat
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ScoreAdjusted(InputEvent):
    """A director's ruling: points given to (or, negative, taken from) a team, with the
    reason the director gave (a renege dismissed, a scoring mistake put right). The rules
    texts leave such corrections to the director; the table records them as events so a
    replay keeps them."""

    team: Team
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class HandVoided(InputEvent):
    """A director's ruling: the hand in play is void (thrown in) and the same dealer
    deals again. A hand already scored is corrected with ``ScoreAdjusted`` instead."""

    reason: str


@dataclass(frozen=True, slots=True)
class SecondCopySeen(InputEvent):
    """The camera saw a second card with ``card``'s code: two on the table at once
    (``at_once``), or one laid in ``seat``'s zone after the hand had seen the card (two
    decks mixed, or a misprinted marker). The copy is never taken into the game: the
    director is told, with its picture (rules/deck.py)."""

    card: Card
    seat: Seat | None = None
    at_once: bool = False


class Printing(Enum):
    """How a card's markers are printed: the marker family of its deck (docs/deck.md)."""

    ARUCO = "aruco"  # ArUco 4x4 squares
    QR = "qr"  # QR codes


@dataclass(frozen=True, slots=True)
class ForeignCardSeen(InputEvent):
    """The camera saw a card whose marker is none of this deck's 24 (another deck's),
    laid in ``seat``'s zone (None: no seat's); ``marker`` is the number it reads as,
    for the record; ``family`` is how that card is printed when it is not the way this
    table's deck is (a QR-coded card at a table of ArUco cards; None: printed as this
    deck is, with a number that is none of its cards'). Never taken into the game."""

    seat: Seat | None = None
    marker: int | None = None
    family: Printing | None = None


@dataclass(frozen=True, slots=True)
class KittyCardSeen(InputEvent):
    """The camera saw ``card`` turned up in the kitty while the hand is played (or the
    dealer's discard, face up, that the cards seen rule out): checked against the cards
    the hand has seen, and the seats that have not played their cards (rules/deck.py)."""

    card: Card


# Checking an event's fields: the engine's door. JSON is checked by the codec; this
# catches events built in code with a plain int for a seat or a string for a suit,
# which would otherwise be accepted and fail later.

_Check = Callable[[object], bool]


def _is_cards(v: object) -> bool:
    if not isinstance(v, tuple | list):
        return False
    for c in v:  # noqa: SIM110 - a plain loop: this runs on every deal, all() is slower
        if type(c) is not Card:
            return False
    return True


def _is_hands(v: object) -> bool:
    if not isinstance(v, Mapping):
        return False
    for seat, cards in v.items():  # noqa: SIM110 - as above
        if type(seat) is not Seat or not _is_cards(cards):
            return False
    return True


_CHECKS: dict[str, tuple[_Check, str]] = {
    "Seat": (lambda v: isinstance(v, Seat), "a Seat"),
    "Seat | None": (lambda v: v is None or isinstance(v, Seat), "a Seat or None"),
    "Card": (lambda v: isinstance(v, Card), "a Card"),
    "Card | None": (lambda v: v is None or isinstance(v, Card), "a Card or None"),
    "Suit | None": (lambda v: v is None or isinstance(v, Suit), "a Suit, or None for no trump"),
    "Printing | None": (lambda v: v is None or isinstance(v, Printing), "a Printing or None"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "int | None": (
        lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
        "a whole number or None",
    ),
    "str": (lambda v: isinstance(v, str) and bool(v.strip()), "a text, not empty"),
    "Team": (lambda v: isinstance(v, Team), "a Team"),
    "tuple[Card, ...]": (_is_cards, "a tuple of Cards"),
    "tuple[Card, ...] | None": (lambda v: v is None or _is_cards(v), "a tuple of Cards or None"),
    "Mapping[Seat, tuple[Card, ...]]": (_is_hands, "a mapping of Seat to Cards"),
}
_FIELD_CHECKS: dict[type[InputEvent], tuple[tuple[str, _Check, str], ...]] = {}


def wrong_field(event: InputEvent) -> str | None:
    """What is wrong with an event's field types, or None when they are right."""
    cls = type(event)
    checks = _FIELD_CHECKS.get(cls)
    if checks is None:
        checks = tuple((f.name, *_CHECKS[str(f.type)]) for f in dataclasses.fields(cls))
        _FIELD_CHECKS[cls] = checks
    for name, check, wanted in checks:
        value = getattr(event, name)
        if not check(value):
            return f"{cls.__name__}.{name} is {value!r}, not {wanted}"
    return None


# ---------------------------------------------------------------------------------
# Output events
# ---------------------------------------------------------------------------------


class HowChosen(Enum):
    CHOSEN = "chosen"
    FIRST_ACE = "first_ace"
    FIRST_JACK = "first_jack"
    HIGH_CUT = "high_cut"


class ThrowIn(Enum):
    """Why a deal ended without a hand being played to its end."""

    ALL_PASSED = "all_passed"
    MISDEAL = "misdeal"
    ALL_NINES = "all_nines"
    WRONG_CARD_COUNT = "wrong_card_count"
    BID_FORFEITED = "bid_forfeited"
    VOIDED = "voided"  # by the director's ruling (HandVoided)


class Irregularity(Enum):
    BID_OUT_OF_TURN = "bid_out_of_turn"
    PASS_OUT_OF_TURN = "pass_out_of_turn"
    LEAD_OUT_OF_TURN = "lead_out_of_turn"
    PLAY_OUT_OF_TURN = "play_out_of_turn"
    LEAD_BEFORE_DISCARD = "lead_before_discard"
    DEALER_DID_NOT_DISCARD = "dealer_did_not_discard"
    LONER_PARTNER_PLAYED = "loner_partner_played"
    TURNED_DOWN_SUIT_NAMED = "turned_down_suit_named"
    CARD_DROPPED = "card_dropped"
    DROPPED_CARD_NOT_PLAYED = "dropped_card_not_played"
    FALSE_RENEGE_CLAIM = "false_renege_claim"
    RENEGE_TAKEN_BACK = "renege_taken_back"
    SECOND_COPY = "second_copy"  # a card's code seen twice in a hand (two decks mixed)
    FOREIGN_CARD = "foreign_card"  # a marker that is none of this deck's
    WRONG_KITTY = "wrong_kitty"  # a card in the kitty that the hand saw elsewhere
    SHORT_HAND = "short_hand"  # the hand over at the table before a seat played its cards


class Remedy(Enum):
    """What the rules did about an irregularity."""

    CANCELLED = "cancelled"  # the act is undone, play goes on as if it had not happened
    NOTED = "noted"  # recorded for the director; no penalty in the rules
    PENALTY = "penalty"  # points awarded, see the PenaltyScored or HandScored that follows
    CARD_DEAD = "card_dead"  # the card stays on the table and cannot take a trick
    LONER_CANCELLED = "loner_cancelled"
    FORFEIT = "forfeit"  # the team lost its right to bid this hand
    AWAITING_CHOICE = "awaiting_choice"  # the other side chooses: penalty or go alone
    DIRECTOR = "director"  # nothing taken into the game; the director rules on it


class HandResult(Enum):
    MADE = "made"
    MARCH = "march"  # all the tricks
    EUCHRED = "euchred"
    RENEGE = "renege"
    PENALTY = "penalty"


@dataclass(frozen=True, slots=True)
class OutputEvent:
    """Something that follows from the rules."""


@dataclass(frozen=True, slots=True)
class FirstDealerSet(OutputEvent):
    seat: Seat
    how: HowChosen


@dataclass(frozen=True, slots=True)
class CutTied(OutputEvent):
    """High cut tied: the tied seats cut again."""

    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class HandStarted(OutputEvent):
    hand: int
    dealer: Seat
    upcard: Card | None


@dataclass(frozen=True, slots=True)
class HandThrownIn(OutputEvent):
    hand: int
    reason: ThrowIn
    next_dealer: Seat


@dataclass(frozen=True, slots=True)
class BidWon(OutputEvent):
    seat: Seat
    amount: int


@dataclass(frozen=True, slots=True)
class TrumpSet(OutputEvent):
    """Trump is made. ``trump`` None is no trump; ``bid`` is the contract in Bid Euchre."""

    trump: Suit | None
    maker: Seat
    alone: bool
    bid: int | None = None


@dataclass(frozen=True, slots=True)
class TrickWon(OutputEvent):
    hand: int
    trick: int  # 1-based
    winner: Seat
    plays: tuple[tuple[Seat, Card], ...]


@dataclass(frozen=True, slots=True)
class RenegeSpotted(OutputEvent):
    """A failure to follow suit seen while the trick is open, under rules that let the
    player take the card back before the trick is complete (000)."""

    seat: Seat
    trick: int
    suit: Suit
    held: Card


@dataclass(frozen=True, slots=True)
class RenegeProven(OutputEvent):
    """``seat`` did not follow ``suit`` in ``trick`` although it held ``proof``, as shown
    by its play in ``proof_trick`` (or by its known hand, in that same trick)."""

    hand: int
    seat: Seat
    trick: int
    suit: Suit
    played: Card
    proof: Card
    proof_trick: int


@dataclass(frozen=True, slots=True)
class IrregularityFound(OutputEvent):
    """An irregularity and what the rules did about it. Where one card is concerned,
    ``card`` names it; ``trick`` is the 1-based trick it was laid to (or, for a false
    renege claim, the trick the claim named) and ``position`` its 1-based place in that
    trick's order of play (1 is the lead)."""

    kind: Irregularity
    seat: Seat | None
    remedy: Remedy
    detail: str
    card: Card | None = None
    trick: int | None = None
    position: int | None = None


@dataclass(frozen=True, slots=True)
class ClaimJudged(OutputEvent):
    """A laid-down hand (004): how many of the remaining tricks were certain."""

    seat: Seat
    remaining: int
    certain: int


@dataclass(frozen=True, slots=True)
class PenaltyScored(OutputEvent):
    """Points given (or, when negative, taken) outside the hand's own scoring;
    ``individual`` holds the players' totals after it where the rules keep them
    (progressive, 003), as ``HandScored`` does."""

    team: Team
    points: int
    reason: Irregularity | HandResult
    scores: tuple[int, int]
    individual: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class ScoreCorrected(OutputEvent):
    """A director's ``ScoreAdjusted``, applied: the team's points and the new scores."""

    team: Team
    points: int
    reason: str
    scores: tuple[int, int]
    individual: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class HandScored(OutputEvent):
    hand: int
    maker: Seat | None
    result: HandResult
    tricks: tuple[int, int]  # won by NS, EW
    points: tuple[int, int]  # scored by NS, EW this hand
    scores: tuple[int, int]  # running totals
    individual: tuple[int, int, int, int] | None = None  # progressive: N E S W totals


@dataclass(frozen=True, slots=True)
class GameEnded(OutputEvent):
    game: int
    winner: Team | None  # None: a tie where the rules allow one (progressive)
    scores: tuple[int, int]
    individual: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class PlayoffStarted(OutputEvent):
    """Tied after the match's hands: more hands are played (001 s19)."""

    hands: int
    sudden_death: bool


@dataclass(frozen=True, slots=True)
class MatchWon(OutputEvent):
    winner: Team
    games: tuple[int, int]


INPUT_EVENTS: tuple[type[InputEvent], ...] = (
    DealerChosen,
    FaceUpCardDealt,
    CardCut,
    HandDealt,
    Passed,
    OrderedUp,
    TrumpCalled,
    BidMade,
    TrumpBid,
    DealerDiscarded,
    CardsExchanged,
    CardPlayed,
    CardTakenBack,
    RenegeClaimed,
    MisdealDeclared,
    WrongCardCount,
    AllNinesShown,
    CardDropped,
    PenaltyAccepted,
    HandLaidDown,
    ScoreAdjusted,
    HandVoided,
    SecondCopySeen,
    ForeignCardSeen,
    KittyCardSeen,
)

OUTPUT_EVENTS: tuple[type[OutputEvent], ...] = (
    FirstDealerSet,
    CutTied,
    HandStarted,
    HandThrownIn,
    BidWon,
    TrumpSet,
    TrickWon,
    RenegeSpotted,
    RenegeProven,
    IrregularityFound,
    ClaimJudged,
    PenaltyScored,
    ScoreCorrected,
    HandScored,
    GameEnded,
    PlayoffStarted,
    MatchWon,
)

__all__ = [
    "INPUT_EVENTS",
    "OUTPUT_EVENTS",
    "AllNinesShown",
    "BidMade",
    "BidWon",
    "CardCut",
    "CardDropped",
    "CardPlayed",
    "CardTakenBack",
    "CardsExchanged",
    "ClaimJudged",
    "CutTied",
    "DealerChosen",
    "DealerDiscarded",
    "FaceUpCardDealt",
    "FirstDealerSet",
    "ForeignCardSeen",
    "GameEnded",
    "HandDealt",
    "HandLaidDown",
    "HandResult",
    "HandScored",
    "HandStarted",
    "HandThrownIn",
    "HandVoided",
    "HowChosen",
    "InputEvent",
    "Irregularity",
    "IrregularityFound",
    "KittyCardSeen",
    "MatchWon",
    "MisdealDeclared",
    "OrderedUp",
    "OutputEvent",
    "Passed",
    "PenaltyAccepted",
    "PenaltyScored",
    "PlayoffStarted",
    "Printing",
    "Remedy",
    "RenegeClaimed",
    "RenegeProven",
    "RenegeSpotted",
    "ScoreAdjusted",
    "ScoreCorrected",
    "SecondCopySeen",
    "ThrowIn",
    "TrickWon",
    "TrumpBid",
    "TrumpCalled",
    "TrumpSet",
    "WrongCardCount",
    "wrong_field",
]
