"""The host's side of the cube protocol, without threads or ports: bytes and times in,
bytes, events and link changes out (as ``firmware/cube.py`` is the cube's side).

``TrumpCube`` (cube.py) owns the port and the thread and drives a ``CubeLink``::

    link.opened(now)            # a port is open: greet the cube
    link.receive(data, now)     # bytes read (b"" when the read timed out)
    link.tick(now)              # timers: hellos, retransmission, heartbeats, link lost
    port.write(link.take_output())
    if link.drop_port: close the port (and open it again from ``link.next_open``)

docs/cube-protocol.md describes the rules this follows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import Enum

from table_controller.devices import frame
from table_controller.devices.cube_types import (
    ButtonPressed,
    CubeConfig,
    CubeError,
    CubeEvent,
    CubeInfo,
    CubeNoAnswer,
    CubeRejected,
    CubeState,
    CubeVersionError,
    FaceTurnedUp,
    LinkChanged,
    suit_of_wire,
)
from table_controller.devices.retransmit import RoundTrip

RESYNC_IDLE = 0.05  # a half frame with the line quiet this long is given up (as the cube)
NAK_GAP = 0.02  # at most one nak this often (as the cube)
# Heartbeats eight times per link timeout: on a line that loses half its frames, the link
# is still not given up for lost by chance more than about once in 2**8 timeouts.
HEARTBEATS_PER_TIMEOUT = 8
FAILED_RETRY = 5.0  # after a version mismatch, look again this often (it may be reflashed)


class Link(Enum):
    DOWN = "down"  # no port open
    HANDSHAKE = "handshake"  # port open, hello sent, no reply yet
    UP = "up"
    FAILED = "failed"  # the cube answered but cannot be used (version, echo)


@dataclass
class CubeStats:
    """Counters for the benchmark and for a person wondering how good the cable is."""

    frames_sent: int = 0
    frames_received: int = 0
    bad_frames: int = 0  # refused by length or CRC (all ports so far)
    commands_sent: int = 0  # reliable messages, first copies
    commands_acked: int = 0
    retransmits: int = 0  # after a timeout
    nak_resends: int = 0  # at once: after the cube's nak, or a bad frame from it
    events: int = 0
    duplicate_events: int = 0  # the cube resent an event we had: acked, not delivered twice
    connects: int = 0
    link_losses: int = 0


@dataclass
class _Sent:
    seq: int
    payload: bytes
    state: CubeState | None  # None: the STOP message
    first_sent: float
    last_sent: float
    tries: int = 1


class CubeLink:
    def __init__(self, config: CubeConfig, port_name: str = "the cube's port") -> None:
        self.config = config
        self.port_name = port_name
        self.stats = CubeStats()
        self.rtt = RoundTrip(config.min_rto, config.max_rto)
        self.state = Link.DOWN
        self.info: CubeInfo | None = None
        self.reason = "not started"
        self.error: CubeError | None = None  # why the link is not up, when it is an error
        self.drop_port = False  # the link gave the port up: close it
        self.next_open = 0.0  # when to open the port again
        self.wanted: CubeState | None = None
        self.shown: CubeState | None = None  # acknowledged since the link came up
        self.stop_wanted = False
        self.stopped = False
        self.rejected: CubeRejected | None = None
        self._decoder = frame.Decoder()
        self._session = 0
        self._opened_at = 0.0
        self._hello_at = 0.0
        self._hellos = 0
        self._hello_sent = 0.0
        self._heard = 0.0
        self._last_byte = 0.0
        self._last_send = 0.0
        self._bad_seen = 0
        self._nak_at = 0.0
        self._out = bytearray()
        self._events: list[CubeEvent] = []
        self._tx_seq = 0
        self._rx_seq = -1  # the cube's last delivered event
        self._sent: _Sent | None = None

    # --- what the owner calls ---------------------------------------------------------

    def opened(self, now: float) -> None:
        """A port is open: greet the cube (a new session: its numbering starts again)."""
        self._decoder = frame.Decoder()
        self._bad_seen = 0
        self._session = random.randrange(1, 0x10000)
        self.state = Link.HANDSHAKE
        self.drop_port = False
        self._opened_at = self._hello_at = self._heard = self._last_byte = now
        self._hellos = 0
        self.reason = f"greeting the cube on {self.port_name}"

    def open_failed(self, error: CubeError, now: float) -> None:
        if self.state is not Link.FAILED:
            self.reason = str(error)
            self.error = error
        self.next_open = now + self.config.reconnect_interval

    def lose(self, reason: str, now: float, retry_in: float = 0.0) -> None:
        """The link is gone (or the port failed): drop the port, open it again later,
        greet again, and send the state again (``shown`` is forgotten)."""
        was_up = self.state is Link.UP
        self.stats.bad_frames += self._decoder.bad_frames
        self._decoder = frame.Decoder()
        self._bad_seen = 0
        self.drop_port = True
        self._out.clear()
        if self.state is not Link.FAILED:
            self.state = Link.DOWN
        self.reason = reason
        self._sent = None
        self.shown = None
        self.next_open = now + retry_in
        if was_up:
            self.stats.link_losses += 1
            self._events.append(LinkChanged(False, reason, now))

    def take_output(self) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def take_events(self) -> list[CubeEvent]:
        events, self._events = self._events, []
        return events

    def receive(self, data: bytes, now: float) -> None:
        frames: list[frame.Frame] = []
        if data:
            self._last_byte = now
            frames = self._decoder.feed(data)
        elif self._decoder.pending and now - self._last_byte >= RESYNC_IDLE:
            frames = self._decoder.resync()
        for f in frames:
            self.stats.frames_received += 1
            self._heard = now
            self._handle(f, now)
            if self.drop_port:
                return
        self._nak_garbage(now)

    def tick(self, now: float) -> None:
        if self.drop_port:
            return
        cfg = self.config
        if self.state is Link.HANDSHAKE:
            if now - self._opened_at > cfg.handshake_timeout:
                self.error = CubeNoAnswer(
                    f"nothing on {self.port_name} answered like a trump cube in "
                    f"{cfg.handshake_timeout:g} s. Is it the cube's port, with the firmware on "
                    "it? Unplug the cube and plug it in again; if that does not help, run "
                    "`table-controller cube flash`."
                )
                self.lose(str(self.error), now, retry_in=cfg.reconnect_interval)
            elif now >= self._hello_at:
                self._hellos += 1
                self._hello_sent = now
                self._hello_at = now + cfg.hello_interval
                timeout_ms = min(0xFFFF, int(cfg.link_timeout * 1000))
                self._send(0, frame.hello(self._session, timeout_ms), now)
            return
        if self.state is not Link.UP:
            return
        if now - self._heard > cfg.link_timeout:
            self.lose(f"nothing from the cube for {cfg.link_timeout:g} s", now)
            return
        sent = self._sent
        if sent is not None and now - sent.last_sent >= self.rtt.rto:
            self.rtt.backoff()
            self._resend(sent, now)
        self._send_next(now)
        if now - self._last_send >= cfg.link_timeout / HEARTBEATS_PER_TIMEOUT:
            self._send(0, frame.heartbeat(self._session), now)

    # --- frames -----------------------------------------------------------------------

    def _send(self, seq: int, payload: bytes, now: float) -> None:
        self._out += frame.encode(seq, payload)
        self._last_send = now
        self.stats.frames_sent += 1

    def _fail(self, error: CubeError, now: float) -> None:
        self.error = error
        self.lose(str(error), now, retry_in=FAILED_RETRY)
        self.state = Link.FAILED

    def _handle(self, f: frame.Frame, now: float) -> None:
        kind = f.kind
        if kind == frame.KIND_HELLO_REPLY:
            self._on_hello_reply(f.payload, now)
        elif kind == frame.KIND_HELLO:
            self._on_hello(f.payload, now)
        elif kind == frame.KIND_HEARTBEAT:
            try:
                session = frame.parse_heartbeat(f.payload)
            except frame.ProtocolError:
                return
            if self.state is Link.UP and session != self._session:
                self.lose("the cube restarted (it no longer knows this session)", now)
                return
        elif kind == frame.KIND_ACK:
            sent = self._sent
            if sent is not None and f.seq == sent.seq:
                self._on_ack(sent, now)
        elif kind == frame.KIND_NAK:
            self._on_nak(f, now)
        elif kind in (frame.KIND_BUTTON, frame.KIND_FACE_UP):
            self._on_event(f, now)
        elif f.seq != 0:
            self._send(f.seq, frame.nak(frame.NAK_UNKNOWN), now)
        sent = self._sent
        if sent is not None and sent.tries > 1 and now - sent.last_sent >= self.rtt.base_rto:
            # Backed off, and the cube is talking again: resend now rather than wait out
            # a timeout doubled while the line was down.
            self.rtt.reset_backoff()
            self._resend(sent, now)

    def _on_hello(self, payload: bytes, now: float) -> None:
        try:
            session = frame.parse_hello(payload)[1]
        except frame.ProtocolError:
            return
        if session == self._session:
            self._fail(
                CubeNoAnswer(
                    f"{self.port_name} sends our own frames back: it is a loopback or a "
                    "terminal with echo on, not the trump cube. Name the cube's port "
                    "(ls /dev/serial/by-id/)."
                ),
                now,
            )

    def _on_hello_reply(self, payload: bytes, now: float) -> None:
        try:
            version, session, width, height, features, name = frame.parse_hello_reply(payload)
        except (frame.ProtocolError, UnicodeError):
            return
        if self.state is not Link.HANDSHAKE or session != self._session:
            return  # an answer to an older hello
        if version != frame.PROTOCOL_VERSION:
            newer = "newer" if version > frame.PROTOCOL_VERSION else "older"
            self._fail(
                CubeVersionError(
                    f"the cube's firmware ({name}) speaks protocol {version}, this "
                    f"table-controller speaks {frame.PROTOCOL_VERSION}: the firmware is "
                    f"{newer}. Run `table-controller cube flash` to put this release's "
                    "firmware on it."
                ),
                now,
            )
            return
        if self._hellos == 1:
            self.rtt.sample(now - self._hello_sent)
        self.info = CubeInfo(
            port=self.port_name,
            protocol=version,
            firmware=name,
            width=width,
            height=height,
            has_accelerometer=bool(features & frame.FEATURE_ACCELEROMETER),
        )
        self.state = Link.UP
        self.error = None
        self.reason = "connected"
        self._rx_seq = -1
        self.shown = None
        self._sent = None
        self.stats.connects += 1
        self._events.append(LinkChanged(True, f"connected to {name}", now))
        self._send_next(now)

    def _on_ack(self, sent: _Sent, now: float) -> None:
        self._sent = None
        if sent.tries == 1:  # Karn: a resent message's ack may answer either copy
            self.rtt.sample(now - sent.first_sent)
        self.rtt.reset_backoff()
        self.stats.commands_acked += 1
        if sent.state is None:
            self.stopped = True
            self.stop_wanted = False
        else:
            self.shown = sent.state
        self._send_next(now)

    def _on_nak(self, f: frame.Frame, now: float) -> None:
        sent = self._sent
        if sent is None:
            return
        if f.seq == 0:
            # The cube saw a bad frame, perhaps our message: resend at once (it naks at
            # most every 20 ms, so a burst of garbage cannot make us flood the line).
            self.stats.nak_resends += 1
            self._resend(sent, now, count=False)
        elif f.seq == sent.seq:
            self._sent = None
            reason = frame.parse_nak(f.payload) if len(f.payload) > 1 else 0
            self.rejected = CubeRejected(
                f"the cube refused a message (nak reason {reason}): its firmware does not "
                "match this table-controller. Run `table-controller cube flash`."
            )

    def _on_event(self, f: frame.Frame, now: float) -> None:
        if f.seq == 0 or self.state is not Link.UP:
            return  # not acked: the cube sends it again once the link is up
        if f.seq == self._rx_seq:
            self.stats.duplicate_events += 1
            self._send(f.seq, frame.ack(), now)
            return
        try:
            if f.kind == frame.KIND_BUTTON:
                _, pressed = frame.parse_button(f.payload)
                event: CubeEvent = ButtonPressed(pressed == frame.BUTTON_HELD, now)
            else:
                face, suit = frame.parse_face_up(f.payload)
                event = FaceTurnedUp(face, suit_of_wire(suit), now)
        except frame.ProtocolError:
            self._send(f.seq, frame.nak(frame.NAK_MALFORMED), now)
            return
        self._rx_seq = f.seq
        self._send(f.seq, frame.ack(), now)
        self.stats.events += 1
        self._events.append(event)

    def _nak_garbage(self, now: float) -> None:
        """Bad frames from the cube: nak them, as it naks ours, so it resends its event
        now; and if we wait for an ack, the bad frame may have been it, so resend ours
        (the cube acks a copy again without applying it)."""
        bad = self._decoder.errors + self._decoder.bad_frames
        if bad != self._bad_seen and now - self._nak_at >= NAK_GAP:
            self._bad_seen = bad
            self._nak_at = now
            if self.state is Link.UP:
                self._send(0, frame.nak(frame.NAK_BAD_FRAME), now)
                if self._sent is not None:
                    self.stats.nak_resends += 1
                    self._resend(self._sent, now, count=False)

    # --- sending the state ------------------------------------------------------------

    def _send_next(self, now: float) -> None:
        """Send the newest state (or STOP) if nothing is waiting for its ack."""
        if self.state is not Link.UP or self._sent is not None:
            return
        if self.stop_wanted:
            payload, state = frame.stop(), None
        elif self.wanted is not None and self.wanted != self.shown:
            payload, state = self.wanted.to_wire().to_payload(), self.wanted
        else:
            return
        self._tx_seq = self._tx_seq % 255 + 1
        self._sent = _Sent(self._tx_seq, payload, state, now, now)
        self.stats.commands_sent += 1
        self._send(self._tx_seq, payload, now)

    def _resend(self, sent: _Sent, now: float, count: bool = True) -> None:
        sent.tries += 1
        sent.last_sent = now
        if count:
            self.stats.retransmits += 1
        self._send(sent.seq, sent.payload, now)
