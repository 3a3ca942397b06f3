"""The director's subscriber: every table's feed into the store, rulings out to the tables.

One paho-mqtt client in its own network thread, QoS 1, a persistent session
(``clean_session=False`` and a fixed client id): while the director is stopped the
broker keeps its messages, and sends them when it comes back. The network thread only
queues what arrives; one writer thread stores everything waiting (up to ``batch_max``
messages) in one transaction, one fsync, and only then acknowledges each message to
the broker (paho's ``manual_ack``), so the broker forgets only what the store holds
however many messages share a commit; a message sent twice is stored once
(docs/director.md). A commit (an fsync) for each message alone was half the director's
time per message when profiled, and it ran in paho's thread, holding up the reading.

Each table's ``received`` mark (retained; docs/feed.md, "Delivery") tells it what the
store holds: per game, the highest seq held with every seq before it. The table keeps
everything after it as not yet safe and sends it again when it reconnects (the broker
may have forgotten messages it acknowledged when it was killed). The marks are kept in
memory, read from the store for a table first heard of, published when they move (at
most every ``mark_every`` seconds a table) and all again every ``mark_refresh`` seconds
and on every connect (a broker restarted from an old save may hold older ones).

A broker killed and restarted from an old save has no session for the director: until
the director subscribes again it drops what the tables send (they come back within
seconds of the broker, and may be first). The director's connect then says so
(``session_present`` false), and its marks carry ``since``, the time of that connect: a
table that heard an earlier one sends again from the mark at once, rather than after
its ``resend_after`` of a mark that does not move (docs/benchmarks.md, "The stall
after the broker's kill"). The director tries to reconnect every second. Its
marks also say how long the oldest message it has not yet stored has waited
(``behind``): a table waits that much longer before it resends, so a slow store is not
sent everything again on top of what it is storing.

Rulings are signed with the director's private key (``feed.signing``), name the game
and hand of the table's last status, and are stored and audited before they are
published. A table away when one is sent never gets it (its sessions are clean), and a
broker restarted forgets what it held: so every ruling the table has not answered is
published again, as signed, whenever a status says the table is online (at most every
``resend_after`` seconds); the table applies a ruling once and answers a copy as it
answered the first. Its answers (delivered, then applied or refused) are stored.
Topics are those of docs/feed.md, under ``prefix`` (``{feed.topic}/{event}``).

What a table sends is checked before it is stored (director/table_trust.py). Every
kind (events, status, acks, fleet answers, pictures) must carry the signature of the
key registered for it (feed/table_signing.py), when one is, and a status, an ack or a
fleet answer must come after the newest of its kind taken from that table
(feed/table_order.py): one without the signature, signed by another key, or an old one
sent again is not stored (it is acknowledged all the same, so the broker forgets it)
and raises one alert. And each table may send so much and no more
(feed/guard.py, its limits those of the store unless given:
feed/limits.py): beyond its rate, what it sends is dropped with one alert; a status
or a picture too big is refused. Messages handed to ``handle``/``handle_batch`` (tools,
tests) skip the rate, not the checks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode

from table_controller.director.dashboard import RulingError
from table_controller.director.fleet import TWIN_WINDOW, CopiedCards, handle_reply
from table_controller.director.json_value import JSONObject
from table_controller.director.store import (
    DirectorStore,
    EventMessage,
    StatusMessage,
    StoreError,
    StoreUnavailable,
)
from table_controller.director.table_trust import Decision, TableTrust
from table_controller.feed import messages
from table_controller.feed.guard import RateGuard
from table_controller.feed.limits import Limits, number_words
from table_controller.feed.signing import Ruling, sign
from table_controller.feed.table_signing import is_signed_kind
from table_controller.feed.tls import probe
from table_controller.rules.codec import encode
from table_controller.rules.events import HandVoided, InputEvent, ScoreAdjusted
from table_controller.seats import Team

if TYPE_CHECKING:  # paho names it only for type checkers
    from paho.mqtt.client import SocketLike

RULING_KINDS = ("confirm_renege", "dismiss_renege", "adjust_score", "void_hand")
# (what changed: "event"|"status"|"alert"|"ack"|"broker", table); "broker": the
# connection to the broker came or went (the dashboard's header says so).
Listener = Callable[[str, str], None]
BATCH_MAX = 500  # messages in one transaction at most (the broker's in-flight window is less)
RETRY = 1.0  # seconds between tries when the store cannot commit
# How long a thread of the director's process may hold the interpreter while another
# waits for it (Python's default is 5 ms): see ``take_turns``.
TURN_SECONDS = 0.001

log = logging.getLogger(__name__)


def take_turns(seconds: float = TURN_SECONDS) -> None:
    """Sets how long one of the director's threads may keep the interpreter while another
    waits (``sys.setswitchinterval``), for the process that runs the director.

    Its threads share one interpreter: paho's network thread, the writer, the results'
    worker and the dashboard's event loop. Paho's thread lets go of it at every read of
    the socket, then waits for it again behind a busy thread for up to the switch
    interval; with Python's 5 ms, a burst of messages queued behind the results' replay
    waited 5 ms a message. At 1 ms the card reaches a logged-in dashboard sooner at 256
    tables (docs/benchmarks.md, "Turns of the interpreter"), for a little more switching.
    A setting of the whole process, so the commands that run a director call it, not the
    service (tests and tools may hold several)."""
    sys.setswitchinterval(seconds)


@dataclass(frozen=True)
class _Inbound:
    """A message as paho handed it over, waiting for the writer. ``session`` is the
    connection it came on: its PUBACK goes out on that connection or not at all (a
    message id means another message on the next one; the broker resends it there)."""

    topic: str
    payload: bytes
    mid: int
    qos: int
    session: int
    at: float = 0.0  # when it arrived (the director's clock): how far behind the writer is
    retain: bool = False  # the broker's retained copy (sent on subscribing), not a new one
    dup: bool = False  # the broker's second try (its first was not acknowledged)


@dataclass
class _Outcome:
    """What a batch changed, applied once it is committed: the events stored (in order,
    for the marks) and what to tell the listeners (once per kind and table)."""

    stored: list[tuple[str, int, int]]
    tell: dict[tuple[str, str], None]
    taken: int = 0  # messages for the director (counted once committed: a retry is not)
    online: set[str] = field(default_factory=set)  # tables whose status says they are up


@dataclass(frozen=True)
class BrokerConfig:
    """Where the director's broker is and how the director logs in to it."""

    host: str = "localhost"
    port: int = 1883
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None  # a CA file: connect with TLS, checking the broker against it
    client_id: str = "director"
    keepalive: int = 15


class DirectorService:
    """Subscribes to every table of the event under ``prefix``; a listener hears of
    every change, once per batch for each kind of change and table, after the commit
    (in the director's writer thread: hand it over, never block)."""

    def __init__(
        self,
        store: DirectorStore,
        broker: BrokerConfig,
        *,
        prefix: str = "euchre/event",
        private_key: bytes | None = None,
        clock: Callable[[], float] = time.time,
        silent_check: float = 1.0,
        mark_every: float = 0.5,
        mark_refresh: float = 5.0,
        batch_max: int = BATCH_MAX,
        resend_after: float = 5.0,
        limits: Limits | None = None,
        twin_window: float = TWIN_WINDOW,
    ) -> None:
        self.store = store
        # The store's own limits unless given: what it keeps and what is taken agree.
        self.limits = limits if limits is not None else store.limits
        self._guard = RateGuard(self.limits.feed)
        self._trust = TableTrust(store)
        # The machine each status names: two at once as one table is a copied card.
        self._copies = CopiedCards(store, window=twin_window)
        self.refused = 0  # not stored: over a table's rate, too big, not signed, sent again
        self.broker = broker
        self.prefix = prefix.rstrip("/")
        self._key = private_key
        self._clock = clock
        self._silent_check = silent_check
        self._listeners: list[Listener] = []
        self.connected = threading.Event()
        self.problem: str | None = None  # the broker's last refusal or loss, in words
        self.arrived = 0  # messages paho handed over (stored or not yet: ``received``)
        self.received = 0
        self.batches = 0  # transactions the writer committed, acknowledged and told
        self.batched = 0  # the messages in them
        self._batch_max = max(1, batch_max)
        self._inbox: queue.Queue[_Inbound | None] = queue.Queue()
        self._writer: threading.Thread | None = None
        self._session = 0  # the connection's number: +1 at every connect and loss
        self._ack_lock = threading.Lock()
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None
        self._sub_mid: tuple[MQTTErrorCode | int, int | None] = (0, None)
        self._mark_every = mark_every
        self._mark_refresh = mark_refresh
        self._marks: dict[str, dict[int, int]] = {}  # table -> game -> contiguous high seq
        self._ahead: dict[tuple[str, int], set[int]] = {}  # seqs stored past a gap
        self._marks_lock = threading.Lock()
        self._mark_sent: dict[str, float] = {}
        self._mark_dirty: set[str] = set()
        self._refreshed = 0.0
        # When the broker last had no session for the director (None: not known; it kept it).
        self.since: float | None = None
        self._waiting_since: float | None = None  # the oldest message not yet stored came then
        self._resend_after = resend_after
        self._owed: set[str] | None = None  # tables with rulings not answered (None: unread)
        self._owed_lock = threading.Lock()
        self._client = self._make_client()

    def _make_client(self) -> mqtt.Client:
        c = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=self.broker.client_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
            manual_ack=True,  # acknowledged by the writer, once the store has committed
        )
        if self.broker.username is not None:
            c.username_pw_set(self.broker.username, self.broker.password)
        if self.broker.tls_ca is not None:
            c.tls_set(ca_certs=self.broker.tls_ca)
        # Every second: what the tables send before the director is back is dropped.
        c.reconnect_delay_set(min_delay=1, max_delay=1)
        c.max_inflight_messages_set(100)
        c.on_socket_open = self._on_socket_open
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        return c

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    # --- running --------------------------------------------------------------------

    def start(self) -> None:
        """Connect (in the background: a broker that is down is retried until it is up)."""
        self._stop.clear()
        if self.broker.tls_ca is not None:  # a wrong CA or name: said at once, in words
            self.problem = probe(self.broker.host, self.broker.port, self.broker.tls_ca)
            if self.problem is not None:
                log.error(self.problem)
        self._inbox = queue.Queue()
        self._writer = threading.Thread(target=self._write, daemon=True, name="director-writer")
        self._writer.start()
        self._client.connect_async(self.broker.host, self.broker.port, self.broker.keepalive)
        self._client.loop_start()
        self._timer = threading.Thread(
            target=self._watch_silence, daemon=True, name="director-silence"
        )
        self._timer.start()

    def stop(self) -> None:
        """Disconnect, then store what was already taken (not acknowledged any more: the
        connection is gone, so the broker sends it again next time, stored once)."""
        self._stop.set()
        with self._ack_lock:
            self._session += 1
        self._client.disconnect()
        self._client.loop_stop()
        if self._writer is not None:
            self._inbox.put(None)
            self._writer.join(timeout=30)
            if self._writer.is_alive():
                log.error("the director's writer did not finish storing within 30 s")
            self._writer = None
        if self._timer is not None:
            self._timer.join(timeout=5)
        self.connected.clear()

    def _watch_silence(self) -> None:
        tick = min(self._silent_check, self._mark_every)
        checked = 0.0
        while not self._stop.wait(tick):
            now = self._clock()
            try:
                self._flush_marks(now)
            except Exception:
                log.exception("publishing the received marks failed")
            if now - checked < self._silent_check:
                continue
            checked = now
            try:
                for _ in self.store.tables.check_silent(now):
                    self._tell("alert", "")
            except Exception:
                log.exception("checking the tables' heartbeats failed")

    # --- the received marks -------------------------------------------------------------

    def marks(self, table: str) -> dict[int, int]:
        """Per game, the highest seq stored from ``table`` with every seq before it."""
        with self._marks_lock:
            return dict(self._table_marks(table))

    def _table_marks(self, table: str) -> dict[int, int]:
        marks = self._marks.get(table)
        if marks is None:
            stored = self.store.events.received_marks(table)  # first: it may fail (the database)
            marks = self._marks[table] = {}
            for game, (high, ahead) in stored.items():
                marks[game] = high
                if ahead:
                    self._ahead[(table, game)] = set(ahead)
        return marks

    def _note(self, table: str, game: int, seq: int) -> None:
        """An event stored (new or again): move the table's mark over it if it can."""
        with self._marks_lock:
            marks = self._table_marks(table)
            high = marks.get(game, 0)
            if seq <= high:
                return
            ahead = self._ahead.setdefault((table, game), set())
            if seq > high + 1:
                ahead.add(seq)
                marks.setdefault(game, high)
                return
            high = seq
            while high + 1 in ahead:
                high += 1
                ahead.discard(high)
            marks[game] = high
            self._mark_dirty.add(table)
        if self._clock() - self._mark_sent.get(table, 0.0) >= self._mark_every:
            self._publish_mark(table)

    def _publish_mark(self, table: str) -> None:
        with self._marks_lock:
            games = dict(self._table_marks(table))
            self._mark_dirty.discard(table)
        now = self._clock()
        self._mark_sent[table] = now
        payload = messages.received_message(
            table=table,
            games=games,
            at=now,
            every=self._mark_refresh,
            since=self.since,
            behind=round(self.behind(now), 1),
        )
        self._client.publish(
            f"{self.prefix}/tables/{table}/received", json.dumps(payload), qos=1, retain=True
        )

    def behind(self, now: float) -> float:
        """How long the oldest message not yet stored has waited (0: none waits). A
        table whose mark does not move waits that much longer before it sends again:
        its events are here, in the writer's queue, not lost."""
        since = self._waiting_since
        return 0.0 if since is None else max(0.0, now - since)

    def _flush_marks(self, now: float, *, every_table: bool = False) -> None:
        """The marks that moved since they were last published, or all of them every
        ``mark_refresh`` seconds (the tables hear the director is there)."""
        if not self.connected.is_set():
            return
        if every_table or now - self._refreshed >= self._mark_refresh:
            self._refreshed = now
            with self._marks_lock:
                for t in self.store.tables.tables():
                    self._table_marks(str(t["table"]))
                due = set(self._marks)
        else:
            with self._marks_lock:
                due = {
                    t
                    for t in self._mark_dirty
                    if now - self._mark_sent.get(t, 0.0) >= self._mark_every
                }
        for table in sorted(due):
            self._publish_mark(table)

    # --- paho's callbacks (the network thread) ---------------------------------------

    def _on_socket_open(self, client: mqtt.Client, userdata: object, sock: SocketLike) -> None:
        # Without TCP_NODELAY small messages wait up to 40 ms for an ACK (Nagle). A
        # websocket's wrapper is no socket: it is left as it is.
        if isinstance(sock, socket.socket):  # TLS's socket too
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _on_connect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.ConnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        if reason.is_failure:
            self.problem = (
                f"the broker at {self.broker.host}:{self.broker.port} refused the director "
                f"({reason}): check the director's username and password (--broker-user)"
            )
            log.error(self.problem)
            self._tell("broker", "")
            return
        self.problem = None
        with self._ack_lock:
            self._session += 1
        base = f"{self.prefix}/tables/+"
        self._sub_mid = client.subscribe(
            [
                (f"{base}/events", 1),
                (f"{base}/status", 1),
                (f"{base}/acks", 1),
                (f"{base}/evidence/#", 1),
                (f"{base}/fleet/#", 1),  # what a fleet's table says of itself
            ]
        )
        if not flags.session_present:
            # The broker holds nothing for the director (a first start, or a broker that
            # lost it): what the tables sent before the subscription above was dropped.
            # The marks published from now on (after it: the broker takes them in order)
            # say so, and the tables send again from them.
            self.since = self._clock()
        # connected is set on SUBACK: from then on nothing sent to the tables' topics is missed

    def _on_subscribe(
        self,
        client: mqtt.Client,
        userdata: object,
        mid: int,
        reasons: list[ReasonCode],
        properties: Properties | None,
    ) -> None:
        if mid == self._sub_mid[1]:
            self.connected.set()
            self._tell("broker", "")
            # A broker restarted from an old save may hold older marks, or none.
            threading.Thread(
                target=self._flush_marks,
                args=(self._clock(),),
                kwargs={"every_table": True},
                daemon=True,
                name="director-marks",
            ).start()

    def _on_disconnect(
        self,
        client: mqtt.Client,
        userdata: object,
        flags: mqtt.DisconnectFlags,
        reason: ReasonCode,
        properties: Properties | None,
    ) -> None:
        self.connected.clear()
        self._tell("broker", "")
        with self._ack_lock:
            self._session += 1  # what is not yet acknowledged comes again on the next one
        if not self._stop.is_set():
            self.problem = (
                f"lost the broker at {self.broker.host}:{self.broker.port} ({reason}); "
                "reconnecting: check that mosquitto runs and the network is up"
            )
            log.warning(self.problem)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        # Only queued here: paho's thread goes on reading while the writer commits.
        with self._ack_lock:
            session = self._session
        self.arrived += 1
        now = self._clock()
        self._inbox.put(
            _Inbound(
                msg.topic, bytes(msg.payload), msg.mid, msg.qos, session, now, msg.retain, msg.dup
            )
        )

    # --- the writer -------------------------------------------------------------------

    def _write(self) -> None:
        """The writer thread: whatever is waiting (up to ``batch_max``) in one
        transaction, then its acks, marks and listeners; until stop() (what was queued
        before it is stored first)."""
        inbox = self._inbox
        while True:
            first = inbox.get()
            if first is None:
                return
            batch = [first]
            last = False
            while len(batch) < self._batch_max:
                try:
                    item = inbox.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    last = True
                    break
                batch.append(item)
            try:
                self._store_batch(batch)
            except Exception:
                log.exception("the director's writer failed on a batch of %d", len(batch))
            if last:
                return

    def _store_batch(self, batch: list[_Inbound]) -> None:
        """Store ``batch`` in one transaction, retried while the store cannot commit
        (nothing is acknowledged until it has: the broker keeps it); then acknowledge
        each message on the connection it came on, move the marks, tell the listeners."""
        if self._waiting_since is None:
            self._waiting_since = batch[0].at
        while True:
            try:
                outcome = self._store_all(batch)
                break
            except StoreError as exc:
                log.error(
                    "the director's store could not commit %d messages (%s): none is "
                    "acknowledged, so the broker keeps them; check the disk or the database "
                    "server the store is on. Trying again in %g s",
                    len(batch),
                    exc,
                    RETRY,
                )
                self._tell("store_problem", "")  # the dashboard says so
                if self._stop.wait(RETRY):
                    return  # stopped: the broker sends them again next time
        with self._ack_lock:
            for m in batch:
                if m.qos > 0 and m.session == self._session:
                    self._client.ack(m.mid, m.qos)
        self._apply(outcome)
        # The next message waiting came after this batch's last (none: nothing waits).
        self._waiting_since = None if self._inbox.empty() else batch[-1].at
        self.batched += len(batch)  # last: a batch counted is acknowledged and told
        self.batches += 1

    def _store_all(self, batch: list[_Inbound]) -> _Outcome:
        """One transaction. A message that cannot be stored is taken back alone, logged
        with its topic and acknowledged all the same (else the broker would resend it
        for ever); the store failing (StoreUnavailable: the disk, a lock, the server) takes
        the whole batch back, to be tried again."""
        outcome = _Outcome([], {})
        with self.store.batch():
            for m in batch:
                try:
                    self._take(
                        m.topic,
                        m.payload,
                        outcome,
                        m.at or None,
                        m.retain,
                        guard=m.session >= 0,
                        dup=m.dup,
                    )
                except StoreUnavailable:
                    raise
                except Exception:
                    log.exception("a message on %s could not be stored", m.topic)
        return outcome

    def _apply(self, outcome: _Outcome) -> None:
        """After the commit: the marks move over what was stored, the listeners hear."""
        self.received += outcome.taken
        for table, game, seq in outcome.stored:
            try:
                self._note(table, game, seq)
            except StoreUnavailable as exc:
                # Stored and acknowledged: the table's mark, read back from the store
                # the next time it is needed, will include it.
                log.warning("%s's received mark waits for the store (%s)", table, exc)
        for table in sorted(outcome.online):
            try:
                self._resend(table)
            except StoreError as exc:
                log.warning("%s's rulings not answered wait for the store (%s)", table, exc)
        for what, table in outcome.tell:
            self._tell(what, table)

    # --- messages ---------------------------------------------------------------------

    def handle(self, topic: str, payload: bytes, *, retained: bool = False) -> None:
        """Store one message from the broker (its own transaction) and tell the
        listeners; raises ``StoreError`` for a message that cannot be stored.
        ``retained``: the broker's retained copy (as paho's flag says)."""
        outcome = _Outcome([], {})
        self._take(topic, payload, outcome, retained=retained)
        self._apply(outcome)

    def handle_batch(self, messages_: list[tuple[str, bytes]]) -> None:
        """Store many (topic, payload) messages in one transaction, as the writer does
        (a bad one logged and skipped), then tell the listeners once per table."""
        self._apply(self._store_all([_Inbound(t, p, 0, 0, -1) for t, p in messages_]))

    def _take(
        self,
        topic: str,
        payload: bytes,
        outcome: _Outcome,
        received: float | None = None,
        retained: bool = False,
        *,
        guard: bool = False,
        dup: bool = False,
    ) -> None:
        """Store one message; what it changed goes into ``outcome``, for after the commit.
        ``received``: when it arrived (a status's clock offset is taken against it, not
        against when the writer got to it); ``retained``: the broker's retained copy;
        ``guard``: the table's rate applies (a message from the broker); ``dup``: the
        broker's second try of a message (``retained`` or ``dup``: a copy, which an old
        place refuses without an alert)."""
        tell = outcome.tell
        rest = topic[len(self.prefix) + 1 :] if topic.startswith(self.prefix + "/") else ""
        parts = rest.split("/")
        if len(parts) < 3 or parts[0] != "tables":
            log.warning("a message on %s is not for the director; ignored", topic)
            return
        table, kind = parts[1], parts[2]
        outcome.taken += 1
        now = received if received is not None else self._clock()
        if guard and not self._admitted(table, len(payload), now, outcome):
            return
        if kind == "evidence" and len(payload) > self.limits.picture_bytes:
            self._too_much(
                table,
                f"it sent a picture of {len(payload) // 1024} KB, over the "
                f"{self.limits.picture_kb} KB a picture may have (the director's limit "
                "picture_kb); it was not stored",
                now,
                outcome,
            )
            return
        if kind == "evidence" and len(parts) == 5:
            game, seq = int(parts[3]), int(parts[4])
            picture = self._picture(table, "evidence", game, seq, payload, now, outcome)
            if picture is None:
                return
            if not self.store.events.add_evidence(table, game, seq, picture):
                self._too_much(
                    table,
                    "its pictures have reached what the director keeps for one table (the "
                    "director's limits pictures_kept and pictures_mb); further pictures are "
                    "not stored",
                    now,
                    outcome,
                )
                return
            tell[("evidence", table)] = None
            return
        if kind == "evidence" and len(parts) == 6 and parts[5] == "clear":
            self._clear_picture(table, parts[3], parts[4], bytes(payload), now, outcome)
            return
        if not payload:
            return  # a retained message cleared
        try:
            body = json.loads(payload)
        except (ValueError, RecursionError) as exc:  # not JSON, too deep, a huge number
            raise StoreError(f"a message on {topic} is not JSON ({str(exc)[:200]})") from None
        if not isinstance(body, dict):
            raise StoreError(f"a message on {topic} is not a JSON object")
        if body.get("table", table) != table:
            raise StoreError(f"a message on {topic} says it is from {body.get('table')!r}")
        if kind == "status" and len(payload) > self.limits.status_bytes:
            self._too_much(
                table,
                f"it sent a status of {len(payload) // 1024} KB, over the "
                f"{self.limits.status_kb} KB a status may have (the director's limit "
                "status_kb); it was not stored",
                now,
                outcome,
            )
            return
        signed = f"fleet/{parts[3]}" if kind == "fleet" and len(parts) == 4 else kind
        decision: Decision | None = None
        if is_signed_kind(signed):
            decision = self._trust.message(table, signed, body, now, copy=retained or dup)
            if kind == "status" and decision.authentic and not decision.take:
                # Signed, but not after the newest status taken: the other machine of a
                # copied card, whose statuses interleave with this one's, shows here.
                self._machine(table, body, now, outcome, fresh=not (retained or dup))
            if not self._decided(table, decision, outcome):
                return
        body.setdefault("table", table)  # after the check: the signature is of what came
        if kind == "events":
            # the message as sent: the store checks each value before it keeps one
            new, alerts = self.store.events.add_event(cast(EventMessage, body))
            outcome.stored.append((table, int(body["game"]), int(body["seq"])))
            if new:
                tell[("event", table)] = None
            if alerts:
                tell[("alert", table)] = None
        elif kind == "status":
            alerts = self.store.tables.add_status(
                cast(StatusMessage, body), received=received, retained=retained
            )
            if body.get("online") is True:
                outcome.online.add(table)
            self._machine(table, body, now, outcome, fresh=not (retained or dup))
            tell[("status", table)] = None
            if alerts:
                tell[("alert", table)] = None
        elif kind == "acks":
            self.store.rulings.add_ack(body)
            tell[("ack", table)] = None
            tell[("ruling", table)] = None
        elif kind == "fleet" and len(parts) == 4:  # what a fleet's table says of itself
            now = received if received is not None else self._clock()
            handle_reply(self.store, table, parts[3], body, now)
            tell[("fleet", table)] = None
        if decision is not None:
            self._trust.taken(table, signed, decision)  # stored: its place is the newest

    def _machine(
        self, table: str, body: JSONObject, now: float, outcome: _Outcome, *, fresh: bool
    ) -> None:
        """The machine a fresh status of ``table`` names, kept; two at once: the alert."""
        if fresh and self._copies.heard(table, body, now):
            outcome.tell[("alert", table)] = None

    def _admitted(self, table: str, size: int, now: float, outcome: _Outcome) -> bool:
        """Whether the table's rate lets this message in; the first dropped of a flood
        raises the alert (one, however long the flood lasts)."""
        admission = self._guard.admit(table, size, now)
        if admission.ok:
            return True
        self.refused += 1
        if admission.first:
            lim = self.limits
            self._too_much(
                table,
                f"it sent more than the {number_words(lim.messages_per_second)} messages or "
                f"{number_words(lim.mb_per_second)} MB a second a table may send (the "
                "director's limits messages_per_second and mb_per_second); what came beyond "
                "that was dropped (its game events are sent again by the table, none is lost)",
                now,
                outcome,
                count=False,
            )
        return False

    def _too_much(
        self, table: str, what: str, now: float, outcome: _Outcome, *, count: bool = True
    ) -> None:
        """A table sent too much or too big: one ``flood`` alert while one is open."""
        if count:
            self.refused += 1
        text = (
            f"{table} is sending too much: {what}. A table does not do this by itself: "
            "check the table (restart it, update its software), and if it is not the "
            "table, someone has its broker password: give it a new one (docs/security.md)"
        )
        if self.store.alerts.alert_once(table, "flood", "flood", text, now) is not None:
            log.warning("%s", text)  # once an alert: not once a message of a flood
            outcome.tell[("alert", table)] = None
        else:
            log.debug("%s", text)

    def _decided(self, table: str, decision: Decision, outcome: _Outcome) -> bool:
        """Whether the checks let the message in; counted when not, the dashboard told
        of the alert it raised (director/table_trust.py)."""
        if decision.alerted:
            outcome.tell[("alert", table)] = None
        if not decision.take:
            self.refused += 1
        return decision.take

    def _picture(
        self,
        table: str,
        kind: str,
        game: int,
        seq: int,
        wire: bytes,
        now: float,
        outcome: _Outcome,
    ) -> bytes | None:
        """The picture's own bytes to store, None when it is refused (not signed by the
        table's registered key: one alert, director/table_trust.py)."""
        checked = self._trust.picture(table, kind, game, seq, bytes(wire), now)
        return checked.picture if self._decided(table, checked.decision, outcome) else None

    def _clear_picture(
        self,
        table: str,
        game_text: str,
        seq_text: str,
        wire: bytes,
        now: float,
        outcome: _Outcome,
    ) -> None:
        """A table's clearer picture of an event's card (docs/feed.md, "evidence"): it
        replaces the picture stored for that event of that table, the one the topic
        names (the broker lets a table write only its own); one for an event not held is
        refused, and the event, when it comes, brings the clearer picture itself."""
        numbers = [
            int(t) if t.isdecimal() and t.isascii() and len(t) <= 10 else 0
            for t in (game_text, seq_text)
        ]
        if not all(0 < n < 2**31 for n in numbers) or not wire:
            log.warning(
                "%s sent a clearer picture on evidence/%s/%s/clear, which names no event: refused",
                table,
                game_text[:20],
                seq_text[:20],
            )
            return
        game, seq = numbers
        picture = self._picture(table, "evidence/clear", game, seq, wire, now, outcome)
        if not picture:
            return  # refused (the alert says why), or a signature with no picture
        if not self.store.events.replace_evidence(table, game, seq, picture):
            log.warning(
                "%s sent a clearer picture of game %d's event %d before the director held"
                " that event: refused, nothing changed (the event, when it comes, carries"
                " the clearer picture)",
                table,
                game,
                seq,
            )
            return
        outcome.tell[("evidence", table)] = None

    def _tell(self, what: str, table: str) -> None:
        for listener in list(self._listeners):
            try:
                listener(what, table)
            except Exception:
                log.exception("a listener failed on %s", what)

    # --- rulings ----------------------------------------------------------------------

    def send_ruling(
        self,
        *,
        director: str,
        table: str,
        kind: str,
        reason: str,
        team: str | None = None,
        points: int | None = None,
    ) -> JSONObject:
        """Sign, store, audit and publish a ruling; returns the signed payload.
        ``director`` is the logged-in director (the caller checks the login)."""
        if not director:
            raise RulingError("a ruling needs the director's login: log in first")
        if not reason or not reason.strip():
            raise RulingError("a ruling needs a reason: write why, in a few words")
        if kind not in RULING_KINDS:
            raise RulingError(f"unknown ruling {kind!r}: one of {', '.join(RULING_KINDS)}")
        bad_id = messages.id_problem(table)
        if bad_id is not None:
            raise RulingError(bad_id)
        if self._key is None:
            raise RulingError(
                "the director has no signing key, so the tables would refuse its rulings: "
                "make one with `table-controller director keys` and start with --key"
            )
        event = _ruling_event(kind, reason.strip(), team, points)
        position = self.store.tables.table_position(table)
        if position is None:
            raise RulingError(
                f"table {table} has not said which game and hand it is playing (no status "
                "from it yet), so a ruling cannot name them: wait until the dashboard shows it"
            )
        ruling = Ruling(
            ruling_id=uuid.uuid4().hex,
            table=table,
            kind=kind,
            event=None if event is None else encode(event),
            reason=reason.strip(),
            director=director,
            at=self._clock(),
            game=position[0],
            hand=position[1],
        )
        payload = sign(ruling, self._key)
        self.store.rulings.add_ruling(payload)
        self._owing().add(table)
        self._publish_ruling(table, ruling.ruling_id, json.dumps(payload))
        self._tell("ruling", table)
        return payload

    def _owing(self) -> set[str]:
        """The tables with rulings not answered, read from the store the first time."""
        with self._owed_lock:  # the writer and a web request may both be first
            if self._owed is None:
                self._owed = {t for _, t, _, _ in self.store.rulings.unanswered()}
            return self._owed

    def _resend(self, table: str) -> None:
        """The table is online: publish again each ruling it has not answered, as signed,
        if it was last sent ``resend_after`` seconds ago or more."""
        owed = self._owing()
        if table not in owed:
            return
        rulings = self.store.rulings.unanswered(table)
        if not rulings:
            owed.discard(table)
            return
        now = self._clock()
        for ruling_id, _, payload, sent_at in rulings:
            if now - sent_at >= self._resend_after:
                self.store.rulings.ruling_sent(ruling_id, table)
                self._publish_ruling(table, ruling_id, payload)

    @property
    def private_key(self) -> bytes | None:
        """The director's signing key (PEM), None when it has none: orders are signed
        with it too (the fleet's camera commands)."""
        return self._key

    def publish(self, topic: str, payload: bytes | str, retain: bool = False) -> None:
        """Publish on the director's own connection (qos 1): an order to a table. Queued
        by paho while the broker is away; dropped with a log line if it cannot be."""
        info = self._client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            log.error("a message on %s could not be queued (%s)", topic, info.rc)

    def _publish_ruling(self, table: str, ruling_id: str, payload: str) -> None:
        info = self._client.publish(f"{self.prefix}/tables/{table}/rulings", payload, qos=1)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            log.error("the ruling %s could not be queued (%s)", ruling_id, info.rc)


def _ruling_event(
    kind: str, reason: str, team: str | None, points: int | None
) -> InputEvent | None:
    """The input event a ruling carries to the table (None: nothing changes there)."""
    if kind == "confirm_renege":
        return None
    if kind == "void_hand":
        return HandVoided(reason)
    if team not in ("NS", "EW"):
        raise RulingError(
            "say which team the points are for: choose North–South or East–West in the form"
        )
    if points is None or isinstance(points, bool) or not isinstance(points, int) or points == 0:
        raise RulingError("say how many points: a whole number, negative to take points away")
    # A dismissal gives back the penalty whichever way the rules scored it: points given
    # to the other side are taken away (-2), points taken from the offenders given back.
    return ScoreAdjusted(Team[team], points, reason)


__all__ = ["RULING_KINDS", "BrokerConfig", "DirectorService", "take_turns"]
