"""An update from end to end over a real mosquitto: the director's release command, its
runner's signed order, the table's feed (a real Publisher) taking it, the wheel fetched
from the director's route over HTTP, installed with pip, switched to; the restart (the
unit's check, a new feed that connects) and the director hearing the table run it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
import waiting
from fleet_wheels import Served, make_wheel
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion

from table_controller.director.fleet import replies as fleet_replies
from table_controller.director.fleet import update as fleet_update
from table_controller.director.fleet.update import UpdateRunner
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.feed.signing import new_keys
from table_controller.fleet import update
from table_controller.fleet.update import Releases
from table_controller.seats import Seat
from table_controller.table.fleet.update_link import attach, release_root

TOPICS = messages.Topics.of("euchre", "cup")
TABLE = "table-1"
GUARD = 120.0


class Director:
    """What the director's service does with the tables' messages, on a plain paho
    client: heartbeats and update words into the store; orders published."""

    def __init__(self, port: int, store: DirectorStore) -> None:
        self.store = store
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="director")
        self.client.on_message = lambda c, u, m: self._take(m)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(TOPICS.all_tables, qos=1)
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _take(self, m: mqtt.MQTTMessage) -> None:
        body = json.loads(m.payload) if m.payload else None
        if not isinstance(body, dict):
            return
        parts = m.topic.split("/")
        if parts[-1] == "status":
            self.store.tables.add_status(body)
        elif parts[-2] == "fleet":
            fleet_replies.handle(self.store, parts[-3], parts[-1], body, 0.0)

    def publish(self, topic: str, payload: bytes | str, retain: bool) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(60)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with Mosquitto(tmp_path / "broker") as broker:
        store = DirectorStore(str(tmp_path / "director.sqlite"))
        store.fleet.fleet_approve(TABLE, "Table 1", "pi", "10.0.0.1", "0.1.0", "a2V5", 1.0)
        director = Director(broker.port, store)
        served = Served(tmp_path / "event")
        waiting.wait_until("the director subscribed", director.subscribed.is_set, GUARD)
        try:
            yield {"port": broker.port, "store": store, "director": director, "served": served}
        finally:
            served.close()
            director.close()
            store.close()


def start_table(
    tmp_path: Path, port: int, public: bytes, base_url: str, running: str, restarts: list[str]
) -> tuple[Publisher, threading.Event]:
    """The table's feed and its update agent, as fleet mode starts them."""
    log_path = tmp_path / "table.sqlite"
    if not log_path.exists():
        with EventLog(log_path, table="Table 1") as log:
            log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    settings = FeedSettings(
        table=TABLE, topics=TOPICS, port=port, director_key=public, heartbeat=0.2
    )
    pub = Publisher(settings, log_path, on_order=lambda kind, body: None)
    pub.set_status({"phase": "over", "hand": 9, "name": "Table 1"})
    stop = threading.Event()
    attach(
        pub, table=TABLE, director_key=public, base_url=base_url,
        status=lambda: {"phase": "over", "hand": 9}, root=tmp_path / "opt",
        running=running, stop=stop, restart=lambda: restarts.append(running), extras=(),
    )  # fmt: skip
    pub.start()
    return pub, stop


@pytest.mark.slow(budget=120)
def test_a_release_goes_from_the_director_to_a_table_and_is_confirmed(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    private, public = new_keys()
    releases = Releases(tmp_path / "opt")
    first = make_wheel(tmp_path / "built", "1.0")
    update.prepare(releases, first, sha256=update.sha256_of(first))
    releases.switch("1.0")
    restarts: list[str] = []
    served, store, director = world["served"], world["store"], world["director"]
    pub, stop = start_table(tmp_path, world["port"], public, served.url, "1.0", restarts)
    waiting.wait_until("the table's heartbeat", lambda: store.tables.tables() != [], GUARD)

    event = served.folder
    fleet_update.add_release(event, make_wheel(tmp_path / "built", "1.1"), now=0.0)
    runner = UpdateRunner(event, store, prefix=TOPICS.prefix, private_pem=private,
                          publish=director.publish)  # fmt: skip

    def restarted() -> bool:
        runner.step()  # the store is shared between threads (its own lock)
        return restarts == ["1.0"]

    waiting.wait_until("the table switched and asked to restart", restarted, GUARD)
    assert releases.version_of(releases.current) == "1.1"
    assert "Table 1: " in fleet_update.status_words(event)
    stop.set()
    pub.stop()

    # systemd starts it again: the unit's check, then the new release's feed.
    assert update.boot(releases, now=1.0) == "starting version 1.1 for the first time"
    pub, stop = start_table(tmp_path, world["port"], public, served.url, "1.1", restarts)

    def done() -> bool:
        runner.step()
        return runner.rollout is not None and runner.rollout.state == "done"

    waiting.wait_until("the director heard the table run 1.1", done, GUARD)
    assert "Every table runs version 1.1." in fleet_update.status_words(event)
    assert update.status(releases)["pending"] is None  # confirmed: no rollback at next start
    assert update.boot(releases, now=2.0) is None
    stop.set()
    pub.stop()


def test_a_table_run_from_no_release_folder_is_not_updated() -> None:
    assert release_root() is None  # this checkout
    assert release_root("/opt/table-controller/releases/1.1/table_controller/__init__.py") == (
        Path("/opt/table-controller")
    )


class FakeFeed:
    """A table's feed as FleetRunUpdates reads it (the publisher's send and connection)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.connected_event = threading.Event()
        self.publisher = self

    def send(self, kind: str, body: dict[str, Any]) -> None:
        self.sent.append((kind, body))


def test_the_updates_of_a_fleet_run_follow_its_current_table(
    tmp_path: Path, world: dict[str, Any]
) -> None:
    from types import SimpleNamespace

    from table_controller.fleet.orders import sign_order
    from table_controller.table.fleet.update_link import FleetRunUpdates

    private, public = new_keys()
    served = world["served"]
    releases = Releases(tmp_path / "opt")
    wheel = make_wheel(served.folder / "releases", "1.1")
    host, port = served.url.removeprefix("http://").split(":")
    member = SimpleNamespace(  # a director in clear (no authority): the wheel over HTTP
        table=TABLE,
        director_key=public.decode(),
        director_host=host,
        director_port=int(port),
        ca="",
    )
    state = {"phase": "playing", "hand": 2}
    table: Any = SimpleNamespace(feed=FakeFeed(), core=SimpleNamespace(status=lambda: state))
    current: list[Any] = [None]
    restarts: list[int] = []
    updates = FleetRunUpdates(
        member, current=lambda: current[0], root=releases.root, running="1.0",
        restart=lambda: restarts.append(1), extras=(),
    )  # fmt: skip
    assert updates.agent is not None
    order = sign_order(
        {"kind": "update", "table": TABLE, "id": "u-1", "at": __import__("time").time(),
         "version": "1.1", "url": f"/fleet/release/{wheel.name}",
         "sha256": update.sha256_of(wheel), "expires": __import__("time").time() + 600,
         "downgrade": False},
        private,
    )  # fmt: skip
    updates.on_command(table, order)
    updates.agent.step()  # no table yet: not known to be between games
    assert restarts == []
    current[0] = table
    updates.agent.step()  # a game in play: it waits, and says so
    assert [b["state"] for _, b in table.feed.sent] == []  # said while no feed: lost
    updates.agent._clock = lambda: 2e9  # a minute on: said again
    updates.agent.step()
    assert [b["state"] for _, b in table.feed.sent] == ["waiting"]
    state.update(phase="over")
    updates.agent.step()
    assert [b["state"] for _, b in table.feed.sent][-1] == "restarting" and restarts == [1]
    assert releases.version_of(releases.current) == "1.1"

    forged = dict(order, id="u-2", version="6.6")
    updates.on_command(table, forged)
    assert "signature does not match" in table.feed.sent[-1][1]["problem"]
