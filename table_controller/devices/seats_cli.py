"""``table-controller seats``: check a table's seat wiring, print its pin map.

``seats test`` lights each seat in each colour, then shows every light the game uses,
then reports each button as it is pressed, so a builder can check every wire with the
table in front of them. ``--simulated`` runs the same on simulated pins (the buttons are
pressed for you), to see what to expect before any soldering.
"""

from __future__ import annotations

import argparse
import queue
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, TextIO

from table_controller.commands import help_of
from table_controller.devices.gpio import (
    GpioBackend,
    GpioUnavailable,
    SeatDeviceError,
    make_pin_factory,
)
from table_controller.devices.pin_config import parse_pin_map
from table_controller.devices.pins import DEFAULT_PIN_MAP, OTHER_USE, PinMap, PinMapError
from table_controller.devices.seat_events import (
    SEAT_BUTTONS,
    ButtonEvent,
    ButtonFreed,
    ButtonPressed,
    ButtonStuck,
    SeatButton,
)
from table_controller.devices.seat_lights import SeatLight
from table_controller.safe_toml import TOMLLimitError, loads_limited
from table_controller.seats import SEATS, Seat

COLOURS = (("red", (1.0, 0.0, 0.0)), ("green", (0.0, 1.0, 0.0)), ("blue", (0.0, 0.0, 1.0)))
WHITE = (1.0, 1.0, 1.0)
DARK = (0.0, 0.0, 0.0)


def load_pin_map(path: str | None) -> PinMap:
    """The default map, or the ``[seats]`` table of a TOML file (or the whole file)."""
    if path is None:
        return DEFAULT_PIN_MAP
    data = loads_limited(Path(path).read_text(encoding="utf-8"))
    return parse_pin_map(data.get("seats", data))


def _pin_map_or_error(args: argparse.Namespace) -> PinMap | None:
    path = args.pins
    try:
        return load_pin_map(path)
    except OSError as exc:
        _error(f"cannot read {path} ({exc.strerror}): give the TOML file with the [seats] table")
    except tomllib.TOMLDecodeError as exc:
        _error(f"{path} is not valid TOML ({exc}): fix that line, then run this again")
    except TOMLLimitError as exc:
        _error(f"{path}: {exc}: give the TOML file with the [seats] table")
    except UnicodeDecodeError:
        _error(f"{path} is not UTF-8 text: give the TOML file with the [seats] table")
    except PinMapError as exc:
        where = path or "the default pin map"
        _error(f"{where}: {exc}\nThe pin map format is in docs/seats.md.")
    return None


def _error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def cmd_pins(args: argparse.Namespace, out: TextIO) -> int:
    pin_map = _pin_map_or_error(args)
    if pin_map is None:
        return 2
    if args.toml:
        out.write(pin_map.toml())
        return 0
    out.write(f"{'seat':<6}{'what':<16}{'GPIO':<8}{'header pin':<12}also\n")
    for use in pin_map.uses():
        seat = "table" if use.seat is None else str(use.seat)
        also = OTHER_USE.get(use.pin, "")
        out.write(f"{seat:<6}{use.function:<16}{use.pin:<8}{use.physical_pin!s:<12}{also}\n")
    free = ", ".join(f"GPIO{g}" for g in pin_map.free_gpios()) or "none"
    out.write(
        f"\nLights: {pin_map.led_wiring.value}. Free GPIOs: {free}.\n"
        "Ground for the buttons and common-cathode lights: header pins 6, 9, 14, 20, 25, "
        "30, 34, 39.\nWiring: hardware/wiring.md.\n"
    )
    return 0


def cmd_test(args: argparse.Namespace, out: TextIO) -> int:
    pin_map = _pin_map_or_error(args)
    if pin_map is None:
        return 2
    backend = GpioBackend.SIMULATED if args.simulated else GpioBackend.parse(args.backend)
    step = args.step if args.step is not None else (0.0 if args.simulated else 1.0)
    try:
        factory = make_pin_factory(backend)
    except GpioUnavailable as exc:
        _error(str(exc))
        return 2
    from table_controller.devices.seat_buttons import SeatButtons
    from table_controller.devices.seat_leds import SeatLeds

    events: queue.Queue[ButtonEvent] = queue.Queue()
    try:
        with SeatLeds(pin_map, factory) as leds:
            out.write(f"Pins: {backend.value}.\n")
            _check_lights(leds, pin_map, step, out)
            with SeatButtons(pin_map, factory, events.put) as buttons:
                return _check_buttons(buttons, pin_map, factory, events, args, out)
    except SeatDeviceError as exc:
        _error(str(exc))
        return 2
    except KeyboardInterrupt:  # pragma: no cover - Ctrl-C during the lights
        out.write("\nStopped.\n")
        return 1
    finally:
        factory.close()


def _check_lights(leds: Any, pin_map: PinMap, step: float, out: TextIO) -> None:
    out.write(
        "\nSeat lights: each seat lights red, green, blue, then white, in turn.\n"
        "A colour that does not light, or lights wrong, is a loose or swapped wire.\n"
    )
    for seat in SEATS:
        pins = pin_map.seat(seat)
        for (name, rgb), pin in zip(COLOURS, pins.led, strict=True):
            out.write(f"  {seat}: {name} (GPIO{pin})\n")
            leds.set_colour(seat, rgb)
            time.sleep(step)
        out.write(f"  {seat}: white (all three)\n")
        leds.set_colour(seat, WHITE)
        time.sleep(step)
        leds.set_colour(seat, DARK)
    out.write("\nThe lights the game uses, on every seat (docs/seats.md says what each means):\n")
    for light in SeatLight:
        if light is SeatLight.OFF:
            continue
        colour = "" if light.colour is None else light.colour.name.lower() + ", "
        out.write(f"  {light.key}: {colour}{light.pattern.value}\n")
        leds.show((light, light, light, light))
        time.sleep(step * 2)
    leds.off()


def _check_buttons(
    buttons: Any,
    pin_map: PinMap,
    factory: Any,
    events: queue.Queue[ButtonEvent],
    args: argparse.Namespace,
    out: TextIO,
) -> int:
    wanted: list[tuple[Seat | None, SeatButton]] = [(s, b) for s in SEATS for b in SEAT_BUTTONS]
    wanted.append((None, SeatButton.DIRECTOR))
    pressed: set[tuple[Seat | None, SeatButton]] = set()
    if args.simulated:
        out.write("\nButtons (simulated: each is pressed for you):\n")
        for seat, kind in wanted:
            pin = factory.pin(_pin(pin_map, seat, kind))
            pin.drive_low()
            pin.drive_high()
    else:
        out.write(
            f"\nButtons: press each one (13 in all). Ctrl-C stops; after {args.seconds:g} s "
            "this stops by itself.\n"
        )
    deadline = time.monotonic() + (0.5 if args.simulated else args.seconds)
    try:
        while len(pressed) < len(wanted):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                event = events.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            _report(event, pin_map, pressed, out)
    except KeyboardInterrupt:
        out.write("\nStopped.\n")
    missing = [w for w in wanted if w not in pressed]
    if not missing:
        out.write("All 13 buttons work.\n")
        return 0
    names = ", ".join(f"{_name(s, b)} (GPIO{_pin(pin_map, s, b)})" for s, b in missing)
    out.write(
        f"Not pressed: {names}. If you pressed one and nothing showed, check its wire to the "
        "GPIO and to ground (hardware/wiring.md).\n"
    )
    return 1


def _report(
    event: ButtonEvent,
    pin_map: PinMap,
    pressed: set[tuple[Seat | None, SeatButton]],
    out: TextIO,
) -> None:
    name = _name(event.seat, event.button)
    if isinstance(event, ButtonPressed):
        pressed.add((event.seat, event.button))
        pin = _pin(pin_map, event.seat, event.button)
        out.write(f"  {name}: pressed (GPIO{pin})\n")
    elif isinstance(event, ButtonStuck):
        out.write(f"  fault: {event.what_to_do}\n")
    elif isinstance(event, ButtonFreed):
        out.write(f"  {name}: came up again, works now\n")


def _name(seat: Seat | None, button: SeatButton) -> str:
    return "director button" if seat is None else f"{seat} {button.words}"


def _pin(pin_map: PinMap, seat: Seat | None, button: SeatButton) -> int:
    return pin_map.director if seat is None else pin_map.seat(seat).button(button)


def add_commands(subparsers: Any) -> None:
    """Add the ``seats`` command group to a ``table-controller`` parser's subparsers."""
    seats = subparsers.add_parser(
        "seats",
        help=help_of("seats"),
        description="Check a table's seat lights and buttons, and print its pin map.",
    )
    sub = seats.add_subparsers(dest="seats_command", required=True, metavar="COMMAND")

    def pins_option(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--pins",
            metavar="FILE.toml",
            help="a pin map: a TOML file with a [seats] table (default: the built-in map)",
        )

    pins = sub.add_parser("pins", help="print the pin map: each seat's GPIOs and header pins")
    pins_option(pins)
    pins.add_argument("--toml", action="store_true", help="print it as a [seats] TOML table")
    pins.set_defaults(func=cmd_pins)

    test = sub.add_parser(
        "test", help="light each seat in turn and report each button as it is pressed"
    )
    pins_option(test)
    test.add_argument(
        "--simulated",
        action="store_true",
        help="use simulated pins (no Raspberry Pi needed); the buttons are pressed for you",
    )
    test.add_argument(
        "--backend",
        default=GpioBackend.LGPIO.value,
        choices=[GpioBackend.LGPIO.value, GpioBackend.RPIGPIO.value],
        help="the pin library on a Pi (default lgpio, the one a Pi 5 needs)",
    )
    test.add_argument(
        "--seconds",
        type=float,
        default=120.0,
        help="how long to wait for the button presses (default 120)",
    )
    test.add_argument(
        "--step",
        type=float,
        metavar="SECONDS",
        help="how long each colour stays lit (default 1; 0 when simulated)",
    )
    test.set_defaults(func=cmd_test)


__all__ = ["add_commands", "load_pin_map"]
