"""Nothing lost, nothing counted twice, end to end: real tables' logs (games played by the
rules core, logged in real EventLogs, sent by the real Publisher) through a real mosquitto
run as an event runs it (persistence on, users and ACLs from feed/broker.py) to the real
director's service and store. The broker killed with SIGKILL while it held messages it
had acknowledged; the director stopped and started again; a table's network cut; the
table's process killed and started again. Each time the store ends with every logged
event exactly once, as logged."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import waiting
from mosquitto import Mosquitto, free_port

from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store import DirectorStore
from table_controller.event_log import EventLog
from table_controller.feed import messages
from table_controller.feed.broker import mosquitto_conf, write_broker_config
from table_controller.feed.outbox import Outbox
from table_controller.feed.publisher import FeedSettings, Publisher
from table_controller.rules.codec import encode
from table_controller.sim.loadgen import RulesTable

TOPICS = messages.Topics.of("euchre", "recovery")
TABLES = ["table-1", "table-2"]
WAIT = 60.0  # only against a hang: every wait is for a condition
ROOT = Path(__file__).resolve().parents[1]


def wait_until(what: str, cond: Callable[[], bool], timeout: float = WAIT) -> None:
    waiting.wait_until(what, cond, timeout)


@dataclass
class Event:
    folder: Path
    broker: Mosquitto
    passwords: dict[str, str]
    store: DirectorStore

    def director(self, port: int | None = None) -> DirectorService:
        svc = DirectorService(
            self.store,
            BrokerConfig(
                host="127.0.0.1",
                port=port or self.broker.port,
                username="director",
                password=self.passwords["director"],
                client_id="director-recovery",
            ),
            prefix=TOPICS.prefix,
            mark_every=0.1,
            mark_refresh=0.5,
        )
        svc.start()
        wait_until("the director subscribed", svc.connected.is_set)
        return svc

    def settings(
        self, table: str, port: int | None = None, resend_after: float = 1.0
    ) -> FeedSettings:
        return FeedSettings(
            table=table,
            topics=TOPICS,
            broker="127.0.0.1",
            port=port or self.broker.port,
            username=table,
            password=self.passwords[table],
            heartbeat=0.5,
            backoff=(0.05, 0.3),
            resend_after=resend_after,
        )


@contextlib.contextmanager
def an_event(tmp_path: Path, store_at: str | Path) -> Iterator[Event]:
    """The event's broker as `feed broker-config` writes it (persistence on, passwords,
    ACLs), on a free loopback port, and the director's store at ``store_at``."""
    folder = tmp_path / "broker"
    files = write_broker_config(folder, TOPICS, TABLES)
    conf = mosquitto_conf(files.folder)
    head, _, rest = conf.partition("\nlistener ")  # its listener's own lines kept under ours
    broker = Mosquitto(files.folder, head + "\n", listener=rest.split("\n", 1)[1]).start()
    store = DirectorStore(store_at)
    try:
        yield Event(files.folder, broker, files.passwords, store)
    finally:
        broker.kill()
        store.close()


@pytest.fixture
def event(tmp_path: Path) -> Iterator[Event]:
    """An event with the director's store in SQLite."""
    with an_event(tmp_path, tmp_path / "director.sqlite") as ev:
        yield ev


@pytest.fixture
def any_event(tmp_path: Path, store_target: str) -> Iterator[Event]:
    """An event with the director's store in SQLite, then in PostgreSQL."""
    with an_event(tmp_path, store_target) as ev:
        yield ev


class Playing:
    """One table playing in a thread of its own: an event logged every ``every`` seconds
    into its real log, its real Publisher told after each."""

    def __init__(
        self,
        path: Path,
        settings: FeedSettings,
        seed: int,
        every: float = 0.005,
        clock: Callable[[], float] = time.time,
    ):
        self.path = path
        self.table = RulesTable(path, name=settings.table, seed=seed)
        self.pub = Publisher(settings, path, clock=clock)
        self.every = every
        self.logged = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Playing:
        self.pub.start()
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.logged += len(self.table.step())
            self.pub.notify()
            self.pub.set_status(self.table.status())
            time.sleep(self.every)

    def pause(self) -> None:
        """No more events; the publisher goes on sending."""
        self._stop.set()
        self._thread.join(10)

    def until(self, count: int) -> None:
        target = self.logged + count
        wait_until(f"{count} more events logged", lambda: self.logged >= target)

    def stop(self) -> None:
        self.pause()
        self.pub.stop()
        self.table.close()


def logged(path: Path) -> dict[tuple[int, int], dict[str, Any]]:
    with EventLog.open_existing(path) as log:
        return {
            (e.game, e.seq): messages.secret_free(encode(e.event))
            for g in log.games()
            for e in log.events(g.game)
        }


def stored(store: DirectorStore, table: str) -> dict[tuple[int, int], dict[str, Any]]:
    return {(e["game"], e["seq"]): e["input"] for e in store.events.events(table)}


def every_event_once(store: DirectorStore, table: str, path: Path) -> None:
    """The store holds exactly the log's events (keys unique by its primary key)."""
    want = logged(path)
    wait_until(
        f"{table}'s {len(want)} events in the store",
        lambda: len(stored(store, table)) >= len(want),
    )
    assert stored(store, table) == want


def test_broker_killed_with_acknowledged_messages_loses_nothing(event: Event) -> None:
    """The director is away, so the broker holds what it acknowledged, in memory (its
    save is periodic); it is killed -9 and restarted from its old save: those messages
    are gone from it, and the tables send them again from the director's mark."""
    svc = event.director()
    tables = [
        Playing(event.folder / f"{t}.sqlite", event.settings(t), seed=i).start()
        for i, t in enumerate(TABLES)
    ]
    try:
        for p in tables:
            p.until(60)
        svc.stop()  # the broker now keeps the director's messages (and PUBACKs them)
        for p in tables:
            p.until(80)
        for p in tables:
            box = Outbox(p.path)
            wait_until(
                "the broker took events the director has not",
                lambda b=box: b.cursor() > b.safe(),  # type: ignore[misc]
            )
            box.close()
        event.broker.kill()
        for p in tables:
            p.until(20)  # the tables play on while the broker is down
        event.broker.start()
        svc = event.director()
        for p in tables:
            p.until(40)
            p.pause()
        for p in tables:
            every_event_once(event.store, p.pub.settings.table, p.path)
    finally:
        for p in tables:
            p.stop()
        svc.stop()


@pytest.mark.slow(budget=30)  # the broker killed and restarted, the director cut off
def test_the_director_back_after_the_tables_has_what_they_sent_meanwhile(
    any_event: Event,
) -> None:
    """The broker killed -9 and restarted from its save (older than the director's
    subscription): the table is back first and sends to a broker that holds no session
    for the director, so drops it. The director, back later, says so in its marks
    (``since``), and the table sends again from the mark at once: nothing waits for
    ``resend_after`` (an hour here: no mark stuck that long makes up for it)."""
    event = any_event
    director_net = Proxy(event.broker.port)  # the director's network, cut by the test
    director_net.up()
    svc = event.director(port=director_net.port)
    settings = event.settings("table-1", resend_after=3600.0)
    p = Playing(event.folder / "t.sqlite", settings, seed=31, every=0.02).start()
    try:
        p.until(40)
        box = Outbox(p.path)
        wait_until("the table heard the director's mark", lambda: box.safe() > (0, 0))
        first = svc.since
        assert first is not None  # the broker had no session for it: its first start
        event.broker.kill()
        director_net.cut()  # the director comes back after the table
        wait_until("the director lost the broker", lambda: not svc.connected.is_set())
        wait_until("the table lost the broker", lambda: p.pub.problem is not None)
        p.until(10)
        event.broker.start()
        wait_until("the table is back", lambda: p.pub.problem is None)
        p.until(10)
        last = max(logged(p.path))
        wait_until("the broker took events with no director", lambda: box.cursor() >= last)
        box.close()
        assert (stored(event.store, "table-1").keys() & {last}) == set()
        director_net.up()
        wait_until("the director is back", svc.connected.is_set)
        assert svc.since is not None and svc.since > first
        p.until(10)
        p.pause()
        every_event_once(event.store, "table-1", p.path)
        assert p.pub.resumes == 1  # sent again once, on the director's word
        assert p.pub.resends == 0  # not for a mark stuck resend_after
    finally:
        p.stop()
        svc.stop()
        director_net.cut()


def test_a_director_behind_its_store_is_waited_for_not_resent_to(event: Event) -> None:
    """The director's writer held (a slow store) while the table's events arrive: the
    director has them, queued, and its marks, still coming, say how far behind it is
    (``behind``). The table waits that much longer than ``resend_after`` (2 s; the
    clock moved on 6 s) and sends nothing again; released, every event is stored once."""
    clock = waiting.ShiftedClock()
    svc = DirectorService(
        event.store,
        BrokerConfig(
            host="127.0.0.1",
            port=event.broker.port,
            username="director",
            password=event.passwords["director"],
            client_id="director-recovery",
        ),
        prefix=TOPICS.prefix,
        clock=clock,
        mark_every=0.1,
        mark_refresh=0.5,
    )
    held, release = threading.Event(), threading.Event()
    store_all = svc._store_all

    def slow(batch: Any) -> Any:  # a store that takes as long as the test says
        held.set()
        release.wait(WAIT)
        return store_all(batch)

    svc.start()
    wait_until("the director subscribed", svc.connected.is_set)
    settings = event.settings("table-1", resend_after=2.0)
    p = Playing(event.folder / "t.sqlite", settings, seed=41, every=0.02, clock=clock).start()
    try:
        p.until(30)
        wait_until("stored", lambda: len(stored(event.store, "table-1")) >= 20)
        svc._store_all = slow  # type: ignore[method-assign]
        wait_until("the writer held", held.is_set)
        p.until(20)
        p.pause()
        last = max(logged(p.path))
        box = Outbox(p.path)
        wait_until("the broker took them all", lambda: box.cursor() >= last)
        box.close()
        wait_until("the director has them, queued", lambda: svc.arrived >= svc.received + 20)
        # Three times resend_after, the director's marks coming all along (a step at a
        # time: a mark not heard for twice its period would mean the director was away).
        for _ in range(24):
            clock.advance(0.25)
            step = clock()
            wait_until("a mark heard", lambda s=step: (p.pub._mark_heard or 0.0) > s)  # type: ignore[misc]
        assert svc.behind(clock()) >= 6.0
        assert p.pub.resends == 0  # waited for: the director has them
        release.set()
        every_event_once(event.store, "table-1", p.path)
        assert p.pub.resends == 0
    finally:
        release.set()
        p.stop()
        svc.stop()


def test_director_stopped_and_restarted_loses_nothing_and_is_not_flooded(
    event: Event,
) -> None:
    svc = event.director()
    clock = waiting.ShiftedClock()
    p = Playing(event.folder / "t.sqlite", event.settings("table-1"), seed=5, clock=clock)
    p.start()
    try:
        p.until(40)
        svc.stop()
        clock.advance(1.5)  # past resend_after: the director is away, nothing is resent
        p.until(150)
        last = max(logged(p.path))
        box = Outbox(p.path)  # the broker took events logged after the clock moved on
        wait_until("the broker took what was logged", lambda: box.cursor() >= last)
        box.close()
        assert p.pub.resends == 0
        svc = event.director()
        p.until(40)
        p.pause()
        every_event_once(event.store, "table-1", p.path)
        assert p.pub.resends == 0  # the broker kept them for the director: no resend
        assert p.pub.resumes == 0  # it kept the director's session: nothing to say
    finally:
        p.stop()
        svc.stop()


DIRECTOR_PROCESS = """
import sys, time
from table_controller.director.service import BrokerConfig, DirectorService
from table_controller.director.store.parts import DirectorStore
path, port, password, prefix = sys.argv[1:]
store_all = DirectorService._store_all

def slow(self, batch):  # a slow disk: messages wait in the director's queue
    time.sleep(0.05)
    return store_all(self, batch)

DirectorService._store_all = slow
config = BrokerConfig(host="127.0.0.1", port=int(port), username="director",
                      password=password, client_id="director-recovery")
svc = DirectorService(DirectorStore(path), config, prefix=prefix, mark_every=0.1,
                      mark_refresh=0.5)
svc.start()
svc.connected.wait(30)
while True:  # how many messages it has stored and acknowledged, until it is killed
    print(svc.batched, flush=True)
    time.sleep(0.01)
"""


def test_the_director_process_killed_mid_stream_loses_nothing(event: Event) -> None:
    """The director's own process killed -9 while tables play at full speed, its store
    slow (50 ms a batch) so that messages wait in its queue, whatever it was doing
    (messages received, a batch half stored, acknowledgements on their way): what it
    had not committed it had not acknowledged, so the broker delivers it again to the
    next director (its persistent session); what it had, is stored once. The broker
    alone makes up for the kill: no table has to resend from the director's mark."""
    path = event.store.name  # the SQLite file
    child = subprocess.Popen(
        [sys.executable, "-c", DIRECTOR_PROCESS, str(path), str(event.broker.port),
         event.passwords["director"], TOPICS.prefix],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    tables: list[Playing] = []
    svc: DirectorService | None = None
    try:
        assert child.stdout is not None
        assert int(child.stdout.readline()) >= 0  # it runs
        tables = [
            Playing(event.folder / f"{t}.sqlite", event.settings(t), seed=i + 20).start()
            for i, t in enumerate(TABLES)
        ]
        for line in child.stdout:
            if int(line) >= 150:  # mid-stream
                break
        child.kill()
        child.wait(WAIT)
        for p in tables:
            p.until(30)  # the tables play on without a director
        svc = event.director()
        for p in tables:
            p.until(30)
            p.pause()
        for p in tables:
            every_event_once(event.store, p.pub.settings.table, p.path)
        assert [p.pub.resends for p in tables] == [0, 0]
    finally:
        if child.poll() is None:
            child.kill()
        for p in tables:
            p.stop()
        if svc is not None:
            svc.stop()


class Proxy:
    """A TCP relay the test can cut (every connection closed, the port refusing) and
    restore: the table's network."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._socks: list[socket.socket] = []
        self._server: socket.socket | None = None
        self._lock = threading.Lock()

    def up(self) -> None:
        server = socket.create_server(("127.0.0.1", self.port))
        self._server = server
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                a, _ = server.accept()
            except OSError:
                return
            b = socket.create_connection(("127.0.0.1", self.target))
            with self._lock:
                self._socks += [a, b]
            for x, y in ((a, b), (b, a)):
                threading.Thread(target=self._pump, args=(x, y), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        if self._server is not None:
            with contextlib.suppress(OSError):  # wakes the accept() (close alone does not)
                self._server.shutdown(socket.SHUT_RDWR)
            self._server.close()
            self._server = None
        with self._lock:
            socks, self._socks = self._socks, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


def received_order(store: DirectorStore, table: str) -> list[tuple[int, int]]:
    """The events in the order the store first took them."""
    with store.core.lock:  # read-only peek at the store's own record of arrival
        rows = store.db.execute(
            "SELECT game, seq FROM events WHERE tbl = ? ORDER BY received, game, seq", (table,)
        ).rows
    return [(int(g), int(s)) for g, s in rows]


def test_a_table_cut_off_sends_its_backlog_in_order(event: Event) -> None:
    svc = event.director()
    proxy = Proxy(event.broker.port)
    proxy.up()
    p = Playing(event.folder / "t.sqlite", event.settings("table-2", proxy.port), seed=9)
    p.start()
    try:
        p.until(30)
        proxy.cut()
        wait_until("the table sees the cut", lambda: p.pub.problem is not None)
        p.until(150)  # the backlog grows while the table plays on
        assert len(stored(event.store, "table-2")) < p.logged
        proxy.up()
        wait_until("the table is back", lambda: p.pub.problem is None)
        p.until(30)
        p.pause()
        every_event_once(event.store, "table-2", p.path)
    finally:
        p.stop()
        svc.stop()
        proxy.cut()
    order = received_order(event.store, "table-2")
    assert order == sorted(order)  # the backlog arrived in order


def test_the_table_process_killed_resumes_from_the_directors_mark(event: Event) -> None:
    svc = event.director()
    path = event.folder / "killed.sqlite"
    s = event.settings("table-1")

    secret = event.folder / "table-1.pw"
    secret.write_text(s.password)

    def run(events: int) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "-m", "table_controller.sim.loadgen", str(path),
             "--table", "table-1", "--port", str(s.port), "--event", "recovery",
             "--username", "table-1", "--password-file", str(secret),
             "--events", str(events), "--every", "0.005"],
            cwd=ROOT, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    try:
        child = run(0)
        assert child.stdout is not None
        seen = 0
        for line in child.stdout:
            seen += line.startswith("logged")
            if seen >= 120:
                break
        child.kill()  # SIGKILL mid-game: events logged, not all sent
        child.wait(10)
        child = run(60)
        assert child.wait(WAIT) == 0
        every_event_once(event.store, "table-1", path)
    finally:
        svc.stop()


def test_the_safe_point_is_read_against_the_tables_own_log(tmp_path: Path) -> None:
    """The director's per-game marks count only where they cover the log with no hole:
    a game's tail missing holds the point there, whatever later games hold."""
    table = RulesTable(tmp_path / "t.sqlite", name="t", seed=2)
    while len(table.log.games()) < 3 or table.log.next_seq(3) < 5:
        table.step()
    last = {g.game: table.log.next_seq(g.game) - 1 for g in table.log.games()}
    table.close()
    box = Outbox(tmp_path / "t.sqlite")
    try:
        assert box.safe_from({}) == (0, 0)
        assert box.safe_from({1: 7}) == (1, 7)
        assert box.safe_from({1: last[1], 2: 3}) == (2, 3)
        assert box.safe_from({1: last[1] - 1, 2: last[2], 3: 4}) == (1, last[1] - 1)
        assert box.safe_from({1: last[1], 3: 4}) == (1, last[1])  # game 2 not begun there
        assert box.safe_from({g: n + 10 for g, n in last.items()}) == (3, last[3])
    finally:
        box.close()


def test_the_directors_marks_skip_nothing_after_a_gap(tmp_path: Path) -> None:
    store = DirectorStore(tmp_path / "d.sqlite")
    msg = {"v": 1, "table": "t", "at": 1.0, "source": "camera", "outputs": [],
           "hand": None, "evidence": False,
           "input": {"event": "dealer_chosen", "seat": "N"}}  # fmt: skip
    for game, seq in [(1, 1), (1, 2), (1, 4), (1, 5), (2, 2)]:
        store.events.add_event({**msg, "game": game, "seq": seq})
    assert store.events.received_marks("t") == {1: (2, [4, 5]), 2: (0, [2])}
    svc = DirectorService(store, BrokerConfig(port=free_port()), prefix=TOPICS.prefix)
    svc._note("t", 1, 3)  # the gap filled: the mark runs on over what was stored past it
    assert svc.marks("t") == {1: 5, 2: 0}
    assert messages.director_position(svc.marks("t")) == (1, 5)
    store.close()


def test_only_the_director_may_write_a_tables_received_mark(event: Event) -> None:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    got: list[bytes] = []

    def connect(user: str) -> mqtt.Client:
        c = mqtt.Client(CallbackAPIVersion.VERSION2)  # a random client id each
        c.username_pw_set(user, event.passwords[user])
        c.connect("127.0.0.1", event.broker.port)
        c.loop_start()
        return c

    reader = connect("table-1")  # a table reads its own mark
    reader.on_message = lambda c, u, m: got.append(bytes(m.payload))
    subscribed = threading.Event()
    reader.on_subscribe = lambda *a: subscribed.set()
    wait_until("the reader connected", reader.is_connected)
    reader.subscribe(TOPICS.received("table-1"), qos=1)
    assert subscribed.wait(WAIT)
    forger = connect("table-2")
    forger.publish(TOPICS.received("table-1"), b"forged by table-2", qos=1).wait_for_publish(WAIT)
    # (one connection a user: a second table-1 would take the reader's client id)
    reader.publish(TOPICS.received("table-1"), b"forged by table-1", qos=1).wait_for_publish(WAIT)
    director = connect("director")
    director.publish(TOPICS.received("table-1"), b"the director's", qos=1).wait_for_publish(WAIT)
    wait_until("the director's mark", lambda: b"the director's" in got)
    assert got == [b"the director's"]  # the broker dropped both forgeries
    for c in (reader, forger, director):
        c.disconnect()
        c.loop_stop()
