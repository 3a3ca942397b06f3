"""Replaying a log that holds events the rules refuse: one policy, said once (rules/replay.py)."""

from __future__ import annotations

import pytest

from table_controller.cards import Card, cards
from table_controller.rules import Game, Phase, preset
from table_controller.rules import game as game_module
from table_controller.rules.choices import BY_PHASE
from table_controller.rules.codec import encode
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    InputEvent,
    OrderedUp,
    TrumpSet,
)
from table_controller.rules.replay import OnError, Problem, replay, unbroken
from table_controller.seats import Seat

N, E, S, W = Seat
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}
RULES = preset("td-tournament")
# N orders up hearts, W discards, N leads the right bower.
GOOD: list[InputEvent] = [
    DealerChosen(W),
    HandDealt(Card.parse("9H"), HANDS),
    OrderedUp(N),
    DealerDiscarded(Card.parse("9D")),
    CardPlayed(N, Card.parse("JH")),
]
EARLY_CARD = CardPlayed(N, Card.parse("AH"))  # before the deal: the rules refuse it


def with_bad() -> list[InputEvent]:
    """The good events with a card played before the deal, at index 1."""
    return [GOOD[0], EARLY_CARD, *GOOD[1:]]


def test_a_clean_log_replays_like_the_game() -> None:
    done = replay(RULES, GOOD)
    assert done.problems == [] and done.stopped_at is None
    assert done.applied == [0, 1, 2, 3, 4]
    assert done.game.log == GOOD
    direct = Game(RULES)
    assert [s.outputs for s in done.steps] == [direct.push(e) for e in GOOD]
    assert [s.event for s in done.steps] == GOOD
    assert done.outputs == [o for s in done.steps for o in s.outputs]
    assert TrumpSet(Card.parse("9H").suit, N, False, None) in done.outputs


def test_skip_leaves_a_refused_event_out_and_says_which_and_why() -> None:
    done = replay(RULES, with_bad(), on_error=OnError.SKIP)
    assert done.problems == [
        Problem(1, EARLY_CARD, "card_played does not fit now", "the deal by W (hand_dealt)")
    ]
    assert (
        done.problems[0].text == "card_played does not fit now; expected the deal by W (hand_dealt)"
    )
    assert done.applied == [0, 2, 3, 4, 5]
    assert done.stopped_at is None
    assert done.game.log == GOOD  # as if the bad event had never been logged
    assert done.game.phase is Phase.PLAYING


def test_stop_applies_nothing_after_a_refused_event() -> None:
    done = replay(RULES, with_bad(), on_error=OnError.STOP)
    assert [p.index for p in done.problems] == [1]
    assert done.stopped_at == 1
    assert done.applied == [0]
    assert done.game.log == GOOD[:1]
    assert done.game.phase is Phase.DEALING


def test_skip_is_the_default() -> None:
    assert replay(RULES, with_bad()).on_error is OnError.SKIP


def test_every_refused_event_is_reported_when_skipping() -> None:
    events = [EARLY_CARD, GOOD[0], EARLY_CARD, *GOOD[1:], GOOD[0]]
    done = replay(RULES, events)
    assert [p.index for p in done.problems] == [0, 2, 7]
    assert done.game.log == GOOD


def test_json_objects_are_decoded_and_one_that_is_not_an_event_is_a_problem() -> None:
    objs = [encode(e) for e in GOOD]
    objs.insert(2, {"event": "card_played", "seat": "X", "card": "JH"})
    done = replay(RULES, objs)
    assert done.game.log == GOOD
    (problem,) = done.problems
    assert problem.index == 2 and problem.event is None
    assert "unknown seat" in problem.message and problem.expected == ""
    assert problem.text == problem.message

    stopped = replay(RULES, objs, on_error=OnError.STOP)
    assert stopped.applied == [0, 1] and stopped.stopped_at == 2


def test_a_value_that_is_not_an_event_at_all_is_a_problem() -> None:
    done = replay(RULES, [GOOD[0], None, "JH", 7])  # type: ignore[list-item]
    assert [p.index for p in done.problems] == [1, 2, 3]
    assert all("JSON object" in p.message for p in done.problems)
    assert done.applied == [0]


def test_an_internal_error_in_the_rules_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(game: Game, event: OrderedUp, out: list[object]) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setitem(game_module._HANDLERS, OrderedUp, broken)
    done = replay(RULES, GOOD)
    problem = done.problems[0]
    assert problem.index == 2 and "internal error" in problem.message
    # The game is as before it, so the discard and the card that follow are refused too.
    assert [p.index for p in done.problems] == [2, 3, 4]
    assert done.applied == [0, 1]
    assert done.game.log == GOOD[:2]


def test_an_error_outside_the_rules_checks_is_reported_not_raised() -> None:
    class Broken(Game):
        def push(self, event: InputEvent) -> list[object]:  # type: ignore[override]
            if isinstance(event, OrderedUp):
                raise RuntimeError("a bug")
            return super().push(event)  # type: ignore[return-value]

    for policy in OnError:
        done = replay(Broken(RULES), GOOD, on_error=policy)
        assert done.problems[0].index == 2
        assert "internal error" in done.problems[0].message
        assert "please report this" in done.problems[0].message


def test_a_game_given_goes_on_from_where_it_is() -> None:
    game = Game(RULES)
    first = replay(game, GOOD[:2])
    assert first.game is game
    more = replay(game, GOOD[2:])
    assert more.applied == [0, 1, 2]  # indices are of the events given this time
    assert game.log == GOOD


def test_unbroken_counts_the_run_without_a_gap() -> None:
    assert unbroken([], 1) == 0
    assert unbroken([1, 2, 3], 1) == 3
    assert unbroken([1, 2, 4, 5], 1) == 2
    assert unbroken([5, 6], 5) == 2
    assert unbroken([2, 3], 1) == 0


def test_every_phase_has_its_legal_events_function() -> None:
    assert set(BY_PHASE) == set(Phase)
