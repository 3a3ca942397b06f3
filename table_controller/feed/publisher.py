"""The table's side of the feed: its logged events to the director's broker, in order,
and the director's signed rulings back.

One worker thread owns the state; paho-mqtt's network thread only posts what happened
(connected, PUBACK, a message) to the worker's queue. Each connection is a fresh paho
client with a clean session, so nothing is resent behind the worker's back. A broker's
PUBACK only paces the sending (at most ``max_inflight`` events unacknowledged; the
outbox's cursor moves over events whose every message the broker acknowledged): an
event is safe once the director's retained ``received`` mark covers it, since a broker
killed forgets what it took since its last save. So every connect sends from the
director's mark, in order; and while connected, when the director's own mark (it comes
every few seconds) says, ``resend_after`` seconds into a stall, that it still lacks
events the broker took that long before, the worker sends again from the mark. The
director's mark also says (``since``) when the broker last had no session for it: a
broker restarted from an old save drops what a table sends before the director is
subscribed again, so a ``since`` later than the one heard before means "send again from
the mark", at once. The director's store keeps one copy of each (table, game, seq).
The camera's clearer pictures (one at most an event, written to the log after it)
follow their events on ``evidence/{game}/{seq}/clear``, in the order written, each once
its event has been sent, with a cursor of their own (outbox.py).
The broker being down never stops the table: the events wait in the log, the FEED
fault says so, and it clears when the backlog starts flowing again.
With a signing key (``[feed] signing_key``; a fleet's table gets one when approved)
everything the table sends carries its signature (feed/table_signing.py): its events,
its status (its last will too), its answers to rulings, its fleet answers, and its
pictures (feed/picture_signing.py); a director that registered the key stores nothing of
this table's that is not signed. Its status and answers also carry their place in the
table's order (feed/table_order.py: this start's number, kept in the log, the
connection's, the message's), so an old one sent again is refused.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from table_controller.feed import messages
from table_controller.feed.outbox import Outbox, OutboxError, Position
from table_controller.feed.picture_signing import sign_picture
from table_controller.feed.signing import MAX_AGE, Ruling, RulingRejected, verify
from table_controller.feed.table_order import Places, is_ordered, placed
from table_controller.feed.table_signing import (
    TableKeyError,
    is_signed_kind,
    load_private,
    sign_message,
)
from table_controller.feed.tls import client_context, refused

# A message the table signs: an event, a status, its last will, an answer.
_Payload = TypeVar("_Payload", bound=Mapping[str, object])

log = logging.getLogger(__name__)

StateListener = Callable[[str | None, str], None]  # (problem or None when well, what to do)
OrderListener = Callable[[str, dict[str, Any]], None]  # ("config" | "commands", payload)
BROKER_FIX = (
    "check that the director's broker is running and the network cable or Wi-Fi; the table "
    "keeps playing and sends everything when the broker is back"
)


@dataclass(frozen=True)
class FeedSettings:
    """Where and how a table sends its feed (from ``[feed]``, see docs/feed.md)."""

    table: str  # the table's id (messages.table_id of its name)
    topics: messages.Topics
    broker: str = "localhost"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls_ca: Path | None = None
    # False: tls_ca is an event's own authority (a fleet's table), which signs only the
    # director's certificates: checked against it, not against the address reached.
    tls_check_name: bool = True
    director_key: bytes | None = None  # the director's public key (PEM)
    signing_key: bytes | None = None  # the table's own private key (PEM): it signs with it
    heartbeat: float = 10.0
    max_inflight: int = 20
    keepalive: int = 30
    backoff: tuple[float, float] = (0.2, 10.0)  # first and longest wait between attempts
    ruling_max_age: float = MAX_AGE
    resend_after: float = 10.0  # the director's mark stuck this long over acked events


@dataclass
class _Sent:
    position: Position
    mids: set[int] = field(default_factory=set)


class Publisher:
    """Sends one table's log to the broker. ``notify()`` after each durable append;
    ``set_status()`` with the table's state for the heartbeat; ``answer()`` a ruling.
    ``on_ruling``, ``on_state`` and ``on_order`` (the director's config and commands,
    unverified: fleet/orders.py verifies them) are called from the worker thread;
    ``send()`` answers the director on ``fleet(table, kind)``."""

    def __init__(
        self,
        settings: FeedSettings,
        log_path: str | Path,
        *,
        on_ruling: Callable[[Ruling], None] | None = None,
        on_state: StateListener | None = None,
        on_order: OrderListener | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.settings = settings
        self._signer = (
            None
            if settings.signing_key is None
            else load_private(settings.signing_key, where="[feed] signing_key")
        )
        self._places: Places | None = None  # this start's count (with a key: it signs)
        self.log_path = Path(log_path)
        self.on_ruling = on_ruling
        self.on_state = on_state
        self.on_order = on_order
        self._clock = clock
        self._items: queue.Queue[tuple[Any, ...]] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._client: mqtt.Client | None = None
        self._connected = False
        self._window: deque[_Sent] = deque()
        self._by_mid: dict[int, _Sent] = {}
        self._sent: Position = (0, 0)
        self._pictures_sent = 0  # the last clearer picture sent (its ``n``)
        self._picture_mids: dict[int, int] = {}  # clearer pictures not yet PUBACKed
        self._status: dict[str, Any] | None = None
        self._status_urgent: Any = None
        self._next_beat = 0.0
        self._next_attempt = 0.0
        self._delay = settings.backoff[0]
        self._pending_rulings: set[str] = set()
        self._acked: deque[tuple[Position, float]] = deque()  # PUBACKed, not yet confirmed
        self._safe: Position = (0, 0)
        self._mark_heard: float | None = None  # when the director's mark last came
        self._mark_every = 0.0
        self._stuck_since = 0.0
        self.resends = 0  # how many times the worker sent again from the director's mark
        self._since: float | None = None  # the director's ``since`` last heard
        self._behind = 0.0  # how far behind its store the director last said it was
        self.resumes = 0  # sent again from the mark because the director's ``since`` moved
        self.problem: str | None = "not connected yet"
        self._leave_offline = True
        self.connected_event = threading.Event()  # set while connected (for tests)
        t = settings.topics
        self._events_topic = t.events(settings.table)
        self._status_topic = t.status(settings.table)
        self._rulings_topic = t.rulings(settings.table)
        self._acks_topic = t.acks(settings.table)
        self._received_topic = t.received(settings.table)
        # The director's orders (fleet/orders.py): its topic's kind by topic.
        self._order_topics = {
            t.config(settings.table): "config",
            t.commands(settings.table): "commands",
        }

    # --- from the table (any thread) ---------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="feed-publisher", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """New events are in the log."""
        self._items.put(("notify",))

    def set_status(self, status: Mapping[str, Any]) -> None:
        """The table's state for the heartbeat: game, hand, phase, scores, players,
        faults, name (messages.status_message's keyword arguments but table, at, every,
        backlog)."""
        self._items.put(("status", dict(status)))

    def answer(self, ruling_id: str, ok: bool, problem: str | None) -> None:
        """The table applied the ruling (ok) or could not (problem)."""
        self._items.put(("answer", ruling_id, ok, problem))

    def send(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Publish ``payload`` on ``fleet(table, kind)`` (qos 1): a config ack, a camera
        view, an update's progress. Dropped, with a log line, when not connected: the
        sender repeats (a config is acked again when its retained order comes again).
        ValueError for a ``kind`` no topic of the fleet's may name (its lowercase word)."""
        if not is_signed_kind(f"fleet/{kind}"):
            raise ValueError(
                f"{kind[:40]!r} is not a kind of fleet answer: a lowercase word, as "
                "config, camera or update"
            )
        self._items.put(("send", kind, dict(payload)))

    def stop(self, timeout: float = 3.0, *, offline: bool = True) -> None:
        """Send what can be sent within ``timeout``, leave the offline status, close.
        ``offline`` False: a table started again at once (a fleet's table taking its
        new config) leaves its online status, so the director sees no gap."""
        if self._thread is None:
            return
        self._leave_offline = offline
        self._items.put(("stop", self._clock() + timeout))
        self._thread.join(timeout + 5.0)
        self._thread = None

    # --- the worker ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            outbox = Outbox(self.log_path)
        except OutboxError as exc:
            self._state(str(exc), "check [table] log and the disk, then restart the table")
            return
        self._outbox = outbox
        self._safe = outbox.safe()
        if self._signer is not None:
            try:
                self._places = Places(outbox.start_boot(self._clock()))
            except OutboxError as exc:
                outbox.close()
                self._state(str(exc), "check [table] log and the disk, then restart the table")
                return
        stop_by: float | None = None
        try:
            while True:
                now = self._clock()
                if stop_by is not None and (now >= stop_by or not self._busy()):
                    break
                if self._client is None and now >= self._next_attempt and stop_by is None:
                    self._connect()
                if self._connected and now >= self._next_beat:
                    self._beat()
                if self._connected:
                    self._check_lag(now)
                wait = self._wait(now)
                try:
                    item = self._items.get(timeout=wait)
                except queue.Empty:
                    continue
                if item[0] == "stop":
                    stop_by = float(item[1])
                    continue
                try:
                    self._handle(item)
                except OutboxError as exc:
                    self._state(str(exc), "check the disk the log is on")
        finally:
            self._close()
            outbox.close()

    def _busy(self) -> bool:
        if not self._connected:
            return False
        if self._window or self._picture_mids or self._outbox.backlog(self._sent) > 0:
            return True
        waiting = self._outbox.pictures_after(self._pictures_sent, 1)
        return bool(waiting) and waiting[0].position <= self._sent

    def _wait(self, now: float) -> float:
        deadlines = [now + 1.0]
        if self._client is None:
            deadlines.append(self._next_attempt)
        if self._connected:
            deadlines.append(self._next_beat)
        return max(0.0, min(deadlines) - now)

    def _handle(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "notify":
            self._fill()
        elif kind == "status":
            self._status = item[1]
            # A fault raised or cleared, a card across a line or pushed in: say it now.
            urgent = (item[1].get("faults"), item[1].get("across"))
            if urgent != self._status_urgent:
                self._status_urgent = urgent
                self._next_beat = 0.0
        elif kind == "answer":
            _, ruling_id, ok, problem = item
            self._pending_rulings.discard(ruling_id)
            self._ack(ruling_id, ok, problem)
        elif kind == "send":
            self._send(item[1], item[2])
        elif item[1] is not self._client:
            return  # from a connection already given up
        elif kind == "connack":
            self._on_connack(item[2])
        elif kind == "gone":
            self._lost(f"the connection to the broker was lost ({item[2]})")
        elif kind == "puback":
            self._on_puback(item[2])
        elif kind == "message":
            if item[2].topic == self._received_topic:
                self._on_mark(item[2])
            elif item[2].topic in self._order_topics:
                self._on_order(item[2])
            else:
                self._on_ruling(item[2])

    # --- connecting ----------------------------------------------------------------------

    def _connect(self) -> None:
        s = self.settings
        client = mqtt.Client(
            CallbackAPIVersion.VERSION2,
            client_id=f"table-{s.table}",
            clean_session=True,
            protocol=mqtt.MQTTv311,
        )
        if s.username:
            client.username_pw_set(s.username, s.password or None)
        if s.tls_ca is not None:
            client.tls_set_context(client_context(s.tls_ca, check_name=s.tls_check_name))
        if self._places is not None:
            self._places.connected()
        offline = messages.offline_message(table=s.table, at=self._clock())
        offline = self._signed("status", offline, last_word=True)
        client.will_set(self._status_topic, json.dumps(offline), qos=1, retain=True)
        client.max_inflight_messages_set(max(s.max_inflight * 2 + 10, 20))
        post = self._items.put
        client.on_connect = lambda c, u, f, rc, p: post(("connack", c, rc))
        client.on_disconnect = lambda c, u, f, rc, p: post(("gone", c, rc))
        client.on_publish = lambda c, u, mid, rc, p: post(("puback", c, mid))
        client.on_message = lambda c, u, m: post(("message", c, m))
        try:
            client.connect(s.broker, s.port, keepalive=s.keepalive)
        except ssl.SSLCertVerificationError as exc:
            self._retry(refused(s.broker, s.port, exc), longer=True)
            return
        except (OSError, ValueError) as exc:
            self._retry(f"the broker {s.broker}:{s.port} cannot be reached ({exc})")
            return
        sock = client.socket()
        # Without TCP_NODELAY (Nagle) small messages wait ~40 ms at p99: measured with
        # mosquitto and paho on loopback (the project's shared design notes, "measured facts").
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._client = client
        client.loop_start()

    def _on_connack(self, rc: Any) -> None:
        client = self._client
        assert client is not None
        if getattr(rc, "is_failure", False):
            if "password" in str(rc).lower() or "authori" in str(rc).lower():
                problem = (
                    f"the broker refused this table's username or password ({rc}): check "
                    "[feed] username and password against the event's password list"
                )
            else:
                problem = f"the broker refused the connection ({rc})"
            self._drop()
            self._retry(problem, longer=True)
            return
        self._connected = True
        self.connected_event.set()
        self._delay = self.settings.backoff[0]
        self._window.clear()
        self._by_mid.clear()
        self._acked.clear()
        self._safe = self._outbox.safe()
        self._sent = self._safe  # the broker may have lost what it took: the director says
        self._pictures_sent = self._outbox.pictures_cursor()
        self._stuck_since = self._clock()
        topics = [(self._rulings_topic, 1), (self._received_topic, 1)]
        if self.on_order is not None:
            topics += [(topic, 1) for topic in self._order_topics]
        client.subscribe(topics)
        self._next_beat = 0.0
        self._state(None, "")
        self._beat()
        self._fill()

    def _lost(self, problem: str) -> None:
        self._drop()
        self._retry(problem)

    def _drop(self) -> None:
        client, self._client = self._client, None
        self._connected = False
        self.connected_event.clear()
        self._window.clear()
        self._by_mid.clear()
        self._picture_mids.clear()
        if client is not None:
            with contextlib.suppress(Exception):
                client.disconnect()
            client.loop_stop()

    def _retry(self, problem: str, *, longer: bool = False) -> None:
        lo, hi = self.settings.backoff
        self._next_attempt = self._clock() + (hi if longer else self._delay)
        self._delay = min(hi, max(lo, self._delay * 2))
        self._state(problem, BROKER_FIX)

    def _close(self) -> None:
        client = self._client
        if client is not None and self._connected and self._leave_offline:
            offline = self._signed(
                "status", messages.offline_message(table=self.settings.table, at=self._clock())
            )
            info = client.publish(self._status_topic, json.dumps(offline), qos=1, retain=True)
            with contextlib.suppress(Exception):
                info.wait_for_publish(2.0)
        self._drop()

    def _state(self, problem: str | None, fix: str) -> None:
        if problem == self.problem:
            return
        self.problem = problem
        if problem is not None:
            log.warning("feed: %s", problem)
        if self.on_state is not None:
            self.on_state(problem, fix)

    # --- sending ---------------------------------------------------------------------------

    def _fill(self) -> None:
        """Send the next events after the last sent, up to ``max_inflight`` unacknowledged."""
        client = self._client
        if client is None or not self._connected:
            return
        room = self.settings.max_inflight - len(self._window)
        if room <= 0:
            return
        s = self.settings
        for p in self._outbox.after(self._sent, room):
            sent = _Sent(p.position)
            if p.evidence is not None:  # before its event, so the event finds it there
                topic = s.topics.evidence(s.table, p.game, p.seq)
                picture = self._picture("evidence", p.game, p.seq, p.evidence)
                self._track(client.publish(topic, picture, qos=1), sent)
            payload = messages.event_message(
                table=s.table,
                game=p.game,
                seq=p.seq,
                at=p.recorded,
                source=p.source,
                input_event=p.input,
                outputs=p.outputs,
                hand=p.hand,
                evidence=p.evidence is not None,
                record=p.record,
            )
            payload = self._signed("events", payload)
            self._track(client.publish(self._events_topic, json.dumps(payload), qos=1), sent)
            self._window.append(sent)
            self._sent = p.position
        self._fill_pictures(client)

    def _fill_pictures(self, client: mqtt.Client) -> None:
        """The clearer pictures written since the last sent, in order, each only once
        its event has been sent: one whose event waits waits with it (and those after
        it), so the director always has the event a clearer picture replaces the picture
        of. One whose event is sent later carries it already; sent again, it changes
        nothing at the director."""
        s = self.settings
        room = s.max_inflight - len(self._picture_mids)
        if room <= 0:
            return
        for c in self._outbox.pictures_after(self._pictures_sent, room):
            if c.position > self._sent:
                return
            topic = s.topics.clear_evidence(s.table, c.game, c.seq)
            picture = self._picture("evidence/clear", c.game, c.seq, c.picture)
            info = client.publish(topic, picture, qos=1)
            self._picture_mids[info.mid] = c.n
            self._pictures_sent = c.n

    def _track(self, info: mqtt.MQTTMessageInfo, sent: _Sent) -> None:
        sent.mids.add(info.mid)
        self._by_mid[info.mid] = sent

    def _on_puback(self, mid: int) -> None:
        if self._picture_mids.pop(mid, None) is not None:
            # Every clearer picture before the first still unacknowledged is the broker's.
            waiting = self._picture_mids.values()
            upto = min(waiting) - 1 if waiting else self._pictures_sent
            self._outbox.acknowledge_picture(upto, self._clock())
            self._fill()
            return
        sent = self._by_mid.pop(mid, None)
        if sent is None:
            return  # a heartbeat or an ack
        sent.mids.discard(mid)
        done: Position | None = None
        while self._window and not self._window[0].mids:
            done = self._window.popleft().position
        if done is not None:
            now = self._clock()
            self._outbox.acknowledge(done, now)
            if done > self._safe:
                self._acked.append((done, now))
            self._fill()

    # --- the director's mark ---------------------------------------------------------------

    def _on_mark(self, message: mqtt.MQTTMessage) -> None:
        """The director's retained mark: what it holds, so what is safe."""
        try:
            payload = json.loads(message.payload)
            if not isinstance(payload, dict):
                raise ValueError("not a JSON object")
            games, every = messages.parse_received(payload, table=self.settings.table)
        except (ValueError, TypeError, UnicodeDecodeError) as exc:
            if message.payload:
                log.warning("feed: the director's received mark cannot be read (%s)", exc)
            return
        self._behind = messages.received_behind(payload)
        since = messages.received_since(payload)
        # A later ``since``: the broker had no session for the director until then, and
        # dropped what this table sent meanwhile. (An earlier one is an old retained mark.)
        renewed = since is not None and self._since is not None and since > self._since
        if since is not None and (self._since is None or since > self._since):
            self._since = since
        now = self._clock()
        safe = self._outbox.safe_from(games)
        away = self._mark_heard is None or now - self._mark_heard > 2 * max(every, 0.5)
        if safe != self._safe or away:
            self._stuck_since = now  # moving, or the director is back: not stuck
        self._mark_heard, self._mark_every = now, every
        if safe != self._safe:
            self._safe = safe
            self._outbox.confirm(safe, now)
            while self._acked and self._acked[0][0] <= safe:
                self._acked.popleft()
        if safe > self._sent:
            self._sent = safe  # the director has these already: no need to send them
            self._fill()
        elif renewed and self._connected and self._sent > self._safe:
            log.warning(
                "feed: the director's broker lost its session; sending again from %s",
                self._safe,
            )
            self.resumes += 1
            self._send_again(now)

    def _check_lag(self, now: float) -> None:
        """The director is heard, its mark stuck, and the broker took events after it
        ``resend_after`` seconds ago: they were lost (a broker killed); send them again."""
        # A director behind its store has the events, queued: wait for it that much longer.
        after = self.settings.resend_after + self._behind
        heard = self._mark_heard
        if not self._acked or heard is None:
            return
        # The director itself must say so: a mark heard ``after`` seconds into the stall
        # (a director away says nothing, and the broker keeps its messages for it).
        if heard - self._stuck_since < after or heard - self._acked[0][1] < after:
            return
        if now - heard > 2 * max(self._mark_every, 0.5):
            return
        log.warning(
            "feed: the director has nothing after %s although the broker took later "
            "events %.0f s ago; sending again from there",
            self._safe,
            now - self._acked[0][1],
        )
        self.resends += 1
        self._send_again(now)

    def _send_again(self, now: float) -> None:
        """Everything after the director's mark, again, in order (stored once there)."""
        self._window.clear()
        self._by_mid.clear()
        self._acked.clear()
        self._sent = self._safe
        self._stuck_since = now
        self._fill()

    def _beat(self) -> None:
        client = self._client
        self._next_beat = self._clock() + self.settings.heartbeat
        if client is None or self._status is None:
            return
        status = dict(self._status)
        payload = messages.status_message(
            table=self.settings.table,
            at=self._clock(),
            every=self.settings.heartbeat,
            game=status.get("game"),
            hand=status.get("hand"),
            phase=status.get("phase"),
            scores=status.get("scores", (0, 0)),
            players=status.get("players", {}),
            faults=status.get("faults", ()),
            backlog=self._outbox.backlog(),
            unconfirmed=self._outbox.backlog(self._safe),
            name=status.get("name"),
            fleet=status.get("fleet"),
            across=status.get("across", ()),
        )
        payload = self._signed("status", payload)
        client.publish(self._status_topic, json.dumps(payload), qos=1, retain=True)

    def _signed(self, kind: str, payload: _Payload, *, last_word: bool = False) -> _Payload:
        """``payload`` with the table's signature, when it has a key (else as it is); a
        status or an answer with its place in the table's order first (``last_word``:
        the connection's last will). Of the same type: the signature adds only ``order``
        and ``sig``, which each message's type declares (feed/messages.py)."""
        if self._signer is None:
            return payload
        body: Mapping[str, object] = payload
        if self._places is not None and is_ordered(kind):
            place = self._places.last_word() if last_word else self._places.next()
            body = placed(body, place)
        return cast(_Payload, sign_message(kind, body, self._signer))

    def _picture(self, kind: str, game: int, seq: int, picture: bytes) -> bytes:
        """A picture as sent: signed after its bytes when the table has a key."""
        if self._signer is None:
            return picture
        return sign_picture(kind, self.settings.table, game, seq, picture, self._signer)

    # --- the director's orders and the table's answers about itself -----------------------

    def _on_order(self, message: mqtt.MQTTMessage) -> None:
        """A config or a command, handed on unverified (the receiver verifies it)."""
        kind = self._order_topics[message.topic]
        if not message.payload:
            return  # a retained config cleared (the table was removed)
        try:
            payload = json.loads(message.payload)
        except (ValueError, UnicodeDecodeError):
            payload = None
        if not isinstance(payload, dict):
            log.warning("feed: an order on %s is not a JSON object; ignored", message.topic)
            return
        if self.on_order is not None:
            self.on_order(kind, payload)

    def _send(self, kind: str, payload: dict[str, Any]) -> None:
        client = self._client
        if client is None or not self._connected:
            log.info("feed: not connected; the %s answer is dropped (it is sent again)", kind)
            return
        topic = self.settings.topics.fleet(self.settings.table, kind)
        client.publish(topic, json.dumps(self._signed(f"fleet/{kind}", payload)), qos=1)

    # --- rulings ---------------------------------------------------------------------------

    def _on_ruling(self, message: mqtt.MQTTMessage) -> None:
        try:
            payload = json.loads(message.payload)
        except (ValueError, UnicodeDecodeError):
            payload = None
        ruling_id = payload.get("ruling_id") if isinstance(payload, dict) else None
        ruling_id = ruling_id if isinstance(ruling_id, str) and ruling_id else "?"
        before = self._outbox.answered(ruling_id) if ruling_id != "?" else None
        if before is not None:  # delivered again: answered the same, applied once
            self._publish_ack(ruling_id, *before)
            return
        if ruling_id in self._pending_rulings:
            return  # being applied: its answer follows
        key = self.settings.director_key
        try:
            if not isinstance(payload, dict):
                raise RulingRejected("the ruling is not a JSON object")
            if key is None:
                raise RulingRejected(
                    "this table has no director's key, so it takes no ruling: set "
                    "[feed] director_key to the event's director.pub"
                )
            ruling = verify(
                payload,
                key,
                table=self.settings.table,
                now=self._clock(),
                max_age=self.settings.ruling_max_age,
            )
        except RulingRejected as exc:
            log.warning("feed: ruling %s refused: %s", ruling_id, exc)
            self._ack(ruling_id, False, str(exc))
            return
        if self.on_ruling is None:
            self._ack(ruling_id, False, "this table does not take rulings")
            return
        self._pending_rulings.add(ruling.ruling_id)
        self._publish_ack(ruling.ruling_id, None, None)  # delivered: the dashboard says so
        self.on_ruling(ruling)

    def _ack(self, ruling_id: str, ok: bool, problem: str | None) -> None:
        if ruling_id != "?":
            self._outbox.answer(ruling_id, ok, problem, self._clock())
        self._publish_ack(ruling_id, ok, problem)

    def _publish_ack(self, ruling_id: str, ok: bool | None, problem: str | None) -> None:
        client = self._client
        if client is None:
            return  # the director sends it again; the stored answer goes then
        payload = messages.ack_message(
            table=self.settings.table,
            ruling_id=ruling_id,
            ok=ok,
            problem=problem,
            at=self._clock(),
        )
        client.publish(self._acks_topic, json.dumps(self._signed("acks", payload)), qos=1)


__all__ = ["BROKER_FIX", "FeedSettings", "OrderListener", "Publisher", "settings_from_config"]


def settings_from_config(config: Any) -> tuple[FeedSettings, tuple[str, str] | None]:
    """The settings of a table's ``[feed]``, and a (problem, fix) when the director's key
    cannot be read (the table then sends its feed but takes no ruling)."""
    feed = config.feed
    key: bytes | None = None
    problem: tuple[str, str] | None = None
    if feed.director_key is not None:
        try:
            key = Path(feed.director_key).read_bytes()
        except OSError as exc:
            problem = (
                f"the director's key {feed.director_key} cannot be read ({exc.strerror}); "
                "no ruling is taken",
                "copy director.pub from the director's machine to that path",
            )
    signing: bytes | None = None
    if feed.signing_key is not None:
        try:
            signing = Path(feed.signing_key).read_bytes()
            load_private(signing, where=f"[feed] signing_key {feed.signing_key}")
        except (OSError, TableKeyError) as exc:
            signing = None
            problem = (
                f"the table's signing key {feed.signing_key} cannot be used "
                f"({getattr(exc, 'strerror', None) or exc}); the director refuses what the "
                "table sends unsigned",
                "copy this table's secrets/TABLE.signing.key from the director's machine to "
                "that path (chmod 600)",
            )
    password = ""
    if feed.password_file is not None:
        try:
            password = Path(feed.password_file).read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            problem = (
                f"the feed's password file {feed.password_file} cannot be read "
                f"({getattr(exc, 'strerror', None) or exc}); the broker will refuse the table",
                "copy this table's password file from the director's machine to that path "
                "(chmod 600)",
            )
    settings = FeedSettings(
        table=messages.table_id(config.name),
        topics=messages.Topics.of(feed.topic, feed.event),
        broker=feed.broker,
        port=feed.port,
        username=feed.username,
        password=password,
        tls_ca=feed.tls_ca,
        tls_check_name=feed.tls_check_name,
        director_key=key,
        signing_key=signing,
        heartbeat=feed.heartbeat,
    )
    return settings, problem
