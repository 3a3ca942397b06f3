"""The trump cube's serial protocol: frames and messages, one file for the host and the cube.

The same file runs in CPython (the host, the emulator, the tests) and in MicroPython on
the cube (``table-controller cube flash`` copies it onto the board next to the firmware),
so host and cube cannot disagree about a byte. It therefore keeps to what both run:
bytes, bytearray and plain classes; no dataclasses, enum, typing or struct at run time.
Annotations are never evaluated by MicroPython, and CPython 3.11 evaluates them fine.

A frame, in the manner of Klipper's message blocks (docs/cube-protocol.md has the tables
and hex examples)::

    0x7E  LEN  SEQ  PAYLOAD (0..59 bytes)  CRC_HI  CRC_LO

``LEN`` is the whole frame's length (5..64) and the CRC is CRC-16/CCITT-FALSE (poly
0x1021, initial value 0xFFFF) over ``LEN SEQ PAYLOAD``. The decoder is fed whatever bytes
arrive, in chunks of any size, and finds frames again after garbage, truncated frames,
wrong lengths and wrong CRCs. The first payload byte names the message (``KIND_*``).
"""

PROTOCOL_VERSION = 1

SYNC = 0x7E
OVERHEAD = 5  # sync, length, sequence, two CRC bytes
MAX_FRAME = 64  # one USB full-speed packet
MAX_PAYLOAD = MAX_FRAME - OVERHEAD

# Message kinds: the first byte of a payload.
KIND_HELLO = 0x01  # host -> cube: start a session
KIND_HELLO_REPLY = 0x02  # cube -> host: protocol version, firmware, matrix size
KIND_HEARTBEAT = 0x03  # both ways, when nothing else was sent for a while
KIND_ACK = 0x04  # both ways; the frame's SEQ is the sequence number acknowledged
KIND_NAK = 0x05  # both ways; SEQ 0: garbage arrived, resend now; SEQ n: n is refused
KIND_SET_STATE = 0x10  # host -> cube, reliable: the whole display state
KIND_STOP = 0x11  # host -> cube, reliable: leave the firmware for the REPL (to flash)
KIND_BUTTON = 0x20  # cube -> host, reliable: the button was pressed or held
KIND_FACE_UP = 0x21  # cube -> host, reliable: a face came to rest facing up

# Reliable messages carry a sequence number 1..255, are acknowledged, retransmitted until
# they are, and applied once however often they arrive. The rest carry sequence 0.
RELIABLE = (KIND_SET_STATE, KIND_STOP, KIND_BUTTON, KIND_FACE_UP)

NAK_BAD_FRAME = 1  # a frame failed its CRC or length check
NAK_UNKNOWN = 2  # a reliable message of a kind this side does not know
NAK_MALFORMED = 3  # a reliable message whose payload does not parse

# The display state's fields, as sent. 0 is "nothing" everywhere.
SUIT_NONE = 0  # trump not decided yet
SUIT_CLUBS = 1
SUIT_DIAMONDS = 2
SUIT_HEARTS = 3
SUIT_SPADES = 4
SUIT_NO_TRUMP = 5  # a no-trump bid (Bid Euchre)
SEAT_NONE = 0
SEAT_N = 1
SEAT_E = 2
SEAT_S = 3
SEAT_W = 4
ALERT_NONE = 0
ALERT_RENEGE = 1
ALERT_DIRECTOR = 2  # the director has been called to the table
ALERT_MISDEAL = 3
ALERT_IRREGULARITY = 4
ALERT_MAX = 4

BUTTON_PRESSED = 1
BUTTON_HELD = 2

FEATURE_BUTTON = 0x01
FEATURE_ACCELEROMETER = 0x02

FACE_NONE = 0xFF


class ProtocolError(ValueError):  # no root here: this file also runs on the cube
    """A payload that does not parse: too short, too long, or a value out of range."""


def _make_crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _make_crc_table()


def crc16(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE, table driven (about ten times faster than bit by bit on the
    RP2040). ``crc16(b"123456789") == 0x29B1``, as ``binascii.crc_hqx(data, 0xFFFF)``."""
    table = _CRC_TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[(crc >> 8) ^ byte]
    return crc


def encode(seq: int, payload: bytes | bytearray) -> bytes:
    """One frame carrying ``payload`` with sequence number ``seq`` (0..255)."""
    if not 0 <= seq <= 255:
        raise ValueError("sequence number " + str(seq) + " is not a byte (0..255)")
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(
            "payload of " + str(len(payload)) + " bytes; a frame holds " + str(MAX_PAYLOAD)
        )
    body = bytes((len(payload) + OVERHEAD, seq)) + bytes(payload)
    crc = crc16(body)
    return bytes((SYNC,)) + body + bytes((crc >> 8, crc & 0xFF))


class Frame:
    """A frame that passed its checks: its sequence number and payload."""

    def __init__(self, seq: int, payload: bytes) -> None:
        self.seq = seq
        self.payload = payload

    @property
    def kind(self) -> int:
        """The message kind (first payload byte), or -1 for an empty payload."""
        return self.payload[0] if self.payload else -1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Frame) and other.seq == self.seq and other.payload == self.payload

    def __hash__(self) -> int:
        return hash((self.seq, self.payload))

    def __repr__(self) -> str:
        return "Frame(seq=" + str(self.seq) + ", payload=" + repr(self.payload) + ")"


class Decoder:
    """Turns a byte stream, fed in chunks of any size, into frames.

    Bad data is skipped and counted, never raised: ``bad_frames`` counts candidate frames
    (a sync byte) refused for their length or CRC, ``dropped`` the bytes thrown away, and
    ``errors`` the times the stream went bad after being good (a run of garbage counts
    once), which is what a receiver naks. After a refused candidate the search restarts
    one byte after its sync byte, so a frame that follows garbage, a truncated frame or a
    sync byte inside a payload is still found once its bytes are in.

    A truncated frame whose length byte promises more than ever comes holds back the
    frames behind it until enough bytes arrive to fail its CRC. A receiver that sees the
    line go quiet calls ``resync()`` to give up on it at once.
    """

    def __init__(self) -> None:
        self._buf = b""
        self.frames = 0
        self.bad_frames = 0
        self.dropped = 0
        self.errors = 0
        self._in_sync = True

    @property
    def pending(self) -> int:
        """Bytes held: the start of a frame not complete yet."""
        return len(self._buf)

    def _drop(self, count: int) -> None:
        self.dropped += count
        if self._in_sync:
            self.errors += 1
            self._in_sync = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Frame]:
        """The frames completed by ``data``, in order."""
        buf = self._buf + bytes(data)
        frames = []
        i = 0
        n = len(buf)
        while i < n:
            if buf[i] != SYNC:
                j = buf.find(b"\x7e", i)
                if j < 0:
                    j = n
                self._drop(j - i)
                i = j
                continue
            if n - i < 2:
                break
            length = buf[i + 1]
            if length < OVERHEAD or length > MAX_FRAME:
                self.bad_frames += 1
                self._drop(1)
                i += 1
                continue
            if n - i < length:
                break
            end = i + length
            if crc16(buf[i + 1 : end - 2]) != (buf[end - 2] << 8) | buf[end - 1]:
                self.bad_frames += 1
                self._drop(1)
                i += 1
                continue
            frames.append(Frame(buf[i + 2], buf[i + 3 : end - 2]))
            self.frames += 1
            self._in_sync = True
            i = end
        self._buf = buf[i:]
        return frames

    def resync(self) -> list[Frame]:
        """The line went quiet with a frame half in: drop it and look past its sync byte.
        Returns any whole frames found behind it."""
        frames = []
        while self._buf:
            rest = self._buf[1:]
            self._buf = b""
            self.bad_frames += 1
            self._drop(1)
            frames.extend(self.feed(rest))
        return frames


# --- messages ---------------------------------------------------------------------------


def _u16(value: int) -> bytes:
    return bytes(((value >> 8) & 0xFF, value & 0xFF))


def _get_u16(payload: bytes, at: int) -> int:
    return (payload[at] << 8) | payload[at + 1]


def _need(payload: bytes, size: int, name: str) -> None:
    if len(payload) < size:
        raise ProtocolError(name + " needs " + str(size) + " bytes, got " + str(len(payload)))


def hello(session: int, link_timeout_ms: int) -> bytes:
    """Start (or restart) a session. ``session`` (1..65535) names it, so the cube can tell
    a new host from a retransmitted hello; the cube reports its link lost after
    ``link_timeout_ms`` without a frame and sends heartbeats eight times as often."""
    return bytes((KIND_HELLO, PROTOCOL_VERSION)) + _u16(session) + _u16(link_timeout_ms)


def parse_hello(payload: bytes) -> tuple[int, int, int]:
    """(protocol version, session, link timeout in ms). The version is always byte 1."""
    _need(payload, 6, "hello")
    return payload[1], _get_u16(payload, 2), _get_u16(payload, 4)


def hello_reply(session: int, width: int, height: int, features: int, firmware: str) -> bytes:
    """The cube's answer: its protocol version first (byte 1 in every version), the session
    it answers, its matrix size, features (``FEATURE_*``) and firmware name."""
    name = firmware.encode()[: MAX_PAYLOAD - 7]
    return (
        bytes((KIND_HELLO_REPLY, PROTOCOL_VERSION))
        + _u16(session)
        + bytes((width, height, features))
        + name
    )


def parse_hello_reply(payload: bytes) -> tuple[int, int, int, int, int, str]:
    """(protocol version, session, width, height, features, firmware name)."""
    _need(payload, 7, "hello reply")
    return (
        payload[1],
        _get_u16(payload, 2),
        payload[4],
        payload[5],
        payload[6],
        bytes(payload[7:]).decode(),
    )


def heartbeat(session: int) -> bytes:
    """I am here; the session I know (0 for none: the cube has not been greeted)."""
    return bytes((KIND_HEARTBEAT,)) + _u16(session)


def parse_heartbeat(payload: bytes) -> int:
    _need(payload, 3, "heartbeat")
    return _get_u16(payload, 1)


def ack() -> bytes:
    """Sent in a frame whose SEQ is the sequence number acknowledged."""
    return bytes((KIND_ACK,))


def nak(reason: int) -> bytes:
    """Sent with SEQ 0 after a bad frame (resend what is outstanding), or with the SEQ of a
    reliable message refused for good (``NAK_UNKNOWN``, ``NAK_MALFORMED``)."""
    return bytes((KIND_NAK, reason))


def parse_nak(payload: bytes) -> int:
    _need(payload, 2, "nak")
    return payload[1]


def stop() -> bytes:
    return bytes((KIND_STOP,))


def button(pressed: int) -> bytes:
    """``BUTTON_PRESSED`` as it goes down, ``BUTTON_HELD`` once if held down."""
    return bytes((KIND_BUTTON, 0, pressed))


def parse_button(payload: bytes) -> tuple[int, int]:
    """(button number, ``BUTTON_PRESSED`` or ``BUTTON_HELD``)."""
    _need(payload, 3, "button")
    if payload[2] not in (BUTTON_PRESSED, BUTTON_HELD):
        raise ProtocolError("button event " + str(payload[2]) + " is neither pressed nor held")
    return payload[1], payload[2]


def face_up(face: int, suit: int) -> bytes:
    """Face ``face`` (0..5) came to rest facing up; ``suit`` is the suit printed on it."""
    return bytes((KIND_FACE_UP, face, suit))


def parse_face_up(payload: bytes) -> tuple[int, int]:
    """(face 0..5, ``SUIT_*`` printed on it)."""
    _need(payload, 3, "face up")
    if payload[1] > 5 or payload[2] > SUIT_NO_TRUMP:
        raise ProtocolError("face up: face or suit out of range")
    return payload[1], payload[2]


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


class State:
    """What the cube shows, whole: re-sending it can never apply anything twice.

    ``trump`` is a ``SUIT_*``, ``maker`` a ``SEAT_*``, scores are -128..127 (renege
    deductions can go below zero), ``alert`` an ``ALERT_*``, ``brightness`` 0..255.
    """

    SIZE = 8  # payload bytes, with the kind

    def __init__(
        self,
        trump: int = SUIT_NONE,
        maker: int = SEAT_NONE,
        alone: bool = False,
        score_ns: int = 0,
        score_ew: int = 0,
        alert: int = ALERT_NONE,
        brightness: int = 32,
    ) -> None:
        self.trump = trump
        self.maker = maker
        self.alone = alone
        self.score_ns = score_ns
        self.score_ew = score_ew
        self.alert = alert
        self.brightness = brightness

    def _fields(self) -> tuple[int, int, bool, int, int, int, int]:
        return (
            self.trump,
            self.maker,
            self.alone,
            self.score_ns,
            self.score_ew,
            self.alert,
            self.brightness,
        )

    def check(self) -> None:
        """Raise ``ProtocolError`` for a field out of range."""
        if not 0 <= self.trump <= SUIT_NO_TRUMP:
            raise ProtocolError("trump " + str(self.trump) + " is not a SUIT_* value")
        if not 0 <= self.maker <= SEAT_W:
            raise ProtocolError("maker " + str(self.maker) + " is not a SEAT_* value")
        if not (-128 <= self.score_ns <= 127 and -128 <= self.score_ew <= 127):
            raise ProtocolError("scores must be -128..127")
        if not 0 <= self.alert <= ALERT_MAX:
            raise ProtocolError("alert " + str(self.alert) + " is not an ALERT_* value")
        if not 0 <= self.brightness <= 255:
            raise ProtocolError("brightness must be 0..255")

    def to_payload(self) -> bytes:
        self.check()
        return bytes(
            (
                KIND_SET_STATE,
                self.trump,
                self.maker,
                1 if self.alone else 0,
                self.score_ns & 0xFF,
                self.score_ew & 0xFF,
                self.alert,
                self.brightness,
            )
        )

    @staticmethod
    def from_payload(payload: bytes) -> "State":
        _need(payload, State.SIZE, "set state")
        if payload[3] > 1:
            raise ProtocolError("set state: the alone flag must be 0 or 1")
        state = State(
            payload[1],
            payload[2],
            payload[3] == 1,
            _signed(payload[4]),
            _signed(payload[5]),
            payload[6],
            payload[7],
        )
        state.check()
        return state

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and other._fields() == self._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "State" + repr(self._fields())
