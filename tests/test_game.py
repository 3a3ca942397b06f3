"""The engine's contract, told as short games."""

from __future__ import annotations

import random

import pytest

from table_controller.cards import Card, Suit, cards
from table_controller.rules import Game, Phase, RulesError, preset
from table_controller.rules.errors import GameOver, ImpossibleCard, NotYourTurn, WrongPhase
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    GameEnded,
    HandDealt,
    HandScored,
    OrderedUp,
    Passed,
    PenaltyAccepted,
    RenegeProven,
    TrickWon,
    TrumpCalled,
    TrumpSet,
)
from table_controller.rules.presets import Rules
from table_controller.seats import Seat
from table_controller.simulate import play

N, E, S, W = Seat
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}


def dealt(rules: Rules | None = None, upcard: str = "9H", known: bool = True) -> Game:
    game = Game(rules or preset("td-tournament"))
    game.push(DealerChosen(W))
    game.push(HandDealt(Card.parse(upcard), HANDS if known else {}))
    return game


def test_a_hand_from_deal_to_score() -> None:
    game = dealt()
    assert game.to_act == N and game.expecting() == "N to pass or order up"
    out = game.push(OrderedUp(N))
    assert out == [TrumpSet(Suit.H, N, False, None)]
    assert game.phase is Phase.DISCARDING and game.to_act == W
    game.push(DealerDiscarded(Card.parse("9D")))
    assert game.to_act == N  # eldest hand leads
    events = []
    while game.phase is Phase.PLAYING:
        seat = game.to_act
        assert seat is not None
        events += game.push(CardPlayed(seat, game.legal_plays()[-1]))
    tricks = [e for e in events if isinstance(e, TrickWon)]
    scored = [e for e in events if isinstance(e, HandScored)]
    assert len(tricks) == 5 and len(scored) == 1
    assert sum(scored[0].tricks) == 5
    assert game.phase is Phase.DEALING and game.dealer == N


def test_errors_say_what_was_expected_and_change_nothing() -> None:
    game = dealt()
    before = game.state_key()
    with pytest.raises(WrongPhase) as info:
        game.push(CardPlayed(N, Card.parse("JH")))
    assert isinstance(info.value, ValueError)
    assert info.value.expected == "N to pass or order up"
    with pytest.raises(RulesError, match="no-trump"):
        for seat in (N, E, S, W):
            game.push(Passed(seat))
        game.push(TrumpCalled(N, None))
    game = dealt()
    with pytest.raises(ImpossibleCard, match="N's hand has no AS"):
        game.push(OrderedUp(N))
        game.push(DealerDiscarded(Card.parse("9D")))
        game.push(CardPlayed(N, Card.parse("AS")))
    assert dealt().state_key() == before


def live_lead(card: str = "JH") -> Game:
    """A live table (hands unknown): N orders up, the dealer discards unseen, N leads."""
    game = dealt(known=False)
    game.push(OrderedUp(N))
    game.push(DealerDiscarded())
    game.push(CardPlayed(N, Card.parse(card)))
    return game


def test_a_seat_cannot_play_twice_to_a_trick() -> None:
    game = live_lead()
    with pytest.raises(NotYourTurn, match="already played"):
        game.push(CardPlayed(N, Card.parse("AH")))


def test_the_same_card_seen_twice_is_refused_with_where_it_was() -> None:
    game = live_lead()
    with pytest.raises(ImpossibleCard, match="JH was already played by N in trick 1"):
        game.push(CardPlayed(E, Card.parse("JH")))
    # The upcard is in the dealer's hand: nobody else can play it.
    with pytest.raises(ImpossibleCard, match="9H was already picked up by W"):
        game.push(CardPlayed(E, Card.parse("9H")))


def test_a_renege_is_proven_at_once_when_the_hand_is_known() -> None:
    game = dealt()
    game.push(OrderedUp(N))
    game.push(DealerDiscarded(Card.parse("9D")))
    game.push(CardPlayed(N, Card.parse("QS")))  # spades led
    out = game.push(CardPlayed(E, Card.parse("KH")))  # E holds 9S
    assert RenegeProven(1, E, 1, Suit.S, Card.parse("KH"), Card.parse("9S"), 1) in out
    # 003 RENEGE: the hand is over and the non-offending team scores two points.
    scored = [o for o in out if isinstance(o, HandScored)]
    assert scored and scored[0].points == (2, 0)


def test_a_loner_s_partner_sits_out_and_the_lead_skips_them() -> None:
    # The dealer is W; N orders up alone, so S sits out.
    game = dealt(preset("nmu-tournament"))
    game.push(OrderedUp(N, alone=True))
    game.push(DealerDiscarded(Card.parse("9D")))
    assert game.to_act == N
    game.push(CardPlayed(N, Card.parse("JH")))
    assert game.to_act == E
    game.push(CardPlayed(E, Card.parse("JD")))
    assert game.to_act == W
    with pytest.raises(NotYourTurn, match="S sits out"):
        game.push(CardPlayed(S, Card.parse("QH")))
    out = game.push(CardPlayed(W, Card.parse("TH")))
    assert next(o for o in out if isinstance(o, TrickWon)).plays == (
        (N, Card.parse("JH")),
        (E, Card.parse("JD")),
        (W, Card.parse("TH")),
    )


def test_replay_pop_and_copy() -> None:
    game = Game(preset("td-tournament"))
    log = [event for event, _ in play(preset("td-tournament"), random.Random(3))]
    for event in log[:80]:
        game.push(event)
    key = game.state_key()
    assert Game.replay(game.rules, game.log).state_key() == key
    copy = game.copy()
    last = game.pop()
    assert last == log[79] and game.state_key() != key
    game.push(last)
    assert game.state_key() == key == copy.state_key()


def test_an_engine_bug_never_wedges_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    game = dealt()
    before = game.state_key()

    def broken(self: Game, ev: object, out: list[object]) -> None:
        self.scores[0] = 99  # half done...
        raise KeyError("boom")

    from table_controller.rules import game as engine

    monkeypatch.setitem(engine._HANDLERS, OrderedUp, broken)
    with pytest.raises(RulesError, match="internal error.*not applied"):
        game.push(OrderedUp(N))
    assert game.state_key() == before
    monkeypatch.undo()
    game.push(OrderedUp(N))  # and it plays on


def test_nothing_is_accepted_after_the_game() -> None:
    for event, outputs in play(preset("td-tournament"), random.Random(5)):
        last = (event, outputs)
    assert any(isinstance(o, GameEnded) for o in last[1])
    game = Game.replay(
        preset("td-tournament"), [e for e, _ in play(preset("td-tournament"), random.Random(5))]
    )
    with pytest.raises(GameOver, match="won"):
        game.push(HandDealt(Card.parse("9H")))


def test_legal_events_need_known_cards() -> None:
    assert dealt(known=False).legal_events() == []
    options = dealt().legal_events()
    assert options == [Passed(N), OrderedUp(N, False), OrderedUp(N, True)]
    with pytest.raises(RulesError, match="not known"):
        game = dealt(known=False)
        game.push(OrderedUp(N))
        game.push(DealerDiscarded())
        game.legal_plays()


@pytest.mark.parametrize("second_round", [False, True])
def test_after_a_bid_out_of_turn_the_choices_include_voiding_it_alone(second_round: bool) -> None:
    """003 IRREGULARITIES: "The non-offending team may void the out of turn bid and be
    allowed to call alone ... but do so at their own risk as standard scoring will apply."
    So ``legal_events`` (what a bot or the touchscreen offers) lists, for the other side,
    taking the points and calling alone; and every one of them is accepted."""
    game = Game(preset("td-tournament"))
    game.push(DealerChosen(Seat.N))
    game.push(HandDealt(Card.parse("9H"), {}))  # E, S, W, N to bid
    if second_round:
        for seat in (Seat.E, Seat.S, Seat.W, Seat.N):
            game.push(Passed(seat))
        game.push(TrumpCalled(Seat.W, Suit.S))  # E's turn: W out of turn
    else:
        game.push(OrderedUp(Seat.S))  # E's turn: S out of turn
    assert game.phase is Phase.CHOOSING_REMEDY
    choices = game.legal_events()
    seats = {Seat.N, Seat.S} if second_round else {Seat.E, Seat.W}
    assert {e.seat for e in choices if isinstance(e, PenaltyAccepted)} == seats
    calls = [e for e in choices if isinstance(e, OrderedUp | TrumpCalled)]
    assert calls and all(e.alone and e.seat in seats for e in calls)
    if second_round:
        assert {e.trump for e in calls if isinstance(e, TrumpCalled)} == {Suit.C, Suit.D, Suit.S}
    for event in choices:
        trial = game.copy()
        trial.push(event)
        assert trial.phase is not Phase.CHOOSING_REMEDY


_DIGEST_SCRIPT = """
import random, sys
from table_controller.rules import Game, preset
from table_controller.simulate import play
rules = preset("td-tournament")
events = [e for _, (e, _o) in zip(range(60), play(rules, random.Random(5)))]
print(Game.replay(rules, events).state_digest())
"""


def test_the_state_digest_is_the_same_in_every_process() -> None:
    """A restarted table proves it resumed where its log says (tests/test_table_crash.py)
    by printing this digest; Python's hash order differs between processes, the digest
    must not."""
    import os
    import subprocess
    import sys

    digests = {
        subprocess.run(
            [sys.executable, "-c", _DIGEST_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in (1, 2, 3)
    }
    assert len(digests) == 1
    rules = preset("td-tournament")
    events = [e for _, (e, _o) in zip(range(60), play(rules, random.Random(5)), strict=False)]
    game = Game.replay(rules, events)
    assert digests == {game.state_digest()}
    game.pop()
    assert game.state_digest() not in digests
