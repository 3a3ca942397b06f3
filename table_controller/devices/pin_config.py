"""Reading the seat pin map from the configuration file's ``[seats]`` table.

The shape (docs/seats.md)::

    [seats]
    led_wiring = "common-cathode"
    director = 8
    [seats.N]
    led = [17, 27, 22]   # red, green, blue (or {red = 17, green = 27, blue = 22})
    pass = 2
    call = 3
    alone = 4
    # ... and E, S, W

Every problem is collected before giving up, so one start of the table lists them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from table_controller.clip import clip
from table_controller.devices.pins import (
    LED_COLOURS,
    LedWiring,
    PinMap,
    PinMapError,
    PinProblem,
    PinUse,
    SeatPins,
    check_uses,
    seat_uses,
)
from table_controller.devices.seat_events import SEAT_BUTTONS, SeatButton
from table_controller.seats import SEATS, Seat


def parse_pin_map(data: object) -> PinMap:
    """The PinMap of a ``[seats]`` table, or ``PinMapError`` listing every problem."""
    return _Parser().parse(data)


_SEAT_KEYS = ("led", "pass", "call", "alone")
_SEAT_NAMES = frozenset(s.name for s in SEATS)
_TOP_KEYS = ("N", "E", "S", "W", "director", "led_wiring")


class _Parser:
    """Reads a mapping into a PinMap, collecting every problem before giving up."""

    def __init__(self) -> None:
        self.problems: list[PinProblem] = []

    def problem(self, seat: Seat | None, function: str, value: object, message: str) -> None:
        self.problems.append(PinProblem(seat, function, value, message))

    def parse(self, data: object) -> PinMap:
        if not isinstance(data, Mapping):
            raise PinMapError(
                [
                    PinProblem(
                        None,
                        "seat pin map",
                        data,
                        f"the seat pin map is {clip(data)}: it must be a table of the seats "
                        "N, E, S and W and the director button (see docs/seats.md)",
                    )
                ]
            )
        entries: dict[str, object] = {}
        for key, value in data.items():
            name = key.upper() if isinstance(key, str) and key.upper() in _SEAT_NAMES else key
            if name not in _TOP_KEYS:
                self.problem(
                    None,
                    str(key),
                    value,
                    f"the seat pin map has an unknown entry {clip(key)}: its entries are "
                    "N, E, S, W, director and led_wiring.",
                )
                continue
            entries[str(name)] = value
        wiring = self.wiring(entries.get("led_wiring", LedWiring.COMMON_CATHODE.value))
        director: object = entries.get("director")
        if "director" not in entries:
            self.problem(
                None,
                "director button",
                None,
                "the table's director button has no pin: add `director = 8` (the four "
                "seats' director buttons are wired together to that one pin).",
            )
        seats: list[SeatPins | None] = []
        for seat in SEATS:
            seats.append(self.seat(seat, entries.get(seat.name)))
        uses: list[PinUse] = []
        for seat, pins in zip(SEATS, seats, strict=True):
            if pins is not None:
                uses.extend(seat_uses(seat, pins))
        if "director" in entries:
            # Values of any type are checked here, with every other pin.
            uses.append(PinUse(cast(int, director), None, SeatButton.DIRECTOR.words))
        self.problems.extend(check_uses(uses))
        if self.problems:
            raise PinMapError(self.problems)
        assert wiring is not None and type(director) is int
        n, e, s, w = (pins for pins in seats if pins is not None)
        return PinMap((n, e, s, w), director, wiring)

    def wiring(self, value: object) -> LedWiring | None:
        for wiring in LedWiring:
            if value == wiring.value:
                return wiring
        self.problem(
            None,
            "led_wiring",
            value,
            f'led_wiring is {clip(value)}: write "common-cathode" (the lights\' long leg to '
            'ground) or "common-anode" (the long leg to 3.3 V).',
        )
        return None

    def seat(self, seat: Seat, table: object) -> SeatPins | None:
        if table is None:
            self.problem(
                seat,
                "seat",
                None,
                f"seat {seat} has no pins: add a [seats.{seat}] table with led, pass, call "
                "and alone (see docs/seats.md).",
            )
            return None
        if not isinstance(table, Mapping):
            self.problem(
                seat,
                "seat",
                table,
                f"seat {seat} is {clip(table)}: it must be a table with led, pass, call and alone.",
            )
            return None
        for key in table:
            if key == "director":
                self.problem(
                    seat,
                    "director button",
                    table[key],
                    f"seat {seat} has its own director button, but the director button is one "
                    "for the table: write `director = PIN` once, outside the seats, and wire "
                    "the four seats' director buttons together to that pin.",
                )
            elif key not in _SEAT_KEYS:
                self.problem(
                    seat,
                    str(key),
                    table[key],
                    f"seat {seat} has an unknown entry {clip(key)}: its entries are led, pass, "
                    "call and alone.",
                )
        led = self.led(seat, table.get("led"))
        buttons: list[int] = []
        complete = led is not None
        for button in SEAT_BUTTONS:
            value = table.get(button.value)
            if value is None:
                self.problem(
                    seat,
                    button.words,
                    None,
                    f"seat {seat}'s {button.words} has no pin: add `{button.value} = PIN` "
                    f"to [seats.{seat}].",
                )
                complete = False
            buttons.append(cast(int, value))  # any type: check_uses reports a wrong one
        if led is None or not complete:
            return None
        return SeatPins(*led, *buttons)

    def led(self, seat: Seat, value: object) -> tuple[int, int, int] | None:
        """The three pins, red, green, blue, of any type: check_uses reports a wrong one."""
        if value is None:
            self.problem(
                seat,
                "LED",
                None,
                f"seat {seat}'s light has no pins: add `led = [RED, GREEN, BLUE]` to "
                f"[seats.{seat}].",
            )
            return None
        if isinstance(value, Mapping):
            if set(value) == set(LED_COLOURS):
                return cast(tuple[int, int, int], (value["red"], value["green"], value["blue"]))
        elif isinstance(value, list | tuple) and len(value) == 3:
            return cast(tuple[int, int, int], tuple(value))
        self.problem(
            seat,
            "LED",
            value,
            f"seat {seat}'s led is {clip(value)}: write its three pins in the order red, green, "
            "blue, e.g. `led = [17, 27, 22]` (or `led = {red = 17, green = 27, blue = 22}`).",
        )
        return None


__all__ = ["parse_pin_map"]
