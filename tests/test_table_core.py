"""The table's core without an event loop: a virtual clock, a real log (SQLite), the
sinks' snapshot. What the running table does per input, step by step (table/core.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_controller import simulate
from table_controller.cards import Card, Suit
from table_controller.devices.seat_events import ButtonPressed, SeatButton
from table_controller.event_log import EventLog, LogError
from table_controller.present import review_link
from table_controller.rules.events import DealerChosen, HandDealt, OutputEvent, Passed, TrumpCalled
from table_controller.rules.game import Game
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.config import TableConfig, parse_config
from table_controller.table.core import MAX_NOTICES, Accepted, TableCore
from table_controller.table.health import Device
from table_controller.table.noticed import Pressed
from table_controller.table.policy import PlainTable
from table_controller.table.sinks import Shown, Sinks

N, E, S, W = Seat.N, Seat.E, Seat.S, Seat.W


class Clock:
    """The core's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def config_in(folder: Path, **table: Any) -> TableConfig:
    data: dict[str, Any] = {
        "table": {"name": "Core table", "gpio": "mock", "log": "table.sqlite", **table},
        "camera": {"source": "synthetic"},
    }
    return parse_config(data, folder, "<test>")


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def config(tmp_path: Path) -> TableConfig:
    return config_in(tmp_path, first_dealer="W")


@pytest.fixture
def log(config: TableConfig) -> Iterator[EventLog]:
    with EventLog(config.log, table=config.name) as opened:
        yield opened


def make_core(
    config: TableConfig, log: EventLog, clock: Clock, **options: Any
) -> tuple[TableCore, Sinks]:
    sinks = Sinks(clock=clock)
    core = TableCore(config, log, sinks, clock=clock, **options)
    core.resume()
    core.ready = True
    return core, sinks


def take(core: TableCore, event: Any, source: str = "director") -> None:
    """What the running table does for an input the rules take: accept, log, commit."""
    accepted = core.accept(event, source)
    assert isinstance(accepted, Accepted)
    core.log.append(accepted.game_no, accepted.seq, event, source=source, evidence=None)
    core.commit(accepted, False)


def test_a_new_log_starts_a_game_with_the_configs_first_dealer_logged(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    acked: list[tuple[int, int, Any]] = []
    core, _ = make_core(config, log, clock, on_logged=lambda g, s, e: acked.append((g, s, e)))
    assert core.game_no == 1 and core.seq == 2
    assert core.game.phase is Phase.DEALING
    assert acked == [(1, 1, DealerChosen(W))]
    assert [(e.event, e.source) for e in log.events(1)] == [(DealerChosen(W), "director")]


def test_an_input_taken_is_logged_counted_and_shown_once(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    core, sinks = make_core(config, log, clock)
    version = core.shown.version
    take(core, HandDealt(Card.parse("9H")))
    assert core.seq == 3 and core.game.phase is Phase.BIDDING
    assert core.shown.version == version + 1
    assert sinks.snapshot is not None and sinks.snapshot["version"] == core.shown.version
    assert core.shown.last and core.shown.recent[-len(core.shown.last) :] == core.shown.last


def test_a_refusal_is_a_notice_a_seat_light_and_a_line_in_the_log(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    core, sinks = make_core(config, log, clock)
    take(core, HandDealt(Card.parse("9H")))
    refusal = core.accept(TrumpCalled(N, Suit.S, False), "page")  # the first round
    assert refusal == (
        "in the first round a player passes or orders the upcard up",
        "now: North to pass or order up",  # the engine's "N to pass or order up", in words
    )
    assert core.seq == 3 and len(core.game.log) == 2  # nothing pushed, nothing logged
    notice = core.shown.notices[-1]
    assert (notice.kind, notice.seat, notice.at) == ("refused", N, clock.now)
    assert N in core.shown.refused
    assert sinks.snapshot is not None and sinks.snapshot["notices"][-1]["seat"] == "N"
    core.refuse(S, "a press out of turn", "wait for your light", "button")
    take(core, Passed(N))  # N's own input taken: its light goes back to the game's
    assert core.shown.refused == {S}


def test_notices_are_kept_to_the_newest_few_and_expire_on_the_clock(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    core, _ = make_core(config, log, clock, notice_seconds=30.0)
    for i in range(MAX_NOTICES + 3):
        clock.now += 1.0
        core.notice("info", None, f"notice {i}", "")
    assert [n.text for n in core.shown.notices] == [
        f"notice {i}" for i in range(3, MAX_NOTICES + 3)
    ]
    core.refuse(E, "out of turn", "wait", "button")  # at 109
    clock.now = 130.5  # the oldest kept (at 101) is 29.5 s old
    assert not core.expire(clock.now)
    clock.now = 139.0  # the newest is 30 s old
    assert core.expire(clock.now)
    assert core.shown.notices == [] and core.shown.refused == set()


def test_a_press_means_what_the_phase_says_and_the_director_button_calls(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    core, _ = make_core(config, log, clock)
    take(core, HandDealt(Card.parse("9H")))
    press = Pressed(ButtonPressed(N, SeatButton.PASS))
    assert core.interpret(press, cube_suit=None, operator_pin=False) == Passed(N)
    early = Pressed(ButtonPressed(S, SeatButton.PASS))
    refusal = core.interpret(early, cube_suit=None, operator_pin=False)
    assert isinstance(refusal, tuple) and "North's turn" in refusal[0]
    director = Pressed(ButtonPressed(E, SeatButton.DIRECTOR))
    assert core.interpret(director, cube_suit=None, operator_pin=False) is None
    assert core.shown.director_called
    assert core.shown.notices[-1].text == "seat E called the director"
    take(core, Passed(N))
    assert not core.shown.director_called  # an input taken: the call is answered


def test_a_log_that_cannot_take_an_input_undoes_it_and_raises_the_log_fault(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    core, _ = make_core(config, log, clock)
    accepted = core.accept(HandDealt(Card.parse("9H")), "director")
    assert isinstance(accepted, Accepted)
    refusal = core.undo(accepted, LogError("the disk is full"))
    assert refusal[0] == "the table could not record this, so it did not count"
    assert core.game.phase is Phase.DEALING and core.seq == 2
    fault = core.health.fault(Device.LOG)
    assert fault is not None and fault.problem == "the disk is full" and fault.since == clock.now
    take(core, HandDealt(Card.parse("9H")))  # the next write clears it
    assert core.health.fault(Device.LOG) is None


def test_a_restart_resumes_where_it_was(config: TableConfig, log: EventLog, clock: Clock) -> None:
    core, _ = make_core(config, log, clock)
    take(core, HandDealt(Card.parse("9H")))
    take(core, Passed(N))
    again, _ = make_core(config, log, clock)
    assert (again.game_no, again.seq) == (core.game_no, core.seq)
    assert again.game.state_key() == core.game.state_key()


class Recording(PlainTable):
    """A policy that keeps what the core told it, and marks every seat as laying."""

    def __init__(self) -> None:
        self.told: list[str] = []

    def game_started(self) -> None:
        self.told.append("game started")

    def resumed(self) -> None:
        self.told.append("resumed")

    def noted(self, outputs: list[OutputEvent]) -> None:
        self.told.append(f"noted {len(outputs)}")

    def showing(self, game: Game, shown: Shown) -> tuple[Game, Shown]:
        shown.laying = frozenset(Seat)
        return game, shown

    def driven(self) -> None:
        self.told.append("driven")


def test_the_policy_is_told_at_each_point_and_adds_to_what_is_shown(
    config: TableConfig, log: EventLog, clock: Clock
) -> None:
    policy = Recording()
    core, sinks = make_core(config, log, clock, policy=policy)
    assert policy.told == ["noted 1", "game started", "resumed"]
    take(core, HandDealt(Card.parse("9H")))
    assert policy.told[-1] == "driven" and policy.told[-2].startswith("noted ")
    assert core.shown.laying == frozenset(Seat)
    assert sinks.shown_lights is not None


def test_the_end_of_a_game_is_shown_until_the_next_game_deals(tmp_path: Path, clock: Clock) -> None:
    """The table starts its next game at once; the page keeps announcing who won the
    last one until the new game's first hand is dealt (present/announce.py)."""
    config = config_in(tmp_path / "over")
    with EventLog(config.log, table=config.name) as log:
        core, sinks = make_core(config, log, clock)
        rules = core.game.rules
        for event, _ in simulate.play(rules, random.Random(5)):
            take(core, event)
        assert core.game.phase is Phase.OVER and sinks.snapshot is not None
        ended = sinks.snapshot["game_over"]
        assert ended is not None and ended["title"].endswith(" win")
        # With the link to this game's hand review, by its number in the log (issue 34).
        first = core.game_no
        assert ended.get("review") == review_link(first)
        core.start_game()
        core.changed()
        assert core.game.phase is not Phase.OVER and core.game_no != first
        assert sinks.snapshot["game_over"] == ended  # still the game that ended
        for event, _ in simulate.play(rules, random.Random(6)):
            take(core, event)
            if isinstance(event, HandDealt):
                break
            assert sinks.snapshot["game_over"] == ended
        assert sinks.snapshot["game_over"] is None
