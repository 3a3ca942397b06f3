"""A fleet's table takes its config from the centre, over a real mosquitto: the
director's signed config is applied between games only (a game in play finishes with
its players: "waiting", then "applied" when it ends), a config signed by another key is
refused in words, every answer reaches the director's store through its service, and
the last config is kept (0600) so the table plays on after a restart."""

from __future__ import annotations

import asyncio
import json
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
import waiting
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion
from test_feed_publisher import Subscriber

from table_controller.director.fleet.config import push
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed.messages import Topics
from table_controller.feed.signing import new_keys
from table_controller.fleet.orders import sign_order
from table_controller.seats import Seat
from table_controller.table.app import Table
from table_controller.table.config import TableConfig, parse_config
from table_controller.table.fleet.run import FleetRun
from table_controller.table.fleet.settings import load_membership
from table_controller.table.simulated import simulated_table

GUARD = 120.0  # only against a hang: every wait is for a condition
TOPIC, EVENT, TABLE = "euchre", "spring-open", "table-7"
TOPICS = Topics.of(TOPIC, EVENT)
ROUND_1 = {"N": "Ada", "E": "Bo", "S": "Cy", "W": "Di"}
ROUND_2 = {"N": "Ed", "E": "Flo", "S": "Gus", "W": "Hal"}


def wait_for(what: str, check: Any) -> None:
    waiting.wait_until(what, check, GUARD)


@dataclass
class Fleet:
    """What director/fleet/core.py's Fleet gives a push, publishing on a paho client."""

    store: DirectorStore
    client: mqtt.Client
    private_pem: bytes
    event: str = "Spring Open"
    prefix: str = TOPICS.prefix
    rules: str = "td-progressive"
    options: dict[str, Any] = field(default_factory=lambda: {"hands_per_game": 2})

    def publish(self, topic: str, payload: bytes | str, retain: bool) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(GUARD)


def joined(folder: Path, port: int, director_pub: bytes) -> None:
    """The folder as joining leaves it (table/fleet/join.py's files)."""
    folder.mkdir()
    member = {
        "table": TABLE,
        "name": "Table 7",
        "username": TABLE,
        "broker_port": port,
        "topic": TOPIC,
        "event": EVENT,
        "rules": "td-progressive",
        "options": {"hands_per_game": 2},
        "director_host": "127.0.0.1",
        "director_port": 8090,
    }
    (folder / "membership.json").write_text(json.dumps(member))
    (folder / "director.pub").write_bytes(director_pub)
    (folder / "broker.password").write_text("not-checked-by-this-broker\n")
    for f in folder.iterdir():
        f.chmod(0o600)


def local_config(base: Path) -> TableConfig:
    data = {
        "table": {"gpio": "mock"},
        "camera": {"source": "synthetic", "lost_after": 5.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"host": "127.0.0.1", "port": 0},
        "feed": {"heartbeat": 5.0},
        "fleet": {"folder": "fleet"},
    }
    return parse_config(data, base, "<test>")


class Running:
    """A FleetRun in a thread of its own (its own event loop), stopped at the end."""

    def __init__(self, runner: FleetRun) -> None:
        self.runner = runner
        self.loop = asyncio.new_event_loop()
        self.stop = asyncio.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.loop.run_until_complete(self.runner.run(self.stop))
        except BaseException as exc:  # said by the test
            self.error = exc

    def call(self, fn: Any) -> None:
        self.loop.call_soon_threadsafe(fn)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(GUARD)
        assert not self.thread.is_alive() and self.error is None, self.error


def make_table(config: TableConfig, new_game_after: float | None) -> Table:
    """The simulated table; before the director seats anyone, no one plays at it."""
    options = {} if new_game_after is None else {"new_game_after": new_game_after}
    table = simulated_table(config, seed=5, serve_page=False, **options)
    if config.players[Seat.N] == "North":
        table.players = table.new_players = None
    return table


def games(log_path: Path) -> list[dict[str, str]]:
    with EventLog.open_existing(log_path) as log:
        return [{s.name: n for s, n in g.players.items()} for g in log.games()]


def answers(sub: Subscriber) -> list[tuple[int | None, str, str | None]]:
    with sub.lock:
        got = [json.loads(p) for _, p in sub.got]
    return [(a["seq"], a["state"], a["problem"]) for a in got]


@pytest.fixture
def director(tmp_path: Path) -> Iterator[tuple[Mosquitto, DirectorService, Fleet]]:
    private, _ = KEYS
    with Mosquitto(tmp_path / "broker") as broker:
        store = DirectorStore(tmp_path / "director.sqlite", rules_name="td-progressive")
        service = DirectorService(
            store, BrokerConfig(port=broker.port, client_id="director"), prefix=TOPICS.prefix
        )
        service.start()
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="director-push")
        client.connect("127.0.0.1", broker.port)
        client.loop_start()
        try:
            assert service.connected.wait(GUARD)
            yield broker, service, Fleet(store, client, private)
        finally:
            client.disconnect()
            client.loop_stop()
            service.stop()
            store.close()


KEYS = new_keys()


@pytest.mark.slow(budget=90)
def test_configs_from_the_centre_apply_between_games(
    tmp_path: Path, director: tuple[Mosquitto, DirectorService, Fleet]
) -> None:
    broker, _service, fleet = director
    folder = tmp_path / "fleet"
    joined(folder, broker.port, KEYS[1])
    member = load_membership(folder)
    assert member is not None
    sub = Subscriber(broker.port, f"{TOPICS.table(TABLE)}/fleet/#")
    wait_for("the answers' subscriber", sub.subscribed.is_set)
    push(fleet, TABLE, name="Table 7", players=ROUND_1, round=1)
    run = Running(FleetRun(local_config(tmp_path), member, make_table=make_table))
    log_path = folder / f"{TABLE}.sqlite"
    try:
        # Round 1's players sit down: applied, and a game starts with them.
        wait_for("config 1 applied", lambda: (1, "applied", None) in answers(sub))
        wait_for("the director stored it", lambda: _state(fleet, 1) == "applied")
        wait_for("a game with round 1's players", lambda: ROUND_1 in games(log_path))
        table = run.runner.table
        assert table is not None and table.config.name == "Table 7"
        wait_for("a hand in play", lambda: table.game.hand is not None)
        # Round 2's seating arrives mid-game: taken, applied when this game ends.
        run.call(lambda: setattr(table, "players", None))  # the players pause
        push(fleet, TABLE, name="Table 7", players=ROUND_2, round=2)
        wait_for("config 2 waiting", lambda: (2, "waiting", None) in answers(sub))
        wait_for("the director stored it", lambda: _state(fleet, 2) == "waiting")
        assert run.runner.table is table and games(log_path)[-1] == ROUND_1
        run.call(lambda: setattr(table, "players", table.new_players()))  # play on
        wait_for("config 2 applied", lambda: (2, "applied", None) in answers(sub))
        wait_for("the director stored it", lambda: _state(fleet, 2) == "applied")
        states = [s for seq, s, _ in answers(sub) if seq == 2]
        assert states.index("waiting") < states.index("applied")
        wait_for("a game with round 2's players", lambda: games(log_path)[-1] == ROUND_2)
        with EventLog.open_existing(log_path) as log:
            assert log.games()[-2].game < log.games()[-1].game
        round_1 = [g for g in games(log_path) if g == ROUND_1]
        assert len(round_1) == 1  # round 1's game was played to its end, once
        # A config signed by another key: refused, in words, and nothing changes.
        forged = sign_order(
            {
                "kind": "config",
                "table": TABLE,
                "id": "forged",
                "at": _now(),
                "seq": 9,
                "name": "Table 7",
                "event": "Spring Open",
                "rules": "td-progressive",
                "options": {},
                "players": {"N": "Mallory"},
                "round": 2,
            },
            new_keys()[0],
        )
        fleet.publish(TOPICS.config(TABLE), json.dumps(forged), True)
        wait_for("the refusal", lambda: any(seq == 9 for seq, _, _ in answers(sub)))
        refused = next(a for a in answers(sub) if a[0] == 9)
        assert refused[1] == "refused" and "signature does not match" in str(refused[2])
        assert run.runner.seq == 2 and run.runner.pending is None
        # The director saw the table with its new players, and never offline meanwhile.
        wait_for("the table's status with round 2's players", lambda: _players(fleet) == ROUND_2)
        assert [a for a in fleet.store.alerts.alerts() if a["kind"] == "table_offline"] == []
    finally:
        run.close()
        sub.close()
    # The last config applied is kept, readable by the table's user only.
    kept = folder / "config.json"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert json.loads(kept.read_text())["players"] == ROUND_2


def _state(fleet: Fleet, seq: int) -> str | None:
    state = fleet.store.fleet_configs.fleet_config_state(TABLE)
    return None if state is None or state["seq"] != seq else str(state["state"])


def _players(fleet: Fleet) -> dict[str, str] | None:
    found = [t["players"] for t in fleet.store.tables.tables() if t["table"] == TABLE]
    return found[0] if found else None


def _now() -> float:
    import time

    return time.time()


@pytest.mark.slow(budget=90)
def test_table_controller_run_of_a_fleet_table_takes_the_config(
    tmp_path: Path, director: tuple[Mosquitto, DirectorService, Fleet]
) -> None:
    """The command the table's service runs: a table.toml with [fleet], as a process of
    its own, plays with the players the director pushed and answers over the broker."""
    import signal
    import subprocess
    import sys

    from table_controller.table.config import to_toml

    broker, _service, fleet = director
    joined(tmp_path / "fleet", broker.port, KEYS[1])
    path = tmp_path / "table.toml"
    path.write_text(to_toml(local_config(tmp_path)))
    sub = Subscriber(broker.port, f"{TOPICS.table(TABLE)}/fleet/#")
    wait_for("the answers' subscriber", sub.subscribed.is_set)
    push(fleet, TABLE, name="Table 7", players=ROUND_1, round=1)
    argv = [sys.executable, "-m", "table_controller.cli", "run", "--config", str(path), "--fast"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log_path = tmp_path / "fleet" / f"{TABLE}.sqlite"
    try:
        wait_for("config 1 applied", lambda: (1, "applied", None) in answers(sub))
        wait_for("the director stored it", lambda: _state(fleet, 1) == "applied")
        wait_for("a game with round 1's players", lambda: ROUND_1 in games(log_path))
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=GUARD)
        sub.close()
    assert proc.returncode == 0, err
    assert "The table page:" in out
    assert json.loads((tmp_path / "fleet" / "config.json").read_text())["seq"] == 1
