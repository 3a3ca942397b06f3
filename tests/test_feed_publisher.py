"""The table's feed against a real mosquitto: a simulated game received by a plain paho
subscriber and compared with the log; the broker down at the start and mid-game; signed
rulings accepted once, forged or stale ones refused and answered ok false."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
import waiting
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion

from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.outbox import Outbox
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.feed.signing import MAX_AGE, Ruling, new_keys, sign
from table_controller.seats import Seat
from table_controller.table.config import parse_config
from table_controller.table.health import Device
from table_controller.table.simulated import simulated_table

GUARD = 120.0
TOPICS = messages.Topics.of("euchre", "test-night")
PERSIST = "persistence true\npersistence_location {folder}/\nallow_anonymous true\n"


def wait_for(what: str, check: Any, guard: float = GUARD) -> None:
    waiting.wait_until(what, check, guard)


class Subscriber:
    """A plain paho client keeping every message (a persistent session: it misses
    nothing sent while the broker restarts)."""

    def __init__(self, port: int, topic: str = TOPICS.all_tables) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()  # the broker took its SUBSCRIBE (SUBACK)
        self.client = mqtt.Client(
            CallbackAPIVersion.VERSION2, client_id=f"sub-{port}", clean_session=False
        )
        self.client.on_message = lambda c, u, m: self._keep(m)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.reconnect_delay_set(0.1, 0.5)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _keep(self, m: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((m.topic, bytes(m.payload)))

    def events(self) -> list[dict[str, Any]]:
        with self.lock:
            return [json.loads(p) for t, p in self.got if t.endswith("/events")]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def table_config(folder: Path, port: int, **feed: Any) -> Any:
    data: dict[str, Any] = {
        "table": {"name": "Club Night 3", "gpio": "mock", "log": "table.sqlite"},
        "camera": {"source": "synthetic", "lost_after": 5.0, "drift_check": 0},
        "cube": {"port": "none"},
        "web": {"host": "127.0.0.1", "port": 0},
        "feed": {
            "enabled": True,
            "broker": "127.0.0.1",
            "port": port,
            "event": "test-night",
            "heartbeat": 1.0,
            **feed,
        },
    }
    return parse_config(data, folder, "<test>")


def logged_keys(path: Path) -> list[tuple[int, int]]:
    with EventLog.open_existing(path) as log:
        return [(e.game, e.seq) for g in log.games() for e in log.events(g.game)]


def check_received(sub: Subscriber, log_path: Path) -> None:
    """Every logged event received, first copies in order, repeats identical."""
    want = logged_keys(log_path)
    wait_for(
        "every logged event at the subscriber",
        lambda: len({(m["game"], m["seq"]) for m in sub.events()}) >= len(want),
    )
    got = sub.events()
    first: dict[tuple[int, int], dict[str, Any]] = {}
    order = []
    for m in got:
        key = (m["game"], m["seq"])
        if key in first:
            assert m == first[key], "a repeat differs from the first copy"
        else:
            first[key] = m
            order.append(key)
    assert order == want  # nothing lost, nothing out of order
    for m in got:
        assert m["table"] == "club-night-3" and m["v"] == 1
        if m["input"]["event"] == "hand_dealt":
            assert "hands" not in m["input"]


def run_table(config: Any, *, hands: int, during: Any = None) -> Any:
    table = simulated_table(config, seed=3, serve_page=False)

    async def main() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(table.run(stop=stop, hands=hands))
        if during is not None:
            await during(table, task)
        await asyncio.wait_for(task, GUARD * 2)

    asyncio.run(main())
    return table


def test_a_simulated_game_reaches_a_plain_subscriber_in_order(tmp_path: Path) -> None:
    with Mosquitto(tmp_path / "broker") as broker:
        sub = Subscriber(broker.port)
        try:
            config = table_config(tmp_path, broker.port)
            run_table(config, hands=1)
            check_received(sub, config.log)
            with sub.lock:
                status = [json.loads(p) for t, p in sub.got if t.endswith("/status")]
            assert status[0]["online"] is True and status[0]["players"]["N"] == "North"
            assert status[-1]["online"] is False  # a clean stop leaves the table offline
            outbox = Outbox(config.log)
            assert outbox.cursor() == logged_keys(config.log)[-1] and outbox.backlog() == 0
            outbox.close()
        finally:
            sub.close()


def test_broker_down_at_the_start_and_mid_game_loses_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Mosquitto(folder, PERSIST.format(folder=folder)).start()
    sub = Subscriber(broker.port)
    # Its SUBSCRIBE taken: a persistent session keeps it from now on.
    wait_for("the subscriber's subscription", sub.subscribed.is_set)
    broker.stop()
    config = table_config(tmp_path, broker.port)
    seen_fault: list[bool] = []

    async def during(table: Any, task: Any) -> None:
        def ended() -> BaseException | None:
            return RuntimeError("the game ended first: a longer game") if task.done() else None

        async def until_seq(n: int) -> None:
            await waiting.until_async(f"event {n} logged", lambda: table.seq >= n, GUARD, ended)

        await until_seq(12)
        seen_fault.append(table.health.fault(Device.FEED) is not None)
        await asyncio.to_thread(broker.start)
        await waiting.until_async(
            "the feed's fault cleared", lambda: table.health.fault(Device.FEED) is None, GUARD
        )
        seen_fault.append(table.health.fault(Device.FEED) is None)
        start = table.seq
        await until_seq(start + 5)
        await asyncio.to_thread(broker.stop)  # mid-game
        await until_seq(start + 15)
        assert not task.done(), "the hand ended before the broker came back: a longer game"
        await asyncio.to_thread(broker.start)

    try:
        run_table(config, hands=3, during=during)
        assert seen_fault == [True, True]  # raised while down, cleared once back
        check_received(sub, config.log)
    finally:
        sub.close()
        broker.kill()


# --- rulings ---------------------------------------------------------------------------


@pytest.fixture
def ruled(tmp_path: Path) -> Iterator[tuple[Publisher, Subscriber, bytes, list[Ruling]]]:
    private, public = new_keys()
    with EventLog(tmp_path / "t.sqlite", table="Club Night 3") as log:
        log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    with Mosquitto(tmp_path / "broker") as broker:
        got: list[Ruling] = []
        settings = FeedSettings(
            table="club-night-3", topics=TOPICS, port=broker.port, director_key=public
        )
        pub: Publisher

        def on_ruling(r: Ruling) -> None:
            got.append(r)
            pub.answer(r.ruling_id, True, None)

        pub = Publisher(settings, tmp_path / "t.sqlite", on_ruling=on_ruling)
        sub = Subscriber(broker.port, TOPICS.acks("club-night-3"))
        pub.start()
        wait_for("the publisher connected", pub.connected_event.is_set)
        try:
            yield pub, sub, private, got
        finally:
            pub.stop()
            sub.close()


def acks(sub: Subscriber) -> list[dict[str, Any]]:
    """The table's answers (applied or refused), without its "delivered" notes."""
    with sub.lock:
        answers = [json.loads(p) for _, p in sub.got]
    return [a for a in answers if a["state"] != "delivered"]


def delivered(sub: Subscriber) -> list[str]:
    with sub.lock:
        answers = [json.loads(p) for _, p in sub.got]
    return [a["ruling_id"] for a in answers if a["state"] == "delivered"]


def send(port: int, payload: dict[str, Any]) -> None:
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", port)
    c.loop_start()
    c.publish(TOPICS.rulings("club-night-3"), json.dumps(payload), qos=1).wait_for_publish(60)
    c.disconnect()
    c.loop_stop()


def ruling(rid: str, at: float | None = None) -> Ruling:
    event = {"event": "score_adjusted", "team": "NS", "points": 2, "reason": "renege dismissed"}
    when = at or time.time()
    return Ruling(rid, "club-night-3", "dismiss_renege", event, "no renege", "td", when)


def test_a_signed_ruling_is_taken_once_and_acked(ruled: Any) -> None:
    pub, sub, private, got = ruled
    port = pub.settings.port
    send(port, sign(ruling("r-1"), private))
    wait_for("the ack", lambda: len(acks(sub)) == 1)
    send(port, sign(ruling("r-1"), private))  # delivered again
    wait_for("the second ack", lambda: len(acks(sub)) == 2)
    assert [a["ok"] for a in acks(sub)] == [True, True]
    assert [r.ruling_id for r in got] == ["r-1"]  # applied once
    assert delivered(sub) == ["r-1"]  # said once, before it was applied


def test_forged_and_stale_rulings_are_refused_with_ok_false(ruled: Any) -> None:
    pub, sub, private, got = ruled
    port = pub.settings.port
    other, _ = new_keys()
    send(port, sign(ruling("forged"), other))
    send(port, sign(ruling("stale", at=time.time() - MAX_AGE - 60), private))
    wait_for("two acks", lambda: len(acks(sub)) == 2)
    answers = {a["ruling_id"]: a for a in acks(sub)}
    assert answers["forged"]["ok"] is False and "signature" in answers["forged"]["problem"]
    assert answers["stale"]["ok"] is False and "ago" in answers["stale"]["problem"]
    assert got == []


# --- the director's orders and the table's answers (fleet/orders.py) ---------------------


def test_orders_reach_on_order_and_send_answers_on_the_fleet_topic(tmp_path: Path) -> None:
    """A retained config waiting at the broker and a command sent later both reach
    ``on_order`` (with their topic's kind); ``send`` answers on ``fleet(table, kind)``."""
    table = "club-night-3"
    with EventLog(tmp_path / "t.sqlite", table="Club Night 3") as log:
        log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    with Mosquitto(tmp_path / "broker") as broker:
        director = mqtt.Client(CallbackAPIVersion.VERSION2)
        director.connect("127.0.0.1", broker.port)
        director.loop_start()
        config = {"kind": "config", "table": table, "seq": 1}
        director.publish(
            TOPICS.config(table), json.dumps(config), qos=1, retain=True
        ).wait_for_publish(60)
        got: list[tuple[str, dict[str, Any]]] = []
        settings = FeedSettings(table=table, topics=TOPICS, port=broker.port)
        pub = Publisher(settings, tmp_path / "t.sqlite", on_order=lambda k, p: got.append((k, p)))
        sub = Subscriber(broker.port, f"{TOPICS.table(table)}/fleet/#")
        pub.send("config", {"seq": 0})  # not connected yet: dropped, with a log line
        pub.start()
        try:
            wait_for("the publisher connected", pub.connected_event.is_set)
            wait_for("the retained config", lambda: got == [("config", config)])
            command = {"kind": "camera-view", "table": table, "id": "k-1"}
            director.publish(TOPICS.commands(table), json.dumps(command), qos=1)
            director.publish(TOPICS.commands(table), b"not json", qos=1)
            wait_for("the command", lambda: len(got) == 2)
            assert got[1] == ("commands", command)
            wait_for("the subscriber subscribed", sub.subscribed.is_set)
            pub.send("config", {"table": table, "seq": 1, "state": "applied"})
            wait_for("the ack", lambda: len(sub.got) == 1)
            topic, body = sub.got[0]
            assert (
                topic
                == TOPICS.fleet(table, "config")
                == f"{TOPICS.prefix}/tables/{table}/fleet/config"
            )
            assert json.loads(body) == {"table": table, "seq": 1, "state": "applied"}
            # A cleared retained config (the table removed) is no order.
            director.publish(TOPICS.config(table), b"", qos=1, retain=True).wait_for_publish(60)
            director.publish(TOPICS.commands(table), json.dumps(command), qos=1)
            wait_for("the command again", lambda: len(got) == 3)
            assert [k for k, _ in got] == ["config", "commands", "commands"]
        finally:
            pub.stop()
            sub.close()
            director.disconnect()
            director.loop_stop()
