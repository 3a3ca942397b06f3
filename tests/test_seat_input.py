"""From a press to the rules' event: what each button means, and the refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.cards import Card, Suit, cards
from table_controller.devices.seat_events import ButtonPressed, DirectorCalled, SeatButton
from table_controller.rules import Game, preset
from table_controller.rules.events import (
    BidMade,
    DealerChosen,
    HandDealt,
    OrderedUp,
    Passed,
    TrumpCalled,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.seat_input import PressRefused, press_to_event
from table_controller.transcript import load

N, E, S, W = Seat
PASS, CALL, ALONE, DIRECTOR = SeatButton
TRANSCRIPTS = Path(__file__).parent / "transcripts"
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}


def dealt(rules: str = "td-tournament", known: bool = False) -> Game:
    """W deals, 9H turned up; a live table sees no hands, a simulation sees them all."""
    game = Game(preset(rules))
    game.push(DealerChosen(W))
    game.push(HandDealt(Card.parse("9H"), HANDS if known else {}))
    return game


def press(seat: Seat | None, button: SeatButton) -> ButtonPressed:
    return ButtonPressed(seat, button)


def refused(game: Game, p: ButtonPressed, trump: Suit | None = None) -> PressRefused:
    before = game.state_key()
    with pytest.raises(PressRefused) as info:
        press_to_event(game, p, trump)
    assert game.state_key() == before
    assert isinstance(info.value, ValueError)
    return info.value


@pytest.mark.parametrize("known", [False, True], ids=["live table", "hands known"])
def test_first_round_pass_order_up_and_alone(known: bool) -> None:
    game = dealt(known=known)
    assert press_to_event(game, press(N, PASS)) == Passed(N)
    assert press_to_event(game, press(N, CALL)) == OrderedUp(N)
    assert press_to_event(game, press(N, ALONE)) == OrderedUp(N, alone=True)
    # The cube's face does not matter in the first round: the upcard's suit is trump.
    assert press_to_event(game, press(N, CALL), Suit.S) == OrderedUp(N)
    event = press_to_event(game, press(N, PASS))
    assert isinstance(event, Passed)
    game.push(event)
    assert game.to_act is E


@pytest.mark.parametrize("known", [False, True], ids=["live table", "hands known"])
def test_second_round_calls_name_the_cubes_suit(known: bool) -> None:
    game = dealt(known=known)
    for seat in (N, E, S, W):
        game.push(Passed(seat))
    assert press_to_event(game, press(N, CALL), Suit.S) == TrumpCalled(N, Suit.S)
    assert press_to_event(game, press(N, ALONE), Suit.D) == TrumpCalled(N, Suit.D, alone=True)
    no_suit = refused(game, press(N, CALL))
    assert no_suit.problem == "no suit is chosen"
    assert "turn the trump cube so the suit you name is on top" in no_suit.what_to_do
    turned_down = refused(game, press(N, CALL), Suit.H)
    assert str(turned_down) == (
        "hearts was turned down and cannot be named: turn the trump cube to another suit, "
        "then press again"
    )
    event = press_to_event(game, press(N, CALL), Suit.C)
    assert isinstance(event, TrumpCalled)
    game.push(event)
    assert game.trump is Suit.C and game.phase is Phase.PLAYING


def test_a_press_out_of_turn_is_refused_not_a_bid() -> None:
    game = dealt()
    error = refused(game, press(S, CALL))
    assert (
        str(error)
        == "it is North's turn, not South's: wait for your light to blink blue, then press again"
    )


def test_no_bidding_now() -> None:
    game = dealt()
    game.push(OrderedUp(N))
    error = refused(game, press(E, PASS))
    assert error.problem == "there is no bidding now"
    assert error.what_to_do == "now: West, the dealer, to discard"


def test_the_director_button_works_at_any_time() -> None:
    game = Game(preset("td-tournament"))
    assert press_to_event(game, press(None, DIRECTOR)) == DirectorCalled(None)
    game = dealt()
    assert press_to_event(game, press(E, DIRECTOR)) == DirectorCalled(E)


def test_a_stuck_dealer_cannot_pass() -> None:
    game = dealt("td-tournament")  # stick the dealer
    for seat in (N, E, S, W, N, E, S):
        game.push(Passed(seat))
    error = refused(game, press(W, PASS))
    assert error.problem == "the dealer is stuck and cannot pass"
    assert press_to_event(game, press(W, CALL), Suit.S) == TrumpCalled(W, Suit.S)


def test_the_rules_have_the_last_word() -> None:
    # A rule the buttons know nothing of (004's variation: passed round to the dealer,
    # the dealer must bid): the engine is asked, on a copy, and its reason passed on.
    game = Game(preset("family-bid-euchre", {"dealer_min_bid": 3}))
    game.push(DealerChosen(N))
    game.push(HandDealt(None, {}))
    for seat in (E, S, W):
        game.push(Passed(seat))
    error = refused(game, press(N, PASS))
    assert error.problem == "everyone else passed: the dealer must bid"
    assert error.what_to_do == "a bid of 3 or more"


def test_after_a_bid_out_of_turn_the_other_side_may_go_alone() -> None:
    game = dealt("td-tournament")
    game.push(OrderedUp(S))  # S bids out of turn (N was to bid): E-W choose
    assert game.phase is Phase.CHOOSING_REMEDY
    assert press_to_event(game, press(E, ALONE)) == OrderedUp(E, alone=True)
    assert "press alone to void the bid" in refused(game, press(E, CALL)).what_to_do
    assert refused(game, press(N, ALONE)).what_to_do == "wait for their choice"
    event = press_to_event(game, press(W, ALONE))
    assert isinstance(event, OrderedUp)
    game.push(event)
    assert game.hand is not None and game.hand.maker is W and game.hand.alone


def test_bid_euchre_numbers_go_through_the_director() -> None:
    game = Game(preset("family-bid-euchre"))
    game.push(DealerChosen(N))
    game.push(HandDealt(None, {}))
    assert press_to_event(game, press(E, PASS)) == Passed(E)
    error = refused(game, press(E, CALL))
    assert "tell the director your bid" in error.what_to_do
    game.push(BidMade(E, 3))
    for seat in (S, W, N):
        game.push(Passed(seat))
    assert game.phase is Phase.NAMING_TRUMP
    assert press_to_event(game, press(E, CALL), Suit.S) == TrumpCalled(E, Suit.S)
    assert "turn the trump cube to your suit" in refused(game, press(E, CALL)).what_to_do
    assert refused(game, press(E, ALONE)).problem == "you won the bid and now name trump"


def test_game_over() -> None:
    transcript = load(TRANSCRIPTS / "003_game_to_10.jsonl")
    game = Game(transcript.rules())
    for step in transcript.steps:
        if step.expect_error is None:
            game.push(step.event)
    assert game.phase is Phase.OVER
    assert refused(game, press(N, PASS)).problem == "the game is over"
    assert press_to_event(game, press(None, DIRECTOR)) == DirectorCalled(None)
