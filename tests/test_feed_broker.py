"""The event's broker files against a real mosquitto: passwords in mosquitto's own hash
format, each table writing only its own topics, only the director writing rulings."""

from __future__ import annotations

import threading
from pathlib import Path

import paho.mqtt.client as mqtt
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_until

from table_controller.cli import main
from table_controller.feed.broker import table_ids, write_broker_config
from table_controller.feed.messages import Topics

TOPICS = Topics.of("euchre", "may")


def connect(
    port: int, user: str, password: str, *topics: str
) -> tuple[mqtt.Client, list[str], list[object]]:
    got: list[str] = []
    codes: list[object] = []
    ready = threading.Event()
    c = mqtt.Client(CallbackAPIVersion.VERSION2)
    c.username_pw_set(user, password)

    def on_connect(client: mqtt.Client, u: object, f: object, rc: object, p: object) -> None:
        codes.append(rc)
        if topics and not getattr(rc, "is_failure", False):
            client.subscribe([(t, 1) for t in topics])
        else:
            ready.set()

    c.on_connect = on_connect
    c.on_subscribe = lambda *a: ready.set()
    c.on_message = lambda cl, u, m: got.append(m.topic)
    c.connect("127.0.0.1", port)
    c.loop_start()
    assert ready.wait(60)
    return c, got, codes


def test_tables_write_only_their_own_topics_and_only_the_director_rules(tmp_path: Path) -> None:
    tables = table_ids(["2"])
    files = write_broker_config(tmp_path / "ev", TOPICS, tables, persistence=False)
    pw = files.passwords
    conf = (tmp_path / "ev" / "mosquitto.conf").read_text()
    head, _, rest = conf.partition("\nlistener ")  # its listener's own lines kept under ours
    with Mosquitto(tmp_path / "broker", head + "\n", listener=rest.split("\n", 1)[1]) as broker:
        director, seen, _ = connect(broker.port, "director", pw["director"], TOPICS.all_tables)
        # Each table also reads a topic of its own that the director writes last: a barrier.
        mine = {t: (TOPICS.rulings(t), TOPICS.received(t)) for t in ("table-1", "table-2")}
        t2, t2_got, _ = connect(
            broker.port, "table-2", pw["table-2"], TOPICS.rulings("table-1"), *mine["table-2"]
        )
        t1, t1_got, _ = connect(broker.port, "table-1", pw["table-1"], *mine["table-1"])
        for topic in (
            TOPICS.events("table-2"),  # another table's
            TOPICS.rulings("table-1"),  # a ruling from a table
            TOPICS.events("table-1"),  # its own: allowed
        ):
            t1.publish(topic, b"{}", qos=1).wait_for_publish(60)
        for topic in (TOPICS.rulings("table-1"), TOPICS.received("table-1")):
            director.publish(topic, b"{}", qos=1).wait_for_publish(60)
        director.publish(TOPICS.received("table-2"), b"{}", qos=1).wait_for_publish(60)
        # The broker routes each message as it takes it and delivers to each client in
        # order: once the director's last ones are in, anything wrongly let through is too.
        wait_until("the director's last", lambda: TOPICS.received("table-2") in seen)
        wait_until("table-1's mark", lambda: TOPICS.received("table-1") in t1_got)
        wait_until("table-2's mark", lambda: TOPICS.received("table-2") in t2_got)
        assert TOPICS.events("table-2") not in seen
        assert TOPICS.events("table-1") in seen
        assert seen.count(TOPICS.rulings("table-1")) == 1  # the director's only
        # table-1 its own rulings, from the director only; table-2 none of table-1's.
        assert t1_got == [TOPICS.rulings("table-1"), TOPICS.received("table-1")]
        assert t2_got == [TOPICS.received("table-2")]
        for c in (director, t1, t2):
            c.disconnect()
            c.loop_stop()
        _, _, codes = connect(broker.port, "table-1", "wrong password")
        assert getattr(codes[0], "is_failure", False)


def test_broker_config_command_writes_everything(tmp_path: Path) -> None:
    out = tmp_path / "ev"
    args = ["feed", "broker-config", "--event", "may", "--tables", "3", "--out", str(out)]
    assert main(args) == 0
    names = {p.name for p in out.iterdir()}
    assert {
        "mosquitto.conf",
        "passwords",
        "acl",
        "passwords.txt",
        "director.key",
        "director.pub",
    } <= names
    assert (out / "passwords").stat().st_mode & 0o077 == 0
    assert "user table-3" in (out / "acl").read_text()
