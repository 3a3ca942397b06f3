"""What the table's sensors mean to the rules, phase by phase (pure).

The camera reports cards laid, moved and removed in zones; the seat buttons report
presses; the page posts the action a player tapped. None of these is a rules event by
itself: a card laid in North's play zone is a card dealt face up while the first dealer
is being found, a cut under high-cut rules, and a card played once play has begun. This
module says which, from the game's phase, and nothing else: it keeps no state and does
no IO, so a replay or a test gets the same answer as the live table.

Something that cannot mean anything now (a card laid in a play zone during the bidding,
a press out of turn) is never dropped in silence: it raises ``InputRefused`` with the seat
and what to do, and the table shows it on the page and the seat's light.
"""

from __future__ import annotations

import dataclasses

from table_controller.cards import Suit
from table_controller.devices.seat_events import ButtonPressed, DirectorCalled, SeatButton
from table_controller.present import SEAT_NAMES, waiting_for
from table_controller.rules.codec import INPUT_BY_NAME, CodecError, decode_input
from table_controller.rules.events import (
    CardCut,
    CardPlayed,
    DealerDiscarded,
    FaceUpCardDealt,
    ForeignCardSeen,
    HandDealt,
    InputEvent,
    KittyCardSeen,
    RenegeClaimed,
    SecondCopySeen,
)
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.rules.presets import FirstDealer, Variant
from table_controller.seats import Seat
from table_controller.table.noticed import PagePayload
from table_controller.table.seat_input import PressRefused, press_to_event
from table_controller.vision.foreign import ForeignCardLaid
from table_controller.vision.tracker import (
    CardLaid,
    CardMoved,
    CardRemoved,
    CardSeenTwice,
    TrackerEvent,
)
from table_controller.web.roles import page_refusal


class InputRefused(PressRefused):
    """An input the table does not pass on to the rules: ``problem`` and ``what_to_do``
    in words for the players, and the seat it came from (None: the table as a whole)."""

    def __init__(self, problem: str, what_to_do: str, seat: Seat | None = None) -> None:
        super().__init__(problem, what_to_do)
        self.seat = seat


def zone_seat(zone: str, kind: str = "play") -> Seat | None:
    """The seat of a zone named ``kind:SEAT`` ("play:N"), or None for another zone."""
    head, sep, tail = zone.partition(":")
    if head != kind or not sep:
        return None
    try:
        return Seat.parse(tail)
    except ValueError:
        return None


# --- the camera ------------------------------------------------------------------------


def from_vision(game: Game, event: TrackerEvent | ForeignCardLaid) -> InputEvent | None:
    """The rules event a camera event is, now; None when it is none (a card picked up, a
    trick gathered into a tricks zone). Raises ``InputRefused`` for a card laid in a play
    zone when no card is played.

    What the deck's integrity needs (rules/deck.py) comes as its own events, never as a
    card taken into the game: the same code in two places at once or laid a second time
    in a hand (``SecondCopySeen``), a marker that is none of this deck's
    (``ForeignCardSeen``), a card turned up in the kitty while the hand is played
    (``KittyCardSeen``; the dealer's discard laid face up is that discard)."""
    if isinstance(event, CardSeenTwice):
        seats = [zone_seat(z or "") for z, _, _ in event.places]
        seat = next((s for s in seats if s is not None), None)
        return SecondCopySeen(event.card, seat, at_once=True)
    if isinstance(event, ForeignCardLaid):
        if game.phase is Phase.OVER:
            return None
        return ForeignCardSeen(_any_seat(event.zone), event.marker, event.family)
    if isinstance(event, CardRemoved):
        return None
    zone = event.zone
    card = event.card
    if zone == "kitty":
        return _kitty(game, event)
    seat = zone_seat(zone)
    if seat is None:
        return None  # a tricks zone: a trick gathered, or a card turned over there
    phase = game.phase
    # A card newly laid (not one moved from another zone: a trick pushed to its winner)
    # whose code the hand has seen is a second copy.
    if isinstance(event, CardLaid) and game.second_copy_of(seat, card) is not None:
        return SecondCopySeen(card, seat)
    if phase is Phase.CHOOSING_DEALER:
        how = game.rules.first_dealer
        if how in (FirstDealer.FIRST_ACE, FirstDealer.FIRST_JACK):
            return FaceUpCardDealt(seat, card)
        if how is FirstDealer.HIGH_CUT:
            return CardCut(seat, card)
        raise InputRefused(
            f"the {card.pretty} laid in {SEAT_NAMES[seat]}'s play zone, but these rules choose "
            "the first dealer by agreement, not by the cards",
            "pick the card up and choose the first dealer on the table's screen (or ask "
            "the director)",
            seat,
        )
    if phase in (Phase.PLAYING, Phase.DISCARDING):
        # Before the discard it is a lead too early: the rules say what follows (003).
        return CardPlayed(seat, card)
    if phase is Phase.OVER:
        raise InputRefused(
            f"the {card.pretty} laid in {SEAT_NAMES[seat]}'s play zone, but the game is over",
            "pick it up: the director starts the next game",
            seat,
        )
    raise InputRefused(
        f"the {card.pretty} laid in {SEAT_NAMES[seat]}'s play zone, but no card is played now",
        f"pick it up; now: {waiting_for(game, {})}",
        seat,
    )


def _any_seat(zone: str | None) -> Seat | None:
    """The seat of a play or tricks zone (None: the kitty, or no zone)."""
    if zone is None:
        return None
    seat = zone_seat(zone)
    return seat if seat is not None else zone_seat(zone, "tricks")


def _kitty(game: Game, event: CardLaid | CardMoved) -> InputEvent | None:
    """The turned-up card: the deal is done (the hands stay unknown, as at a live
    table). While the hand is played, a card turned up there is checked against the
    cards seen: the dealer's discard, laid face up, is that discard."""
    hand = game.hand
    if isinstance(event, CardMoved):
        pass  # a card pushed there from another zone: no card newly turned up
    elif hand is not None and (game.phase is Phase.DISCARDING or hand.discard_pending):
        if game.second_copy_of(hand.dealer, event.card) is None:
            return DealerDiscarded(event.card)
        return KittyCardSeen(event.card)
    elif game.phase is Phase.PLAYING:
        return KittyCardSeen(event.card)
    if game.phase is not Phase.DEALING:
        return None
    if game.rules.variant is not Variant.EUCHRE:
        raise InputRefused(
            f"{event.card} turned up in the kitty, but Bid Euchre deals every card",
            "pick it up and deal it; tell the director when the deal is done",
        )
    return HandDealt(upcard=event.card)


# --- the seat buttons -----------------------------------------------------------------


def from_press(
    game: Game, press: ButtonPressed, cube_suit: Suit | None
) -> InputEvent | DirectorCalled:
    """What a press means now. ``cube_suit`` is the suit the trump cube shows (for a
    call in the second round). The dealer's pass button while discarding says "I have
    discarded" (face down: the card is not seen). Raises ``InputRefused``."""
    if press.button is SeatButton.DIRECTOR:
        return DirectorCalled(press.seat)
    seat = press.seat
    hand = game.hand
    discarding = hand is not None and (
        game.phase is Phase.DISCARDING or (game.phase is Phase.PLAYING and hand.discard_pending)
    )
    if discarding and seat is not None:
        assert hand is not None
        return _discarded(game, seat, hand.dealer, press.button)
    try:
        return press_to_event(game, press, cube_suit)
    except PressRefused as exc:
        raise InputRefused(exc.problem, exc.what_to_do, seat) from exc


def _discarded(game: Game, seat: Seat, dealer: Seat, button: SeatButton) -> InputEvent:
    if seat != dealer:
        if game.phase is Phase.PLAYING:
            raise InputRefused(
                f"{SEAT_NAMES[dealer]} (the dealer) has still to discard; play goes on with cards",
                "lay your card in your play zone when it is your turn",
                seat,
            )
        raise InputRefused(
            f"{SEAT_NAMES[dealer]} (the dealer) is discarding, not {SEAT_NAMES[seat]}",
            "wait for the dealer to discard",
            seat,
        )
    if button is not SeatButton.PASS:
        raise InputRefused(
            f"{SEAT_NAMES[dealer]} is the dealer and discards now",
            "take the turned-up card, lay one card face down, then press pass",
            seat,
        )
    event = DealerDiscarded(None)
    _check(game, event, seat)
    return event


# --- the page -------------------------------------------------------------------------


def from_page(
    game: Game, payload: PagePayload, *, operator: bool = False, operator_pin: bool = False
) -> InputEvent:
    """The event a player tapped on the page: one of the snapshot's actions (an encoded
    event, with the acting ``seat``), or a renege claimed by the claiming seat; with
    ``operator`` (the operator's PIN was given) the director's events too (roles.py).
    Raises ``InputRefused`` for one the page may not enter, the table cannot read, or the
    rules would not take now."""
    why = page_refusal(payload.get("event"), operator=operator, operator_pin=operator_pin)
    if why is not None:
        raise InputRefused(*why)
    doc = dict(payload)
    # "seat" is the seat that tapped; it is also a field of most events.
    seat_text = doc.get("seat") if _has_field(doc, "seat") else doc.pop("seat", None)
    seat: Seat | None = None
    if isinstance(seat_text, str):
        try:
            seat = Seat.parse(seat_text)
        except ValueError:
            seat = None
    try:
        event = decode_input(doc)
    except (CodecError, ValueError) as exc:
        raise InputRefused(
            f"the table cannot read what the page sent ({exc})",
            "reload the page and tap again",
            seat,
        ) from exc
    own = getattr(event, "seat", None)
    if isinstance(event, RenegeClaimed) and not operator:
        if seat != event.by:  # a claim is the claiming seat's own, made at the table
            raise InputRefused(
                f"a renege claim by {SEAT_NAMES[event.by]} must come from "
                f"{SEAT_NAMES[event.by]}'s seat",
                f"{SEAT_NAMES[event.by]} claims it on the table's page, or calls the director",
                seat,
            )
        own = event.by
    if seat is not None and isinstance(own, Seat) and own != seat:
        raise InputRefused(
            f"a choice for {SEAT_NAMES[own]} was tapped as {SEAT_NAMES[seat]}'s",
            "reload the page and tap again",
            seat,
        )
    _check(game, event, own if isinstance(own, Seat) else seat)
    return event


def _has_field(doc: PagePayload, name: str) -> bool:
    """Whether the event ``doc`` names has the field ``name``."""
    kind = doc.get("event")
    cls = INPUT_BY_NAME.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return False
    return any(f.name == name for f in dataclasses.fields(cls))


def _check(game: Game, event: InputEvent, seat: Seat | None) -> None:
    """The rules' answer before the event goes anywhere, with their reason for a no."""
    refused = game.refusal(event)
    if refused is not None:
        fix = refused.expected or "ask the director"
        if fix == game.expecting():  # the engine's line: for people, in words
            fix = "now: " + waiting_for(game, {})
        raise InputRefused(refused.message, fix, seat) from refused


__all__ = ["InputRefused", "from_page", "from_press", "from_vision", "zone_seat"]
