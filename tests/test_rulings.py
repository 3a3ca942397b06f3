"""The director's rulings as events (issue 6): 003 IRREGULARITIES AND PENALTIES, "DO NOT
make your own Rulings! Please call the Tournament Director (TD)". A ruling that changes
the game reaches the rules as an input event, so a replay of the log keeps it."""

from __future__ import annotations

import pytest

from table_controller.cards import Card, Suit
from table_controller.rules import Game, Phase, RulesError, preset
from table_controller.rules.codec import decode_input, encode
from table_controller.rules.events import (
    DealerChosen,
    GameEnded,
    HandDealt,
    HandThrownIn,
    HandVoided,
    OrderedUp,
    Passed,
    ScoreAdjusted,
    ScoreCorrected,
    ThrowIn,
    TrumpCalled,
)
from table_controller.seats import Seat, Team


def dealt(name: str = "td-tournament") -> Game:
    game = Game(preset(name))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt(Card.parse("9H"), {}))
    return game


def test_a_score_adjusted_mid_hand_changes_the_score_and_nothing_else() -> None:
    game = dealt()
    out = game.push(ScoreAdjusted(Team.EW, 2, "false renege claim by N-S, 003"))
    assert out == [ScoreCorrected(Team.EW, 2, "false renege claim by N-S, 003", (0, 2))]
    assert game.phase is Phase.BIDDING and game.team_scores() == (0, 2)
    game.push(Passed(Seat.E))  # the hand goes on


def test_points_can_be_taken_back_a_renege_dismissed() -> None:
    game = dealt()
    game.push(ScoreAdjusted(Team.NS, 2, "renege penalty"))
    game.push(ScoreAdjusted(Team.NS, -2, "renege dismissed on review"))
    assert game.team_scores() == (0, 0)


def test_a_correction_between_hands_can_decide_the_game() -> None:
    """003: "The first team reaching a score of 10 points wins the round (game)"."""
    game = dealt()
    for seat in (Seat.E, Seat.S, Seat.W, Seat.N):
        game.push(Passed(seat))
    for seat in (Seat.E, Seat.S, Seat.W):
        game.push(Passed(seat))
    game.push(TrumpCalled(Seat.N, Suit.S))  # stuck dealer calls; then void the hand
    out = game.push(HandVoided("cards found marked: redeal"))
    assert out == [HandThrownIn(1, ThrowIn.VOIDED, Seat.N)]
    assert game.phase is Phase.DEALING and game.dealer is Seat.N  # the same dealer
    out = game.push(ScoreAdjusted(Team.NS, 10, "scores carried from the paper sheet"))
    assert isinstance(out[-1], GameEnded) and out[-1].winner is Team.NS
    assert game.phase is Phase.OVER


def test_a_hand_is_voided_only_while_it_is_in_play() -> None:
    game = dealt()
    game.push(OrderedUp(Seat.E))
    game.push(HandVoided("misdeal found late"))
    with pytest.raises(RulesError, match="does not fit now"):
        game.push(HandVoided("again"))  # between hands: correct the score instead


def test_no_correction_before_the_first_hand() -> None:
    game = Game(preset("td-tournament"))
    with pytest.raises(RulesError, match="no hand has been played yet"):
        game.push(ScoreAdjusted(Team.NS, 1, "early"))


def test_progressive_corrections_reach_both_players_of_the_team() -> None:
    game = dealt("td-progressive")
    out = game.push(ScoreAdjusted(Team.EW, 4, "loner points missed"))
    assert isinstance(out[0], ScoreCorrected) and out[0].individual == (0, 4, 0, 4)


def test_rulings_round_trip_through_the_codec_and_refuse_a_bad_team_or_empty_reason() -> None:
    for event in (ScoreAdjusted(Team.NS, -2, "dismissed"), HandVoided("marked cards")):
        assert decode_input(encode(event)) == event
    with pytest.raises(ValueError, match="NS or EW"):
        decode_input({"event": "score_adjusted", "team": "N", "points": 1, "reason": "x"})
    with pytest.raises(ValueError, match="write a few words"):
        decode_input({"event": "hand_voided", "reason": " "})
    with pytest.raises(RulesError, match="not empty"):
        dealt().push(HandVoided(""))  # built in code: the engine checks it too
    game = dealt()
    assert Game.replay(game.rules, [*game.log, ScoreAdjusted(Team.EW, 3, "x")]).team_scores() == (
        0,
        3,
    )
