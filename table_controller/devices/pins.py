"""The seat pin map: which GPIO lights each seat and reads each of its buttons.

Four seats of an RGB light (3 pins) and four buttons would need 28 pins; a Raspberry
Pi's 40-pin header has 26 usable GPIOs (GPIO2 to GPIO27; GPIO0 and GPIO1 belong to the
HAT identity EEPROM). So the call-the-director button is one for the table: the four
seats' director buttons are wired in parallel to one pin. That makes 25 pins, and the
default map leaves GPIO7 free. It uses the pins that double as I2C, SPI and the serial
port as plain GPIOs, which the table does not need: the camera has its own connector,
the trump cube is on USB, and the Pi 5's console has its own UART connector.
docs/seats.md tells the whole reasoning and the alternatives weighed.

A map comes from code (``DEFAULT_PIN_MAP``) or from the ``[seats]`` table of the table's
configuration file (``parse_pin_map``, in pin_config.py); every problem is
reported at once, naming the seat, the function and the pin, and saying what to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from table_controller.clip import clip
from table_controller.devices.seat_events import SEAT_BUTTONS, SeatButton
from table_controller.errors import TableControllerError
from table_controller.seats import SEATS, Seat

# The 40-pin header, physical pin -> GPIO number (BCM) or what the pin is.
HEADER: dict[int, int | str] = {
    1: "3V3", 2: "5V", 3: 2, 4: "5V", 5: 3, 6: "GND", 7: 4, 8: 14, 9: "GND", 10: 15,
    11: 17, 12: 18, 13: 27, 14: "GND", 15: 22, 16: 23, 17: "3V3", 18: 24, 19: 10, 20: "GND",
    21: 9, 22: 25, 23: 11, 24: 8, 25: "GND", 26: 7, 27: 0, 28: 1, 29: 5, 30: "GND",
    31: 6, 32: 12, 33: 13, 34: "GND", 35: 19, 36: 16, 37: 26, 38: 20, 39: "GND", 40: 21,
}  # fmt: skip
PHYSICAL_PIN = {gpio: pin for pin, gpio in HEADER.items() if isinstance(gpio, int)}
USABLE_GPIOS = tuple(range(2, 28))
RESERVED_GPIOS = {0: "the HAT identity EEPROM (ID_SD)", 1: "the HAT identity EEPROM (ID_SC)"}
# What else a pin can be: a map may use them as GPIOs only while that function is off.
OTHER_USE = {
    2: "I2C SDA",
    3: "I2C SCL",
    4: "1-Wire",
    7: "SPI CE1",
    8: "SPI CE0",
    9: "SPI MISO",
    10: "SPI MOSI",
    11: "SPI SCLK",
    12: "PWM0",
    13: "PWM1",
    14: "UART TX",
    15: "UART RX",
    18: "PWM0, PCM clock",
    19: "PWM1, PCM frame",
    20: "PCM in",
    21: "PCM out",
}
LED_COLOURS = ("red", "green", "blue")


class LedWiring(Enum):
    """How the seat lights are wired. Common cathode: the long leg to ground, a GPIO high
    lights a colour. Common anode: the long leg to 3.3 V (never 5 V), a GPIO low lights."""

    COMMON_CATHODE = "common-cathode"
    COMMON_ANODE = "common-anode"

    @property
    def active_high(self) -> bool:
        return self is LedWiring.COMMON_CATHODE


@dataclass(frozen=True, slots=True)
class SeatPins:
    """One seat's pins: its light's red, green and blue legs, and its three buttons."""

    red: int
    green: int
    blue: int
    pass_button: int
    call_button: int
    alone_button: int

    @property
    def led(self) -> tuple[int, int, int]:
        return (self.red, self.green, self.blue)

    def button(self, button: SeatButton) -> int:
        if button is SeatButton.PASS:
            return self.pass_button
        if button is SeatButton.CALL:
            return self.call_button
        if button is SeatButton.ALONE:
            return self.alone_button
        raise ValueError("the director button is the table's: PinMap.director")


@dataclass(frozen=True, slots=True)
class PinUse:
    """One job a pin does: ``function`` is e.g. "red LED" or "pass button"."""

    pin: int
    seat: Seat | None
    function: str

    @property
    def words(self) -> str:
        if self.seat is None:
            return f"the table's {self.function}"
        return f"seat {self.seat}'s {self.function}"

    @property
    def physical_pin(self) -> int | None:
        return PHYSICAL_PIN.get(self.pin)


@dataclass(frozen=True, slots=True)
class PinProblem:
    """One thing wrong in a pin map: where (seat, function), the value found (None when
    missing), and a sentence saying what is wrong and what to do."""

    seat: Seat | None
    function: str
    pin: object
    message: str


class PinMapError(TableControllerError, ValueError):
    """A pin map the table cannot use; ``problems`` lists every one found."""

    def __init__(self, problems: Iterable[PinProblem]) -> None:
        self.problems = tuple(problems)
        lines = [p.message for p in self.problems]
        head = (
            "the seat pin map has a problem"
            if len(lines) == 1
            else f"the seat pin map has {len(lines)} problems"
        )
        super().__init__(head + ":\n" + "\n".join(f"  - {line}" for line in lines))


@dataclass(frozen=True, slots=True)
class PinMap:
    """The pins of the four seats (indexed by ``Seat``) and the table's director button.
    Checked when built: a pin that is not a usable GPIO, or one used twice, raises
    ``PinMapError``."""

    seats: tuple[SeatPins, SeatPins, SeatPins, SeatPins]
    director: int
    led_wiring: LedWiring = LedWiring.COMMON_CATHODE

    def __post_init__(self) -> None:
        problems = check_uses(self.uses())
        if problems:
            raise PinMapError(problems)

    def seat(self, seat: Seat) -> SeatPins:
        return self.seats[seat]

    def uses(self) -> tuple[PinUse, ...]:
        """Every pin's job, seat by seat, then the director button."""
        uses = [use for seat in SEATS for use in seat_uses(seat, self.seats[seat])]
        uses.append(PinUse(self.director, None, SeatButton.DIRECTOR.words))
        return tuple(uses)

    def free_gpios(self) -> tuple[int, ...]:
        used = {u.pin for u in self.uses()}
        return tuple(g for g in USABLE_GPIOS if g not in used)

    def to_mapping(self) -> dict[str, object]:
        """The map in the configuration file's shape (what ``pin_config.parse_pin_map`` reads)."""
        data: dict[str, object] = {
            "led_wiring": self.led_wiring.value,
            "director": self.director,
        }
        for seat in SEATS:
            pins = self.seats[seat]
            data[seat.name] = {
                "led": list(pins.led),
                "pass": pins.pass_button,
                "call": pins.call_button,
                "alone": pins.alone_button,
            }
        return data

    def toml(self) -> str:
        """The ``[seats]`` table for the configuration file, with the default's layout."""
        lines = [
            "[seats]",
            f'led_wiring = "{self.led_wiring.value}"   # or "common-anode"',
            f"director = {self.director}   # the four director buttons, wired together",
        ]
        for seat in SEATS:
            pins = self.seats[seat]
            red, green, blue = pins.led
            lines += [
                "",
                f"[seats.{seat.name}]",
                f"led = [{red}, {green}, {blue}]   # red, green, blue",
                f"pass = {pins.pass_button}",
                f"call = {pins.call_button}",
                f"alone = {pins.alone_button}",
            ]
        return "\n".join(lines) + "\n"


def check_uses(uses: Iterable[PinUse]) -> list[PinProblem]:
    """Pins that are not usable GPIOs, and pins given two jobs."""
    uses = list(uses)
    problems: list[PinProblem] = []
    valid = [u for u in uses if usable(u.pin)]
    free = free_words({u.pin for u in valid})
    for use in uses:
        wrong = _pin_wrong(use.pin, use.words, free)
        if wrong is not None:
            problems.append(PinProblem(use.seat, use.function, use.pin, wrong))
    by_pin: dict[int, list[PinUse]] = {}
    for use in valid:
        by_pin.setdefault(use.pin, []).append(use)
    for pin, jobs in by_pin.items():
        if len(jobs) > 1:
            names = " and ".join(j.words for j in jobs)
            problems.append(
                PinProblem(
                    jobs[1].seat,
                    jobs[1].function,
                    pin,
                    f"GPIO{pin} is given to {names}: a pin can do one job. "
                    f"Move one of them to a free pin ({free}).",
                )
            )
    return problems


def usable(pin: object) -> bool:
    return type(pin) is int and pin in USABLE_GPIOS


def free_words(used: set[int]) -> str:
    free = [g for g in USABLE_GPIOS if g not in used]
    if not free:
        return "none is left: see docs/seats.md for wiring with fewer pins"
    shown = ", ".join(f"GPIO{g}" for g in free[:6])
    more = f" and {len(free) - 6} more" if len(free) > 6 else ""
    return f"free now: {shown}{more}"


def _pin_wrong(pin: object, where: str, free: str) -> str | None:
    """What is wrong with ``pin`` for ``where``, or None."""
    if type(pin) is not int:
        return f"{where} is {clip(pin)}: write a GPIO number, such as 17 for GPIO17."
    if pin in RESERVED_GPIOS:
        return (
            f"{where} is GPIO{pin}, which is reserved for {RESERVED_GPIOS[pin]}: "
            f"choose another pin ({free})."
        )
    if pin in USABLE_GPIOS:
        return None
    physical = HEADER.get(pin)
    if isinstance(physical, int) and physical in USABLE_GPIOS:
        hint = f" If you meant the header's pin {pin}, that is GPIO{physical}: write {physical}."
    elif isinstance(physical, int):
        reserved = RESERVED_GPIOS[physical]
        hint = f" The header's pin {pin} is GPIO{physical}, reserved for {reserved}."
    elif isinstance(physical, str):
        hint = f" The header's pin {pin} is {physical}, not a GPIO."
    else:
        hint = ""
    return (
        f"{where} is {pin}, which is not a GPIO of the 40-pin header: the map uses GPIO "
        f"(BCM) numbers 2 to 27, not the header's pin numbers.{hint}"
    )


def seat_uses(seat: Seat, pins: SeatPins) -> Iterable[PinUse]:
    for colour, pin in zip(LED_COLOURS, pins.led, strict=True):
        yield PinUse(pin, seat, f"{colour} LED")
    for button in SEAT_BUTTONS:
        yield PinUse(pins.button(button), seat, button.words)


def _default() -> PinMap:
    # Each seat's six pins sit together on the header; lights on GPIOs that are pulled
    # down at power-up (so they stay dark while the Pi boots), buttons on the rest.
    return PinMap(
        (
            SeatPins(17, 27, 22, 2, 3, 4),  # N: header pins 11 13 15 and 3 5 7
            SeatPins(10, 9, 11, 5, 6, 13),  # E: header pins 19 21 23 and 29 31 33
            SeatPins(23, 24, 25, 14, 15, 18),  # S: header pins 16 18 22 and 8 10 12
            SeatPins(16, 20, 21, 19, 26, 12),  # W: header pins 36 38 40 and 35 37 32
        ),
        director=8,  # header pin 24; GPIO7 (pin 26) is left free
    )


DEFAULT_PIN_MAP = _default()

__all__ = [
    "DEFAULT_PIN_MAP",
    "HEADER",
    "OTHER_USE",
    "PHYSICAL_PIN",
    "USABLE_GPIOS",
    "LedWiring",
    "PinMap",
    "PinMapError",
    "PinProblem",
    "PinUse",
    "SeatPins",
    "check_uses",
    "seat_uses",
]
