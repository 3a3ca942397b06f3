"""The director's service against a real mosquitto on a loopback port: a real simulated
table's game arrives (redelivered messages stored once), a renege raises an alert, a table
that drops off is marked offline by its last will, a director that was stopped gets what
was sent meanwhile (persistent session), and a ruling is signed, published, verified by
the table and audited with its ack."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
import waiting
from mosquitto import Mosquitto
from paho.mqtt.enums import CallbackAPIVersion
from postgres import Postgres
from test_director_store import TABLE, real_game, replayed

from table_controller.director.dashboard import RulingError
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore, StoreError
from table_controller.feed.signing import RulingRejected, new_keys, verify

PREFIX = "euchre/spring-open"
WAIT = 60.0  # only against a hang: every wait is for a condition


def wait_until(what: str, cond: Callable[[], bool], timeout: float = WAIT) -> None:
    waiting.wait_until(what, cond, timeout)


def start_broker(folder: Path) -> Mosquitto:
    """A real mosquitto on a free loopback port (tests/mosquitto.py), anonymous, keeping
    the director's persistent session in its folder across a restart."""
    conf = (
        f"allow_anonymous true\npersistence true\npersistence_location {folder}/\n"
        "max_queued_messages 100000\n"
    )
    return Mosquitto(folder, conf).start()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    b = start_broker(tmp_path / "broker")
    yield b
    b.stop()


def client(broker: Mosquitto, name: str, **will: Any) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=name, protocol=mqtt.MQTTv311)
    if will:
        c.will_set(**will)
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    return c


def publish(c: mqtt.Client, topic: str, body: Any, *, retain: bool = False) -> None:
    payload = body if isinstance(body, bytes) else json.dumps(body)
    c.publish(topic, payload, qos=1, retain=retain).wait_for_publish(WAIT)


@pytest.fixture
def keys() -> tuple[bytes, bytes]:
    return new_keys()


@pytest.fixture
def service(
    broker: Mosquitto, store_target: str, keys: tuple[bytes, bytes]
) -> Iterator[DirectorService]:
    """The director's service, once on each kind of store (SQLite, PostgreSQL)."""
    store = DirectorStore(store_target)
    svc = DirectorService(
        store,
        BrokerConfig(port=broker.port, client_id="director-test"),
        prefix=PREFIX,
        private_key=keys[0],
    )
    svc.start()
    assert svc.connected.wait(WAIT)
    yield svc
    svc.stop()
    store.close()


def topic(kind: str, table: str = TABLE) -> str:
    return f"{PREFIX}/tables/{table}/{kind}"


def test_a_real_game_arrives_once_with_its_renege_alert(
    service: DirectorService, broker: Mosquitto
) -> None:
    messages, images = real_game()
    table = client(broker, "table-club-night-3")
    changes: list[tuple[str, str]] = []
    service.listen(lambda what, t: changes.append((what, t)))
    for m in messages + messages[:5]:  # the first five redelivered
        publish(table, topic("events"), m)
    for (game, seq), png in images.items():
        publish(table, topic(f"evidence/{game}/{seq}"), png)
    store = service.store
    wait_until("every event stored", lambda: store.events.count_events() == len(messages))
    wait_until(
        "every image stored", lambda: all(store.events.evidence(TABLE, g, s) for g, s in images)
    )
    assert [e["input"] for e in store.events.events(TABLE, 1)] == [m["input"] for m in messages]
    assert store.projections.projection(TABLE, 1).game.state_key() == replayed(messages).state_key()
    renege = [a for a in store.alerts.alerts() if a["kind"] == "renege_proven"]
    assert len(renege) == 1 and renege[0]["table"] == TABLE
    assert ("alert", TABLE) in changes
    table.loop_stop()
    table.disconnect()


def test_a_table_that_drops_off_is_marked_offline_by_its_last_will(
    service: DirectorService, broker: Mosquitto
) -> None:
    will = json.dumps({"v": 1, "table": TABLE, "online": False, "at": time.time()})
    table = client(broker, "table-will", topic=topic("status"), payload=will, qos=1, retain=True)
    status = {
        "v": 1,
        "table": TABLE,
        "online": True,
        "at": time.time(),
        "every": 5,
        "game": 1,
        "hand": 1,
        "phase": "bidding",
        "scores": [0, 0],
        "players": {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"},
        "faults": [
            {
                "device": "cube",
                "what": "the trump cube",
                "problem": "unplugged",
                "fix": "plug it back in",
                "since": 3.0,
            }
        ],
        "backlog": 0,
    }
    publish(table, topic("status"), status, retain=True)
    store = service.store
    wait_until(
        "the table online",
        lambda: bool(store.tables.tables()) and store.tables.tables()[0]["online"],
    )
    assert [a["kind"] for a in store.alerts.alerts()] == ["cube_fault"]
    # The network goes: the socket closes without a DISCONNECT, the broker sends the will.
    table.loop_stop()
    sock = table.socket()
    assert sock is not None
    sock.shutdown(socket.SHUT_RDWR)
    sock.close()
    wait_until("the table offline", lambda: not store.tables.tables()[0]["online"])
    kinds = sorted(a["kind"] for a in store.alerts.alerts())
    assert kinds == ["cube_fault", "table_offline"]
    assert "offline" in next(
        a["text"] for a in store.alerts.alerts() if a["kind"] == "table_offline"
    )


def test_what_is_sent_while_the_director_is_stopped_arrives_when_it_starts(
    broker: Mosquitto, tmp_path: Path
) -> None:
    messages, _ = real_game()
    store = DirectorStore(tmp_path / "d.sqlite")
    config = BrokerConfig(port=broker.port, client_id="director-persistent")
    first = DirectorService(store, config, prefix=PREFIX)
    first.start()
    assert first.connected.wait(WAIT)
    table = client(broker, "table-persist")
    half = len(messages) // 2
    for m in messages[:half]:
        publish(table, topic("events"), m)
    wait_until("the first half", lambda: store.events.count_events() == half)
    first.stop()
    for m in messages[half:]:
        publish(table, topic("events"), m)  # the broker keeps them for the director
    second = DirectorService(store, config, prefix=PREFIX)
    second.start()
    wait_until("the rest, after the restart", lambda: store.events.count_events() == len(messages))
    second.stop()
    table.loop_stop()
    table.disconnect()


def test_a_ruling_is_signed_published_verified_and_audited_with_its_ack(
    service: DirectorService, broker: Mosquitto, keys: tuple[bytes, bytes]
) -> None:
    _, public = keys
    table = client(broker, "table-rulings")
    received: list[dict[str, Any]] = []

    def on_message(c: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        payload = json.loads(msg.payload)
        received.append(payload)
        try:
            ruling = verify(payload, public, table=TABLE, now=time.time())
            ack = {
                "v": 1,
                "table": TABLE,
                "ruling_id": ruling.ruling_id,
                "ok": True,
                "problem": None,
                "at": time.time(),
            }
        except RulingRejected as exc:
            ack = {
                "v": 1,
                "table": TABLE,
                "ruling_id": payload.get("ruling_id"),
                "ok": False,
                "problem": str(exc),
                "at": time.time(),
            }
        c.publish(topic("acks"), json.dumps(ack), qos=1)

    subscribed = threading.Event()
    table.on_message = on_message
    table.on_subscribe = lambda *args: subscribed.set()
    table.subscribe(topic("rulings"), qos=1)
    assert subscribed.wait(WAIT)  # SUBACK: the broker will pass the ruling on
    with pytest.raises(RulingError, match="reason"):
        service.send_ruling(
            director="ann", table=TABLE, kind="adjust_score", reason=" ", team="NS", points=1
        )
    with pytest.raises(RulingError, match="login"):
        service.send_ruling(director="", table=TABLE, kind="void_hand", reason="misdeal")
    # No team: asked for in words (a dismissal's sign is the rules': 003 gave the other
    # side points, taken back with -2; 000 took them from the offenders, given back +2).
    with pytest.raises(RulingError, match="North–South or East–West"):
        service.send_ruling(
            director="ann", table=TABLE, kind="dismiss_renege", reason="not a renege", points=2
        )
    with pytest.raises(RulingError, match="which game and hand"):
        service.send_ruling(director="ann", table=TABLE, kind="void_hand", reason="misdeal")
    assert service.store.rulings.rulings() == []
    status = {"v": 1, "table": TABLE, "online": True, "at": time.time(), "every": 60.0}
    service.handle(topic("status"), json.dumps({**status, "game": 1, "hand": 2}).encode())
    sent = service.send_ruling(
        director="ann",
        table=TABLE,
        kind="dismiss_renege",
        reason="the card was a left bower",
        team="NS",
        points=-2,
    )
    assert (sent["game"], sent["hand"]) == (1, 2)  # bound to the table's game and hand
    assert sent["event"] == {
        "event": "score_adjusted",
        "team": "NS",
        "points": -2,
        "reason": "the card was a left bower",
    }
    wait_until("the table's ack", lambda: service.store.rulings.rulings()[0]["ack_ok"] is not None)
    (ruling,) = service.store.rulings.rulings()
    assert ruling["ack_ok"] is True and ruling["director"] == "ann"
    assert received[0]["sig"] == sent["sig"]
    audit = service.store.accounts.audit()
    assert [(a["action"], a["who"]) for a in audit] == [
        ("ruling_sent", "ann"),
        ("ruling_applied", f"table {TABLE}"),
    ]
    # A tampered ruling is refused by the table, and that refusal is audited too.
    forged = dict(sent, reason="changed on the way", ruling_id="forged")
    publish(client(broker, "intruder"), topic("rulings"), forged)
    wait_until("the refusal", lambda: len(service.store.accounts.audit()) == 3)
    assert service.store.accounts.audit()[2]["action"] == "ruling_refused"
    table.loop_stop()
    table.disconnect()


def test_the_director_carries_on_after_the_broker_restarts(
    service: DirectorService, broker: Mosquitto
) -> None:
    messages, _ = real_game()
    half = len(messages) // 2
    told: list[tuple[str, str]] = []
    service.listen(lambda what, table: told.append((what, table)))
    table = client(broker, "table-restart")
    for m in messages[:half]:
        publish(table, topic("events"), m)
    wait_until("the first half", lambda: service.store.events.count_events() == half)
    table.loop_stop()
    table.disconnect()
    broker.restart()
    wait_until("the director reconnected", service.connected.is_set)
    # The dashboard is told the connection went and came back (its header says so),
    # though no table sent anything meanwhile.
    wait_until("both told", lambda: told.count(("broker", "")) >= 2)
    table = client(broker, "table-restart")
    for m in messages:  # the table resends what it is not sure of: stored once
        publish(table, topic("events"), m)
    wait_until("the rest", lambda: service.store.events.count_events() == len(messages))
    assert [e["seq"] for e in service.store.events.events(TABLE, 1)] == [m["seq"] for m in messages]
    table.loop_stop()
    table.disconnect()


# --- batching: many messages in one transaction, acknowledged only once committed -----


def publish_all(c: mqtt.Client, items: list[tuple[str, bytes]]) -> None:
    """Publish every (topic, payload) at once (QoS 1), then wait for the broker's acks."""
    infos = [c.publish(t, p, qos=1) for t, p in items]
    for info in infos:
        info.wait_for_publish(WAIT)


def event_payloads(messages: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    return [(topic("events"), json.dumps(m).encode()) for m in messages]


def test_a_burst_is_stored_once_in_one_transaction_with_its_bad_messages_left_out(
    service: DirectorService, broker: Mosquitto
) -> None:
    """The writer is held (the test holds the store's lock) while the broker delivers a
    burst: what the writer had taken waits at the store, the rest queue up; released,
    they are committed together, the bad ones (not JSON, an input the rules do not know) taken
    back alone and logged, every other one stored once, in order, and each table's
    listeners told once for the batch."""
    messages, _ = real_game()
    good = messages[:9]  # with the bad ones, within the broker's 20 messages in flight
    bad_event = dict(messages[9], input={"event": "nonsense"})
    burst = [
        *event_payloads(good[:4]),
        (topic("events"), b"{not json"),
        (topic("events"), json.dumps(bad_event).encode()),
        *event_payloads(good[4:]),
    ]
    changes: list[tuple[str, str]] = []
    service.listen(lambda what, t: changes.append((what, t)))
    table = client(broker, "table-burst")
    store = service.store
    with store.core.lock:  # the writer cannot begin its transaction
        publish_all(table, burst)
        wait_until("the burst at the director", lambda: service.arrived == len(burst))
        assert service.received == 0 and store.events.count_events() == 0
    wait_until("the burst stored and acknowledged", lambda: service.batched == len(burst))
    # The writer had taken what was waiting when it began (at least the first message);
    # everything that came while it waited went into its next transaction.
    assert service.batches <= 2
    assert [e["seq"] for e in store.events.events(TABLE, 1)] == [m["seq"] for m in good]
    assert [e["input"] for e in store.events.events(TABLE, 1)] == [m["input"] for m in good]
    assert changes.count(("event", TABLE)) == service.batches  # once a batch, not a message
    assert service.marks(TABLE) == {1: good[-1]["seq"]}
    # Every message of the burst was acknowledged, the bad ones too: the director comes
    # back and gets only what is sent after (a message is delivered in order, so once
    # the next one is stored nothing of the burst is coming again).
    service.stop()
    service.start()
    assert service.connected.wait(WAIT)
    publish(table, topic("events"), messages[9])
    wait_until("the next event", lambda: store.events.count_events() == len(good) + 1)
    wait_until("it counted", lambda: service.received >= len(burst) + 1)
    assert service.received == len(burst) + 1  # and nothing of the burst again
    table.loop_stop()
    table.disconnect()


CRASHING_DIRECTOR = """
import sys, threading
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store.parts import DirectorStore, StoreError

def stuck(self, batch):  # the process is killed while the batch is being stored
    print("taken", len(batch), self._inbox.qsize(), flush=True)
    threading.Event().wait()

DirectorService._store_all = stuck
svc = DirectorService(DirectorStore(sys.argv[1]),
                      BrokerConfig(port=int(sys.argv[2]), client_id="director-crash"),
                      prefix=sys.argv[3])
svc.start()
svc.connected.wait(30)
print("subscribed", flush=True)
threading.Event().wait()
"""


def test_the_director_killed_before_its_commit_loses_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """A director process killed (SIGKILL) with messages received and not yet committed:
    it had not acknowledged them, so the broker delivers them again to the next one."""
    import subprocess
    import sys

    path = tmp_path / "director.sqlite"
    DirectorStore(path).close()
    child = subprocess.Popen(
        [sys.executable, "-c", CRASHING_DIRECTOR, str(path), str(broker.port), PREFIX],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    messages, _ = real_game()
    table = client(broker, "table-crash")
    try:
        assert child.stdout is not None
        assert child.stdout.readline().split() == ["subscribed"]
        publish_all(table, event_payloads(messages))  # the broker holds them all
        taken = child.stdout.readline().split()
        assert taken[0] == "taken" and int(taken[1]) >= 1
    finally:
        child.kill()
        child.wait(WAIT)
    store = DirectorStore(path)
    assert store.events.count_events() == 0  # nothing was committed
    svc = DirectorService(
        store, BrokerConfig(port=broker.port, client_id="director-crash"), prefix=PREFIX
    )
    svc.start()
    try:
        wait_until(
            "every event, after the crash", lambda: store.events.count_events() == len(messages)
        )
        assert [e["input"] for e in store.events.events(TABLE, 1)] == [m["input"] for m in messages]
        # The marks move just after the commit (count_events may see it first).
        wait_until("the mark", lambda: svc.marks(TABLE) == {1: messages[-1]["seq"]})
    finally:
        svc.stop()
        store.close()
        table.loop_stop()
        table.disconnect()


def test_on_postgresql_the_database_crashing_mid_event_loses_nothing(
    broker: Mosquitto,
) -> None:
    """The director on a PostgreSQL store (its own server, tests/postgres.py), the server
    crashed halfway through a game: the director cannot commit, so it acknowledges
    nothing and the broker keeps the messages; the server back, the director's writer
    connects again and stores every event once, in order."""
    messages, _ = real_game()
    half = len(messages) // 2
    server = Postgres().start()
    store = DirectorStore(server.new_database())
    svc = DirectorService(
        store, BrokerConfig(port=broker.port, client_id="director-pg"), prefix=PREFIX
    )
    svc.start()
    table = client(broker, "table-pg")
    try:
        assert svc.connected.wait(WAIT)
        publish_all(table, event_payloads(messages[:half]))
        wait_until("the first half", lambda: svc.batched == half)
        server.crash()
        publish_all(table, event_payloads(messages[half:]))
        wait_until("the rest at the director", lambda: svc.arrived >= len(messages))
        assert svc.batched == half  # nothing more acknowledged while the database is down
        server.start()
        wait_until("every event, after the crash", lambda: svc.batched >= len(messages))
        assert [e["seq"] for e in store.events.events(TABLE, 1)] == [m["seq"] for m in messages]
        assert (
            store.projections.projection(TABLE, 1).game.state_key()
            == replayed(messages).state_key()
        )
        assert svc.marks(TABLE) == {1: messages[-1]["seq"]}
    finally:
        svc.stop()
        store.close()
        server.close()
        table.loop_stop()
        table.disconnect()


def test_on_postgresql_a_write_failing_half_way_takes_its_batch_back_then_only_itself(
    postgres: Postgres, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """On PostgreSQL an event is written without a savepoint of its own (its message is
    checked in full first). Should its write fail anyway, half done (here the server
    refuses a statement after the event's row went in), the whole batch is taken back
    and nothing of it is acknowledged; the next try, the same messages, writes each
    within its own savepoint, so the one that fails is taken back alone."""
    import table_controller.director.store.alerts as store_alerts

    messages, _ = real_game()
    batch = [(topic("events"), json.dumps(m).encode()) for m in messages[:6]]
    store = DirectorStore(postgres.new_database())
    svc = DirectorService(store, BrokerConfig(port=1, client_id="unused"), prefix=PREFIX)
    real = store_alerts.event_alerts

    def failing(inp: Any, outputs: Any) -> Any:
        if inp == messages[2]["input"]:
            store.db.execute("SELECT 1 / 0")  # a real error from the server
        return real(inp, outputs)

    monkeypatch.setattr(store_alerts, "event_alerts", failing)
    with pytest.raises(StoreError, match="none of the batch was kept"):
        svc.handle_batch(batch)
    assert store.events.count_events() == 0
    svc.handle_batch(batch)  # the writer's next try
    assert [e["seq"] for e in store.events.events(TABLE, 1)] == [
        m["seq"] for i, m in enumerate(messages[:6]) if i != 2
    ]
    assert "division by zero" in caplog.text
    monkeypatch.setattr(store_alerts, "event_alerts", real)
    svc.handle_batch(batch)  # and back to the fast way, the missing one stored
    assert store.events.count_events() == 6
    store.close()


def test_a_retained_old_heartbeat_raises_no_clock_alert(broker: Mosquitto, tmp_path: Path) -> None:
    """The broker hands a starting director each table's retained status, however old:
    its `at` is minutes behind because it waited, not because the table's clock is."""
    table = client(broker, "table-retained")
    old = {"v": 1, "table": TABLE, "online": True, "at": time.time() - 600, "every": 5.0}
    publish(table, topic("status"), old, retain=True)
    store = DirectorStore(tmp_path / "d.sqlite")
    svc = DirectorService(store, BrokerConfig(port=broker.port, client_id="d-clock"), prefix=PREFIX)
    svc.start()
    try:
        wait_until("the retained status", lambda: bool(store.tables.tables()))
        assert store.tables.tables()[0]["clock_offset"] is None
        assert store.alerts.alerts() == []
        publish(table, topic("status"), {**old, "at": time.time()}, retain=True)  # live
        wait_until("a live heartbeat", lambda: store.tables.tables()[0]["clock_offset"] is not None)
        assert abs(store.tables.tables()[0]["clock_offset"]) < 2  # the same machine's clock
        assert store.alerts.alerts() == []
    finally:
        svc.stop()
        table.loop_stop()
        table.disconnect()
        store.close()
