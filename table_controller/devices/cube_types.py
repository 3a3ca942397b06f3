"""The words the trump cube's link speaks in: what it shows, what it reports, its settings
and its errors. Typed values for the host; ``frame.py`` turns them into bytes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from table_controller.cards import Suit
from table_controller.devices import frame
from table_controller.errors import TableControllerError
from table_controller.seats import Seat


class Alert(Enum):
    """An alert blinks on the cube over everything else until the next state clears it."""

    NONE = frame.ALERT_NONE
    RENEGE = frame.ALERT_RENEGE
    DIRECTOR = frame.ALERT_DIRECTOR  # the director has been called to the table
    MISDEAL = frame.ALERT_MISDEAL
    IRREGULARITY = frame.ALERT_IRREGULARITY


_WIRE_SUIT = {
    Suit.C: frame.SUIT_CLUBS,
    Suit.D: frame.SUIT_DIAMONDS,
    Suit.H: frame.SUIT_HEARTS,
    Suit.S: frame.SUIT_SPADES,
}
_SUIT_OF_WIRE = {v: k for k, v in _WIRE_SUIT.items()}


@dataclass(frozen=True)
class CubeState:
    """Everything the cube shows, as one snapshot: the link sends it whole, so sending it
    again (after a reconnect, or a replay after a crash) can never count anything twice.

    ``trump`` None is "not decided yet"; ``no_trump`` shows a no-trump bid (Bid Euchre).
    Scores run -128..127 (the cube draws -9..99); ``brightness`` 0..255 scales every LED
    (the firmware also caps the matrix at about 400 mA).
    """

    trump: Suit | None = None
    maker: Seat | None = None
    alone: bool = False
    score_ns: int = 0
    score_ew: int = 0
    alert: Alert = Alert.NONE
    no_trump: bool = False
    brightness: int = 32

    def __post_init__(self) -> None:
        for name in ("score_ns", "score_ew"):
            value = getattr(self, name)
            if not -128 <= value <= 127:
                raise ValueError(f"{name}={value}: the cube takes scores from -128 to 127")
        if not 0 <= self.brightness <= 255:
            raise ValueError(f"brightness={self.brightness}: use 0 (off) to 255 (full)")
        if self.no_trump and self.trump is not None:
            raise ValueError("no_trump=True with a trump suit: choose one")
        if self.alone and self.maker is None:
            raise ValueError("alone=True needs the maker's seat (maker=...)")

    def to_wire(self) -> frame.State:
        if self.no_trump:
            trump = frame.SUIT_NO_TRUMP
        else:
            trump = frame.SUIT_NONE if self.trump is None else _WIRE_SUIT[self.trump]
        return frame.State(
            trump=trump,
            maker=frame.SEAT_NONE if self.maker is None else int(self.maker) + 1,
            alone=self.alone,
            score_ns=self.score_ns,
            score_ew=self.score_ew,
            alert=self.alert.value,
            brightness=self.brightness,
        )

    @classmethod
    def from_wire(cls, state: frame.State) -> CubeState:
        return cls(
            trump=_SUIT_OF_WIRE.get(state.trump),
            maker=None if state.maker == frame.SEAT_NONE else Seat(state.maker - 1),
            alone=state.alone,
            score_ns=state.score_ns,
            score_ew=state.score_ew,
            alert=Alert(state.alert),
            no_trump=state.trump == frame.SUIT_NO_TRUMP,
            brightness=state.brightness,
        )


def suit_of_wire(value: int) -> Suit | None:
    return _SUIT_OF_WIRE.get(value)


@dataclass(frozen=True)
class CubeInfo:
    """What the cube said about itself at the handshake."""

    port: str
    protocol: int
    firmware: str
    width: int
    height: int
    has_accelerometer: bool


@dataclass(frozen=True)
class ButtonPressed:
    """The cube's button went down (``held`` False), or has been held down 1.5 s (True)."""

    held: bool
    at: float  # the host's monotonic clock when the event arrived


@dataclass(frozen=True)
class FaceTurnedUp:
    """The cube came to rest with ``face`` (0..5) up; ``suit`` is the suit printed on it
    (None on the faces without one: 0 is the matrix facing up)."""

    face: int
    suit: Suit | None
    at: float


@dataclass(frozen=True)
class LinkChanged:
    """The link came up (the handshake passed, the state is being sent) or went down."""

    up: bool
    reason: str
    at: float


CubeEvent = ButtonPressed | FaceTurnedUp | LinkChanged


@dataclass(frozen=True)
class CubeConfig:
    """How to reach the cube and how patient to be. Times are in seconds.

    ``port``: a device path (``/dev/serial/by-id/...`` survives replugging), any pyserial
    URL, ``auto`` (the first USB serial device that is a Raspberry Pi Pico running
    MicroPython) or ``emulator`` (the firmware run on this machine behind a pty).
    """

    port: str = "auto"
    link_timeout: float = 2.0  # no frame for this long: the link is lost
    min_rto: float = 0.025  # retransmission timeout bounds (Klipper's minimum)
    max_rto: float = 0.25  # Klipper's is 5 s; a few bytes a second need no long backoff
    hello_interval: float = 0.05  # between hellos while the cube does not answer
    handshake_timeout: float = 3.0  # then close the port and try again
    reconnect_interval: float = 0.25  # between attempts to open a missing port
    baudrate: int = 115200  # the Pico's USB serial ignores it; a UART would not

    def __post_init__(self) -> None:
        if not 0.1 <= self.link_timeout <= 60:
            raise ValueError(f"link_timeout={self.link_timeout}: use 0.1 to 60 seconds")
        if not 0 < self.min_rto <= self.max_rto:
            raise ValueError("min_rto must be above 0 and at most max_rto")


class CubeError(TableControllerError):
    """Something kept the cube from showing the state; the message says what to do."""


class CubeNotFound(CubeError):
    """No port to open: the cube is unplugged, or the port named is wrong."""


class CubeNoAnswer(CubeError):
    """The port opened but nothing on it answered the handshake like a cube."""


class CubeVersionError(CubeError):
    """The firmware speaks another protocol version: flash the firmware of this release."""


class CubeRejected(CubeError):
    """The cube refused a message as unknown or malformed (a firmware mismatch)."""


class CubeTimeout(CubeError):
    """The cube did not acknowledge in the time given."""
