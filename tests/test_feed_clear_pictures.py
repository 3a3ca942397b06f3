"""The camera's clearer pictures over the feed, against a real mosquitto on a free port:
each follows its event on ``evidence/{game}/{seq}/clear`` (docs/feed.md), once; an event
sent after its clearer picture was logged carries that picture itself; the director's
store replaces the event's picture with it, and refuses, in one line of its log, one for
an event it does not hold, changing nothing."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
import waiting
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion

from table_controller.cards import Card
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.outbox import Outbox
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.rules.events import CardPlayed, DealerChosen, Passed
from table_controller.seats import Seat

GUARD = 60.0  # only against a hang: every wait is for a condition
TOPICS = messages.Topics.of("euchre", "test-night")
TABLE = "club-night-3"
FIRST, CLEAR = b"\xff\xd8\xff first picture", b"\xff\xd8\xff clearer picture"


def wait_for(what: str, check: object) -> None:
    waiting.wait_until(what, check, GUARD)


class Subscriber:
    """A plain paho client keeping every message of the event's tables, in order."""

    def __init__(self, port: int) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"sub-{port}")
        self.client.on_message = lambda c, u, m: self._keep(m)
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(TOPICS.all_tables, qos=1)
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _keep(self, m: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((m.topic, bytes(m.payload)))

    def feed(self) -> list[tuple[str, bytes]]:
        """What the table sent (its heartbeats left out)."""
        with self.lock:
            return [(t, p) for t, p in self.got if not t.endswith("/status")]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def event_key(topic: str, payload: bytes) -> tuple[int, int] | None:
    if not topic.endswith("/events"):
        return None
    body = json.loads(payload)
    return (int(body["game"]), int(body["seq"]))


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    with Mosquitto(tmp_path / "broker") as b:
        yield b


def new_log(path: Path) -> EventLog:
    log = EventLog(path, table="Club Night 3")
    log.start_game("td-tournament", {}, {s: s.name for s in Seat})
    log.append(1, 1, DealerChosen(Seat.N), source="director")
    return log


def publisher(broker: Mosquitto, log: EventLog) -> Publisher:
    settings = FeedSettings(table=TABLE, topics=TOPICS, broker="127.0.0.1", port=broker.port)
    p = Publisher(settings, log.path)
    p.start()
    assert p.connected_event.wait(GUARD)
    return p


def test_a_clearer_picture_follows_its_event_once(broker: Mosquitto, tmp_path: Path) -> None:
    sub = Subscriber(broker.port)
    assert sub.subscribed.wait(GUARD)
    log = new_log(tmp_path / "t.sqlite")
    played = CardPlayed(Seat.E, Card.parse("JH"))
    log.append(1, 2, played, source="camera", evidence=FIRST)
    feed = publisher(broker, log)
    try:
        event_2 = TOPICS.evidence(TABLE, 1, 2)
        wait_for("event 2 and its picture", lambda: (event_2, FIRST) in sub.feed())
        # The camera's clearer picture comes after: it follows the event, on its own.
        log.replace_evidence(1, 2, CLEAR)
        feed.notify()
        clear_2 = TOPICS.clear_evidence(TABLE, 1, 2)
        wait_for("the clearer picture", lambda: (clear_2, CLEAR) in sub.feed())
        got = sub.feed()
        keys = [event_key(t, p) for t, p in got]
        assert keys.index((1, 2)) < got.index((clear_2, CLEAR))
        # An event logged with its clearer picture already, before it was sent: its
        # picture goes as the clearer one.
        outbox = Outbox(log.path)
        wait_for("the broker has both", lambda: outbox.pictures_cursor() == 1)
        log.append(1, 3, Passed(Seat.S), source="button")
        log.append(1, 4, CardPlayed(Seat.S, Card.parse("9H")), source="camera", evidence=FIRST)
        log.replace_evidence(1, 4, CLEAR)
        feed.notify()
        wait_for("event 4", lambda: (1, 4) in [event_key(t, p) for t, p in sub.feed()])
        assert (TOPICS.evidence(TABLE, 1, 4), CLEAR) in sub.feed()
        wait_for("the pictures' cursor", lambda: outbox.pictures_cursor() == 2)
        outbox.close()
    finally:
        feed.stop()
        sub.close()
        log.close()
    got = sub.feed()
    assert [t for t, _ in got].count(clear_2) == 1  # once
    for topic, _ in got:  # every message on the table's own topics
        assert topic.startswith(TOPICS.table(TABLE) + "/")


def test_the_director_replaces_the_picture_and_refuses_one_for_an_unknown_event(
    broker: Mosquitto, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = DirectorStore(tmp_path / "director.sqlite")
    service = DirectorService(
        store, BrokerConfig(port=broker.port, client_id="director-test"), prefix=TOPICS.prefix
    )
    service.start()
    assert service.connected.wait(GUARD)
    log = new_log(tmp_path / "t.sqlite")
    log.append(1, 2, CardPlayed(Seat.E, Card.parse("JH")), source="camera", evidence=FIRST)
    feed = publisher(broker, log)
    try:
        wait_for("the first picture", lambda: store.events.evidence(TABLE, 1, 2) == FIRST)
        log.replace_evidence(1, 2, CLEAR)
        feed.notify()
        wait_for("the clearer picture", lambda: store.events.evidence(TABLE, 1, 2) == CLEAR)
        assert store.events.count_events() == 2  # each event once
        # One for an event the director does not hold: refused, said, nothing changed.
        with caplog.at_level(logging.WARNING, logger="table_controller.director.service"):
            service.handle(TOPICS.clear_evidence(TABLE, 1, 9), b"\xff\xd8\xff other")
            service.handle(TOPICS.clear_evidence("club-night-4", 1, 2), b"\xff\xd8\xff other")
        refused = [r.getMessage() for r in caplog.records if "clearer picture" in r.message]
        assert len(refused) == 2 and all("refused, nothing changed" in m for m in refused)
        assert "game 1's event 9" in refused[0] and refused[1].startswith("club-night-4 ")
        assert (
            store.events.evidence(TABLE, 1, 9) is None
            and store.events.evidence("club-night-4", 1, 2) is None
        )
        assert store.events.evidence(TABLE, 1, 2) == CLEAR and store.events.count_events() == 2
    finally:
        feed.stop()
        log.close()
        service.stop()
        store.close()
