"""The trump cube's logic: the serial protocol, the display state, the button and faces.

Hardware independent, in the subset of Python that MicroPython runs: ``main.py`` drives
it on the board and the emulator (``table-controller cube emulate``) drives this very
file on the host. It never reads a clock or a port itself; the caller feeds it bytes and
the time in milliseconds, and takes the bytes it wants to send::

    cube = Cube(board, now_ms)
    cube.receive(data, now_ms)   # bytes from the host, any chunking
    cube.tick(now_ms)            # inputs, timers, heartbeats, the display
    port.write(cube.take_output())

The board is anything with ``show(pixels)``, ``button_down() -> bool`` and
``acceleration() -> (x, y, z) in g, or None`` (no accelerometer).

The cube is the dumb end, as a Klipper MCU: until a hello opens a session it answers
hellos only; then it acks every reliable message, applies each one once (a repeated
sequence number is acked again but not applied), naks garbage so the host resends at
once, and reports its link lost when the host's frames stop.
"""

try:
    from table_controller.devices import frame
except ImportError:  # on the board: frame.py sits next to this file
    import frame  # type: ignore[import-not-found, no-redef]
try:
    from . import display
except ImportError:  # on the board, a flat folder of modules
    import display  # type: ignore[import-not-found, no-redef]

TYPE_CHECKING = False
if TYPE_CHECKING:  # never true at run time: MicroPython has no typing module
    from collections.abc import Callable
    from typing import Protocol

    class Board(Protocol):
        def show(self, pixels: bytearray) -> None: ...
        def button_down(self) -> bool: ...
        def acceleration(self) -> tuple[float, float, float] | None: ...


FIRMWARE = "cube 1.0"  # short: the hello reply must get through a noisy line too

DEFAULT_LINK_TIMEOUT_MS = 2000  # until a hello says otherwise
EVENT_RETRY_MS = 50  # first resend of an unacknowledged event; doubles up to 200 ms
EVENT_RETRY_MAX_MS = 200
EVENT_QUEUE = 8  # events waiting for the link; the oldest go first when it is full
NAK_GAP_MS = 20  # at most one nak this often
RESYNC_IDLE_MS = 50  # a half frame with the line quiet this long is dropped
DEBOUNCE_MS = 30
HOLD_MS = 1500
ACCEL_PERIOD_MS = 50
FACE_STEADY_MS = 400  # a face must stay up this long to count (the dealer's hand moves)
RENDER_PERIOD_MS = 50

# Face numbers: the axis that points up. Which suit each face carries is the board's
# (board_rp2040.FACE_SUITS); face 0 is the matrix itself facing up.
FACE_AXES = ((2, 1), (2, -1), (0, 1), (0, -1), (1, 1), (1, -1))


def face_of(accel: tuple[float, float, float]) -> int:
    """The face pointing up, or ``frame.FACE_NONE`` while the cube is tilted or moving:
    one axis must read above 0.8 g and the others below 0.4 g."""
    for face in range(6):
        axis, sign = FACE_AXES[face]
        if accel[axis] * sign > 0.8:
            others = [abs(accel[a]) for a in range(3) if a != axis]
            if max(others) < 0.4:
                return face
    return frame.FACE_NONE


class Cube:
    """One cube from power-on: ``face_suits`` gives the suit printed on each face."""

    def __init__(self, board: "Board", now_ms: int, face_suits: tuple[int, ...] = ()) -> None:
        self.board = board
        self.face_suits = face_suits
        self.decoder = frame.Decoder()
        self.out = bytearray()
        self.state: frame.State | None = None
        self.session = 0
        self.link_timeout_ms = DEFAULT_LINK_TIMEOUT_MS
        self.heard_ms = -1  # when a good frame last came; -1 never
        self.last_byte_ms = now_ms
        self.sent_ms = now_ms
        self.last_seq = -1  # the host's last applied sequence number
        self.tx_seq = 0
        self.events: list[bytes] = []
        self.outstanding: bytes | None = None
        self.outstanding_seq = 0
        self.retry_at_ms = 0
        self.retry_ms = EVENT_RETRY_MS
        self.errors_seen = 0
        self.nak_ms = -NAK_GAP_MS
        self.stopped = False
        self.applied = 0
        self.duplicates = 0
        # Called with each state applied and its sequence number (the emulator logs them).
        self.on_state: Callable[[frame.State, int], None] | None = None
        # inputs
        self.button_raw = False
        self.button_since_ms = now_ms
        self.button_down = False
        self.button_held = False
        self.accel_at_ms = now_ms
        self.face_candidate = frame.FACE_NONE
        self.face_since_ms = now_ms
        self.face = frame.FACE_NONE
        self.features = frame.FEATURE_BUTTON
        if board.acceleration() is not None:
            self.features |= frame.FEATURE_ACCELEROMETER
        # display
        self.pixels = bytearray(display.SIZE)
        self.shown = bytearray(display.SIZE)
        self.render_at_ms = now_ms
        self.first_show = True

    # --- bytes in and out -------------------------------------------------------------

    def take_output(self) -> bytes:
        out = bytes(self.out)
        self.out = bytearray()
        return out

    def send(self, seq: int, payload: bytes, now_ms: int) -> None:
        self.out.extend(frame.encode(seq, payload))
        self.sent_ms = now_ms

    def receive(self, data: bytes | bytearray, now_ms: int) -> None:
        if not data:
            return
        self.last_byte_ms = now_ms
        for f in self.decoder.feed(data):
            self.handle(f, now_ms)
        self.nak_garbage(now_ms)

    def nak_garbage(self, now_ms: int) -> None:
        """A nak for bad frames, so the host resends without waiting for its timeout; at
        most one every NAK_GAP_MS, however much garbage comes."""
        errors = self.decoder.errors + self.decoder.bad_frames
        if errors != self.errors_seen and now_ms - self.nak_ms >= NAK_GAP_MS:
            self.errors_seen = errors
            self.nak_ms = now_ms
            self.send(0, frame.nak(frame.NAK_BAD_FRAME), now_ms)
            if self.outstanding is not None and self.link_up(now_ms):
                # the bad frame may have been the host's ack: send the event again
                self.send(self.outstanding_seq, self.outstanding, now_ms)

    # --- frames ----------------------------------------------------------------------

    def link_up(self, now_ms: int) -> bool:
        return self.heard_ms >= 0 and now_ms - self.heard_ms <= self.link_timeout_ms

    def handle(self, f: frame.Frame, now_ms: int) -> None:
        self.heard_ms = now_ms
        kind = f.kind
        if kind == frame.KIND_HELLO:
            self.handle_hello(f.payload, now_ms)
            return
        if self.session == 0:
            # No host has greeted this cube since power-on: a message from anything else
            # on the port (a stray STOP would leave the cube at the REPL until replugged)
            # is ignored, neither applied nor acked nor naked, so a host that lost track
            # keeps resending; our heartbeats say session 0 and it greets us again.
            return
        if kind in frame.RELIABLE:
            self.handle_reliable(f, now_ms)
        elif kind == frame.KIND_HEARTBEAT:
            pass  # a good frame: the link is alive, nothing more
        elif kind == frame.KIND_ACK:
            if self.outstanding is not None and f.seq == self.outstanding_seq:
                self.outstanding = None
                self.send_next_event(now_ms)
        elif kind == frame.KIND_NAK:
            if self.outstanding is not None:
                if f.seq == 0:
                    self.send(self.outstanding_seq, self.outstanding, now_ms)
                elif f.seq == self.outstanding_seq:  # refused for good: drop it
                    self.outstanding = None
                    self.send_next_event(now_ms)
        elif f.seq != 0:  # a reliable message of a kind this firmware does not know
            self.send(f.seq, frame.nak(frame.NAK_UNKNOWN), now_ms)

    def handle_hello(self, payload: bytes, now_ms: int) -> None:
        try:
            version, session, timeout_ms = frame.parse_hello(payload)
        except frame.ProtocolError:
            return
        reply = frame.hello_reply(session, display.WIDTH, display.HEIGHT, self.features, FIRMWARE)
        self.send(0, reply, now_ms)
        if version == frame.PROTOCOL_VERSION and session != self.session:
            # A new host (or the same one after it lost the link): its sequence numbers
            # start again, and events queued for the old one are stale.
            self.session = session
            self.link_timeout_ms = max(100, timeout_ms)
            self.last_seq = -1
            self.events = []
            self.outstanding = None
            if self.face != frame.FACE_NONE:  # so the host knows how the cube lies
                self.queue_event(frame.face_up(self.face, self.suit_of(self.face)), now_ms)

    def handle_reliable(self, f: frame.Frame, now_ms: int) -> None:
        if f.seq == 0:
            return  # a reliable kind must carry a sequence number
        if f.kind in (frame.KIND_BUTTON, frame.KIND_FACE_UP):
            self.send(f.seq, frame.nak(frame.NAK_UNKNOWN), now_ms)  # the host's to send
            return
        if f.seq == self.last_seq:
            self.duplicates += 1  # our ack was lost: ack again, apply nothing
            self.send(f.seq, frame.ack(), now_ms)
            return
        if f.kind == frame.KIND_SET_STATE:
            try:
                state = frame.State.from_payload(f.payload)
            except frame.ProtocolError:
                self.send(f.seq, frame.nak(frame.NAK_MALFORMED), now_ms)
                return
            self.last_seq = f.seq
            self.state = state
            self.applied += 1
            if self.on_state is not None:
                self.on_state(state, f.seq)
            self.render_at_ms = now_ms  # show it at once
        elif f.kind == frame.KIND_STOP:
            self.last_seq = f.seq
            self.stopped = True
        self.send(f.seq, frame.ack(), now_ms)

    # --- events to the host -----------------------------------------------------------

    def suit_of(self, face: int) -> int:
        return self.face_suits[face] if face < len(self.face_suits) else frame.SUIT_NONE

    def queue_event(self, payload: bytes, now_ms: int) -> None:
        if len(self.events) >= EVENT_QUEUE:
            self.events.pop(0)
        self.events.append(payload)
        if self.outstanding is None:
            self.send_next_event(now_ms)

    def send_next_event(self, now_ms: int) -> None:
        if self.outstanding is not None or not self.events or not self.link_up(now_ms):
            return
        self.outstanding = self.events.pop(0)
        self.tx_seq = self.tx_seq % 255 + 1
        self.outstanding_seq = self.tx_seq
        self.retry_ms = EVENT_RETRY_MS
        self.retry_at_ms = now_ms + self.retry_ms
        self.send(self.outstanding_seq, self.outstanding, now_ms)

    def resend_event(self, now_ms: int) -> None:
        if self.outstanding is None or now_ms < self.retry_at_ms:
            return
        if not self.link_up(now_ms):
            return  # keep it until the host is back (or a new session drops it)
        self.retry_ms = min(self.retry_ms * 2, EVENT_RETRY_MAX_MS)
        self.retry_at_ms = now_ms + self.retry_ms
        self.send(self.outstanding_seq, self.outstanding, now_ms)

    # --- inputs -----------------------------------------------------------------------

    def read_button(self, now_ms: int) -> None:
        raw = bool(self.board.button_down())
        if raw != self.button_raw:
            self.button_raw = raw
            self.button_since_ms = now_ms
        steady = now_ms - self.button_since_ms >= DEBOUNCE_MS
        if steady and raw != self.button_down:
            self.button_down = raw
            self.button_held = False
            if raw:
                self.queue_event(frame.button(frame.BUTTON_PRESSED), now_ms)
        held = now_ms - self.button_since_ms >= HOLD_MS
        if self.button_down and not self.button_held and held:
            self.button_held = True
            self.queue_event(frame.button(frame.BUTTON_HELD), now_ms)

    def read_faces(self, now_ms: int) -> None:
        if now_ms - self.accel_at_ms < ACCEL_PERIOD_MS:
            return
        self.accel_at_ms = now_ms
        accel = self.board.acceleration()
        if accel is None:
            return
        face = face_of(accel)
        if face != self.face_candidate:
            self.face_candidate = face
            self.face_since_ms = now_ms
            return
        steady = now_ms - self.face_since_ms >= FACE_STEADY_MS
        if steady and face != frame.FACE_NONE and face != self.face:
            self.face = face
            self.queue_event(frame.face_up(face, self.suit_of(face)), now_ms)

    # --- time -------------------------------------------------------------------------

    def mode(self, now_ms: int) -> int:
        if self.heard_ms < 0:
            return display.MODE_WAITING
        if not self.link_up(now_ms):
            return display.MODE_LINK_LOST
        return display.MODE_PLAY

    def tick(self, now_ms: int) -> None:
        if self.decoder.pending and now_ms - self.last_byte_ms >= RESYNC_IDLE_MS:
            for f in self.decoder.resync():
                self.handle(f, now_ms)
        self.nak_garbage(now_ms)
        self.read_button(now_ms)
        self.read_faces(now_ms)
        self.send_next_event(now_ms)
        self.resend_event(now_ms)
        # Heartbeats once a host has been heard; session 0 tells it the cube restarted.
        if self.heard_ms >= 0 and now_ms - self.sent_ms >= self.link_timeout_ms // 8:
            self.send(0, frame.heartbeat(self.session), now_ms)
        if now_ms >= self.render_at_ms:
            self.render_at_ms = now_ms + RENDER_PERIOD_MS
            display.render(self.pixels, self.mode(now_ms), self.state, now_ms)
            if self.first_show or self.pixels != self.shown:
                self.first_show = False
                self.pixels, self.shown = self.shown, self.pixels
                self.board.show(self.shown)
