"""The table's devices: the seat lights and buttons on their GPIO pins, and the trump cube.

Opened when the table starts and closed when it stops. A device that cannot be had is
a fault (SEATS, CUBE), never a reason not to start: the page still works, and the
table says what to do. Device events arrive on the devices' own threads and are handed
to the event loop (``call_soon_threadsafe``); nothing here touches the game.

On the simulated table the pins are gpiozero's mock pins and the cube is its real
firmware behind a pty (``CubeEmulator``): ``press`` drives a button's pin as a finger
would, ``turn_cube`` lays the emulated cube down with a suit's face up.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, TypeVar

from table_controller.cards import Suit
from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import CubeBackend, EmulatorBackend, cube_backend
from table_controller.devices.cube_types import CubeEvent
from table_controller.devices.emulator import CubeEmulator
from table_controller.devices.gpio import (
    GpioBackend,
    GpioUnavailable,
    SeatDeviceError,
    make_pin_factory,
)
from table_controller.devices.seat_events import ButtonEvent, SeatButton
from table_controller.seats import Seat
from table_controller.table.config import TableConfig
from table_controller.table.health import Device, Health
from table_controller.table.machine import WITHOUT_CUBE

if TYPE_CHECKING:
    from table_controller.devices.seat_buttons import SeatButtons
    from table_controller.devices.seat_leds import SeatLeds

CUBE_FIX = (
    "check the cube's USB cable (a data cable, not a charge-only one); it reconnects by itself"
)
# A cube that never answered since the start: perhaps there is none at this table.
NEVER_FIX = f"{CUBE_FIX}. If this table has no cube: in its config, {WITHOUT_CUBE}"
CUBE_GRACE = 5.0  # seconds after the start before a cube that never answered is a fault


E = TypeVar("E")  # a device's event, handed over to the loop


class Listener(Protocol):
    """What the devices report to (the table)."""

    def on_button(self, event: ButtonEvent) -> None: ...

    def on_cube(self, event: CubeEvent) -> None: ...


class MockPin(Protocol):
    """A gpiozero mock pin, as the simulated table's hands drive it."""

    def drive_low(self) -> None: ...

    def drive_high(self) -> None: ...


class PinFactory(Protocol):
    """What the table itself does with a gpiozero pin factory (gpiozero has no types):
    close the one it made, and take a mock pin to press a button (``press``); the
    devices it is handed to use the rest."""

    def close(self) -> None: ...

    def pin(self, number: int) -> MockPin: ...


def pin_factory_for(gpio: str) -> PinFactory:
    """The gpiozero pin factory for the config's ``gpio``: ``mock`` (gpiozero's mock
    pins), ``auto`` (lgpio, else RPi.GPIO), or a backend's name."""
    if gpio == "mock":
        return _made(GpioBackend.SIMULATED)
    if gpio == "auto":
        try:
            return _made(GpioBackend.LGPIO)
        except GpioUnavailable as first:
            try:
                return _made(GpioBackend.RPIGPIO)
            except GpioUnavailable:
                raise first from None
    return _made(GpioBackend.parse(gpio))


def _made(backend: GpioBackend) -> PinFactory:
    # gpiozero is untyped: the factory it makes is held to what the table uses of it.
    factory: PinFactory = make_pin_factory(backend)
    return factory


class TableDevices:
    """The lights, the buttons and the cube of ``config``."""

    def __init__(
        self,
        config: TableConfig,
        *,
        clock: Callable[[], float],
        pin_factory: PinFactory | None = None,
        emulator: CubeEmulator | None = None,
        lights: bool = True,
        buttons: bool = True,
    ) -> None:
        self.config = config
        self._clock = clock
        self._factory = pin_factory
        self._own_factory = pin_factory is None
        self.emulator = emulator
        self._own_emulator = False
        self._want_lights = lights
        self._want_buttons = buttons
        self.lights: SeatLeds | None = None
        self.buttons: SeatButtons | None = None
        self.cube: TrumpCube | None = None
        self._started = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None

    # --- opening and closing ----------------------------------------------------------

    def open(self, listener: Listener, health: Health) -> None:
        """Open every device there is; each one missing is a fault. In the loop."""
        from table_controller.devices.seat_buttons import SeatButtons
        from table_controller.devices.seat_leds import SeatLeds

        loop = asyncio.get_running_loop()
        self._loop = loop
        self._started = self._clock()
        config = self.config
        if self._want_lights or self._want_buttons:
            try:
                if self._factory is None:
                    self._factory = pin_factory_for(config.gpio)
                if self._want_lights:
                    self.lights = SeatLeds(config.pins, self._factory)
                if self._want_buttons:
                    self.buttons = SeatButtons(
                        config.pins, self._factory, self._handed(loop, listener.on_button)
                    )
            except (GpioUnavailable, SeatDeviceError, ValueError) as exc:
                health.raise_fault(
                    Device.SEATS,
                    "the seat lights and buttons cannot be used",
                    str(exc),
                    self._clock(),
                )
        if config.cube is not None:
            backend: CubeBackend
            if config.cube.port == "emulator":
                if self.emulator is None:
                    self.emulator = CubeEmulator()
                    self._own_emulator = True
                if not self.emulator.plugged_in and self._own_emulator:
                    self.emulator.start()
                backend = EmulatorBackend(self.emulator)
            else:
                backend = cube_backend(config.cube)
            cube = TrumpCube(backend, config.cube)
            handed = self._handed(loop, listener.on_cube)
            cube.when_face_up = handed
            cube.when_pressed = handed
            cube.when_link_changes = handed
            cube.start()
            self.cube = cube

    @staticmethod
    def _handed(loop: asyncio.AbstractEventLoop, call: Callable[[E], None]) -> Callable[[E], None]:
        def hand_over(event: E) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed: shutting down
                loop.call_soon_threadsafe(call, event)

        return hand_over

    def close(self) -> None:
        """Close every device (lights off); safe to call twice."""
        for device in (self.buttons, self.lights, self.cube):
            if device is not None:
                with contextlib.suppress(Exception):
                    device.close()
        self.buttons = self.lights = None
        self.cube = None
        if self._own_emulator and self.emulator is not None:
            self.emulator.close()
            self.emulator = None
        if self._own_factory and self._factory is not None:
            with contextlib.suppress(Exception):
                self._factory.close()
            self._factory = None

    # --- the watchers -------------------------------------------------------------------

    def check_cube(self, health: Health, now: float) -> None:
        """A cube that has not answered since the start is a fault too (its link reports
        only the changes of a link that was once up)."""
        cube = self.cube
        if cube is None:
            return
        if cube.is_connected:
            health.clear(Device.CUBE)
        elif health.fault(Device.CUBE) is None and now - self._started >= CUBE_GRACE:
            health.raise_fault(
                Device.CUBE, "the trump cube has not answered since the start", NEVER_FIX, now
            )

    def stuck_buttons(self) -> list[tuple[Seat | None, SeatButton]]:
        return [] if self.buttons is None else self.buttons.stuck

    # --- the simulated table's hands ------------------------------------------------------

    def press(self, seat: Seat, button: SeatButton) -> None:
        """Press and release a seat's button on the mock pins (the simulated table)."""
        if self._factory is None or self.buttons is None:
            raise RuntimeError("the seat buttons are not open: start the table first")
        number = self.config.pins.seat(seat).button(button)
        pin = self._factory.pin(number)
        pin.drive_low()
        pin.drive_high()

    def turn_cube(self, suit: Suit) -> None:
        """Lay the emulated cube down with ``suit``'s face up."""
        if self.emulator is None:
            raise RuntimeError("there is no emulated cube to turn")
        from table_controller.sim import cube_turner

        cube_turner(self.emulator.board)(suit)


__all__ = [
    "CUBE_FIX",
    "CUBE_GRACE",
    "NEVER_FIX",
    "Listener",
    "MockPin",
    "PinFactory",
    "TableDevices",
    "pin_factory_for",
]
