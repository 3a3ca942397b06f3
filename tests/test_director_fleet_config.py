"""Config from the centre, the director's side: each fleet table's config orders are
numbered per table in the store (SQLite and PostgreSQL), the tables' answers on
``fleet/config`` are stored on them, and the event's current round is pushed to the
tables it seats, signed, once per change of seating."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from table_controller.director.fleet.config import (
    FleetConfigError,
    RoundPush,
    attach,
    push,
    seated,
)
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore, StoreError
from table_controller.director.tournament import ProgressiveEvent, TournamentAdmin
from table_controller.feed.messages import Topics
from table_controller.feed.signing import new_keys
from table_controller.fleet.orders import verify_order

PREFIX = "euchre/spring-open"
KEYS = new_keys()
NOW = 1_800_000_000.0
PLAYERS = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


@dataclass
class Fleet:
    """The part of director/fleet/core.py's Fleet a push reads, publishing into a list."""

    store: DirectorStore
    event: str = "Spring Open"
    prefix: str = PREFIX
    rules: str = "td-progressive"
    options: dict[str, Any] = field(default_factory=dict)
    private_pem: bytes = KEYS[0]
    sent: list[tuple[str, dict[str, Any], bool]] = field(default_factory=list)

    def publish(self, topic: str, payload: bytes | str, retain: bool) -> None:
        self.sent.append((topic, json.loads(payload), retain))


def test_configs_are_numbered_per_table_and_each_answer_is_stored(store_target: str) -> None:
    store = DirectorStore(store_target, clock=lambda: NOW)
    try:
        fleet = Fleet(store)
        assert store.fleet_configs.fleet_config_state("table-1") is None
        first = push(fleet, "table-1", name="Table 1", players={}, round=None, clock=lambda: NOW)
        push(fleet, "table-2", name="Table 2", players={}, round=None, clock=lambda: NOW)
        seated_ = {"N": "Ann", "E": "Bob", "S": "Cy", "W": "Di"}
        second = push(fleet, "table-1", name="Table 1", players=seated_, round=1, clock=lambda: NOW)
        assert (first["seq"], second["seq"]) == (1, 2)
        topic, order, retained = fleet.sent[-1]
        assert topic == Topics(PREFIX).config("table-1") and retained and order == second
        verified = verify_order(order, KEYS[1], table="table-1", kind="config", now=NOW + 1)
        assert verified["players"] == seated_ and verified["rules"] == "td-progressive"
        # The tables' answers arrive as the service takes them from the broker.
        service = DirectorService(store, BrokerConfig(port=1, client_id="unused"), prefix=PREFIX)
        answers = Topics(PREFIX).fleet("table-1", "config")
        service.handle(
            answers, json.dumps({"table": "table-1", "seq": 1, "state": "applied"}).encode()
        )
        service.handle(
            answers, json.dumps({"table": "table-1", "seq": 2, "state": "waiting"}).encode()
        )
        state = store.fleet_configs.fleet_config_state("table-1")
        assert state is not None
        assert (state["seq"], state["state"], state["applied"]) == (2, "waiting", 1)
        problem = "the config's signature does not match the director's key"
        refusal = {"table": "table-1", "seq": 2, "state": "refused", "problem": problem}
        service.handle(answers, json.dumps(refusal).encode())
        state = store.fleet_configs.fleet_config_state("table-1")
        assert state is not None and (state["state"], state["problem"]) == ("refused", problem)
        # An answer that is none is refused in words, and stores nothing.
        with pytest.raises(StoreError, match="is 'lost'"):
            service.handle(answers, json.dumps({"seq": 2, "state": "lost"}).encode())
        two = store.fleet_configs.fleet_config_state("table-2")
        assert two is not None and two["seq"] == 1 and two["state"] == "sent"
    finally:
        store.close()


def test_a_push_without_a_broker_says_what_to_do(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite")

    @dataclass
    class Offline(Fleet):
        publish: Any = None  # type: ignore[assignment]

    with pytest.raises(FleetConfigError, match="not connected to its broker"):
        push(Offline(store), "table-1", name="Table 1", players={}, round=None)
    assert store.fleet_configs.fleet_config_state("table-1") is None


def test_the_current_round_is_pushed_to_the_tables_it_seats(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite", rules_name="td-progressive")
    fleet = Fleet(store)
    names = {"table-1": "Table 1", "table-2": "Table 2"}  # table-9 is not in the fleet
    admin = TournamentAdmin(store)
    admin.listeners.append(RoundPush(fleet, names.get, clock=lambda: NOW))
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    assert fleet.sent == []  # no table assigned yet
    admin.assign_round("ann", 1, {"table-1": "1", "table-2": "2", "table-9": "3"})
    event = admin.state.event
    assert isinstance(event, ProgressiveEvent)

    def names_at(round_no: int, place: int) -> dict[str, str]:
        seats = event.seating(round_no)[place - 1]
        return {s: admin.state.people.name(p) for s, p in seats.items()}

    def orders() -> dict[str, dict[str, Any]]:
        out = {}
        for topic, order, _ in fleet.sent:
            table = order["table"]
            assert topic == Topics(PREFIX).config(table)
            out[table] = verify_order(order, KEYS[1], table=table, kind="config", now=NOW)
        return out

    got = orders()
    assert sorted(got) == ["table-1", "table-2"] and len(fleet.sent) == 2
    assert got["table-1"]["players"] == names_at(1, 1) and got["table-1"]["round"] == 1
    assert got["table-2"]["players"] == names_at(1, 2) and got["table-2"]["name"] == "Table 2"
    # A change that seats no one elsewhere pushes nothing; round 2 assigned ahead neither.
    admin.set_public_delay("ann", 30)
    admin.assign_round("ann", 2, {"table-1": "2", "table-2": "1"})
    assert len(fleet.sent) == 2
    # Round 1's results in: round 2 is current, and each table gets its new players.
    for place in (1, 2):
        ended = {"event": "game_ended", "scores": [10, 6], "individual": [5, 3, 5, 3]}
        admin.record("ann", 1, str(place), ended, "score card")
    assert seated(admin.state)["table-1"] == (names_at(2, 2), 2)
    got = orders()
    assert len(fleet.sent) == 4
    assert got["table-1"]["players"] == names_at(2, 2) and got["table-1"]["seq"] == 2
    assert got["table-2"]["players"] == names_at(2, 1) and got["table-2"]["round"] == 2


def test_attached_the_fleet_gets_the_seating_at_once_then_each_change(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite", rules_name="td-progressive")
    admin = TournamentAdmin(store)
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    admin.assign_round("ann", 1, {"table-1": "1"})  # before the fleet was on
    fleet = Fleet(store)
    attach(admin, fleet, {"table-1": "Table 1"}.get, clock=lambda: NOW)
    assert [o["table"] for _, o, _ in fleet.sent] == ["table-1"]
    admin.assign_round("ann", 1, {"table-1": "2"})
    assert [o["seq"] for _, o, _ in fleet.sent] == [1, 2]
    assert fleet.sent[-1][1]["players"] == seated(admin.state)["table-1"][0]
    attach(admin, fleet, {"table-1": "Table 1"}.get)  # a restarted director: nothing new
    assert len(fleet.sent) == 2


def test_a_listener_that_fails_does_not_take_the_change_back(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite", rules_name="td-progressive")
    admin = TournamentAdmin(store)

    def broken(action: str, state: Mapping[str, Any]) -> None:
        raise RuntimeError("the broker went away")

    admin.listeners.append(broken)  # type: ignore[arg-type]
    admin.create("ann", "progressive", PLAYERS, rounds=2)
    assert admin.state.event is not None and TournamentAdmin(store).state.event is not None
