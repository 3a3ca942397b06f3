"""From a button press to the rules' input event (pure).

``press_to_event(game, press, trump)`` says what a press means now: pass -> ``Passed``;
call -> ``OrderedUp`` in the first round of bidding, ``TrumpCalled`` in the second;
alone -> the same, alone; the director button -> ``DirectorCalled``. A press that the
rules would not take (out of turn, no bidding now, a call with no suit chosen) raises
``PressRefused`` with what the player should do instead, and no event reaches the
rules: at a table, a button pressed out of turn is a slip of the hand, not a bid.

A call in the second round names a suit; it comes from the trump cube's face (the
``trump`` argument). Numbered bids (Bid Euchre) cannot be made with three buttons:
the pass button passes, and bids go through the director.

It lives with the table, not the devices: the buttons report which button went down
(devices/seat_events.py), the table knows what that means in the game.
"""

from __future__ import annotations

from table_controller.cards import Suit
from table_controller.devices.seat_events import ButtonPressed, DirectorCalled, SeatButton
from table_controller.errors import TableControllerError
from table_controller.present import SEAT_NAMES, waiting_for
from table_controller.rules.events import InputEvent, OrderedUp, Passed, TrumpCalled
from table_controller.rules.game import Game
from table_controller.rules.hand import HandState, Phase
from table_controller.rules.presets import Variant
from table_controller.seats import Seat


class PressRefused(TableControllerError, ValueError):
    """A press the table does not pass on to the rules; ``what_to_do`` is for the
    player (the table's screen, the dashboard)."""

    def __init__(self, problem: str, what_to_do: str) -> None:
        self.problem = problem
        self.what_to_do = what_to_do
        super().__init__(f"{problem}: {what_to_do}")


def press_to_event(
    game: Game, press: ButtonPressed, trump: Suit | None = None
) -> InputEvent | DirectorCalled:
    """What ``press`` means in ``game``; ``trump`` is the suit the trump cube shows,
    needed to call in the second round (and to name trump in Bid Euchre)."""
    if press.button is SeatButton.DIRECTOR:
        return DirectorCalled(press.seat)
    seat = press.seat
    if seat is None:
        raise PressRefused(
            f"a {press.button.words} with no seat", "wire each seat's buttons to its own pins"
        )
    event = _meaning(game, seat, press.button, trump)
    _check(game, event)
    return event


def _words(seat: Seat | None) -> str:
    return "nobody" if seat is None else SEAT_NAMES[seat]


def _meaning(game: Game, seat: Seat, button: SeatButton, trump: Suit | None) -> InputEvent:
    phase, hand = game.phase, game.hand
    if phase is Phase.OVER:
        raise PressRefused("the game is over", "the director starts the next one")
    if hand is None or phase not in (Phase.BIDDING, Phase.CHOOSING_REMEDY, Phase.NAMING_TRUMP):
        raise PressRefused("there is no bidding now", f"now: {waiting_for(game, {})}")
    if phase is Phase.CHOOSING_REMEDY:
        return _remedy(hand, seat, button, trump)
    if seat != hand.turn:
        raise PressRefused(
            f"it is {_words(hand.turn)}'s turn, not {SEAT_NAMES[seat]}'s",
            "wait for your light to blink blue, then press again",
        )
    if phase is Phase.NAMING_TRUMP:
        return _name_trump(seat, button, trump)
    if game.rules.variant is Variant.BID_EUCHRE:
        if button is SeatButton.PASS:
            return Passed(seat)
        raise PressRefused(
            "a Bid Euchre bid is a number of tricks, which the buttons cannot say",
            "tell the director your bid, or press pass",
        )
    if button is SeatButton.PASS:
        if hand.round == 2 and seat == hand.dealer and game.rules.stick_the_dealer:
            raise PressRefused(
                "the dealer is stuck and cannot pass",
                "turn the trump cube to the suit you name, then press call (or alone)",
            )
        return Passed(seat)
    alone = button is SeatButton.ALONE
    if hand.round == 1:
        return OrderedUp(seat, alone)
    return TrumpCalled(seat, _second_round_suit(hand, trump), alone)


def _second_round_suit(hand: HandState, trump: Suit | None) -> Suit:
    if trump is None:
        raise PressRefused(
            "no suit is chosen",
            "turn the trump cube so the suit you name is on top, then press again",
        )
    if hand.upcard is not None and trump == hand.upcard.suit:
        raise PressRefused(
            f"{trump.word} was turned down and cannot be named",
            "turn the trump cube to another suit, then press again",
        )
    return trump


def _remedy(hand: HandState, seat: Seat, button: SeatButton, trump: Suit | None) -> InputEvent:
    """003, a bid out of turn: the other side may void it and go alone."""
    offender = hand.offender
    assert offender is not None
    a, b = offender.team.other.seats
    if seat.team == offender.team:
        raise PressRefused(
            f"{offender} bid out of turn and {a}-{b} are choosing the remedy",
            "wait for their choice",
        )
    if button is not SeatButton.ALONE:
        raise PressRefused(
            f"{offender} bid out of turn",
            "press alone to void the bid and play alone, or tell the director you take "
            "the penalty points",
        )
    if hand.round == 1:
        return OrderedUp(seat, True)
    return TrumpCalled(seat, _second_round_suit(hand, trump), True)


def _name_trump(seat: Seat, button: SeatButton, trump: Suit | None) -> InputEvent:
    """Bid Euchre: the winner of the bidding names trump (no-trump goes through the
    director: the cube has no face for it)."""
    if button is not SeatButton.CALL:
        raise PressRefused(
            "you won the bid and now name trump",
            "turn the trump cube to your suit and press call",
        )
    if trump is None:
        raise PressRefused(
            "no suit is chosen", "turn the trump cube to your suit, then press call again"
        )
    return TrumpCalled(seat, trump)


def _check(game: Game, event: InputEvent) -> None:
    """The rules' answer to the press (``Game.refusal``), with their reason for a no."""
    refused = game.refusal(event)
    if refused is not None:
        raise PressRefused(refused.message, refused.expected or "ask the director") from refused


__all__ = ["PressRefused", "press_to_event"]
