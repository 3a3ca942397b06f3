"""The four seat lights: gpiozero RGBLEDs driven from the table's
``seat_lights`` view (table/seat_state.py).

``show(lights)`` changes only the seats whose light changed, so applying the same view
twice changes nothing (a blinking light keeps its rhythm), and a new ``SeatLeds`` after
a restart drives every seat from the current view. The rules and the view never touch
the pins; this is the only place that drives the lights.
"""

from __future__ import annotations

from typing import Any

from gpiozero import RGBLED

from table_controller.closing import Closing
from table_controller.devices.gpio import SeatDeviceError, open_device
from table_controller.devices.pins import PinMap
from table_controller.devices.seat_lights import ALL_OFF, RGB, Pattern, SeatLight, TableLights
from table_controller.seats import SEATS, Seat

SLOW_BLINK = (0.8, 0.8)  # seconds on, off
# 2.5 flashes a second: under the 3 a second that photosensitivity guidelines allow.
FAST_FLASH = (0.2, 0.2)
# A pulse fades up and down, one a second and a half: told from a blink by its soft edges.
PULSE = (0.75, 0.75)  # seconds fading in, fading out
GLOW = 0.15  # a dim glow's share of full brightness
DARK: RGB = (0.0, 0.0, 0.0)
WHITE: RGB = (1.0, 1.0, 1.0)


class SeatLeds(Closing):
    """The four seats' RGB lights on the pins of ``pin_map``, through ``pin_factory``.

    ``brightness`` (0 to 1) scales every colour: lower it for a dim room. ``slow_blink``
    and ``fast_flash`` are (seconds on, seconds off), ``pulse`` (seconds fading in,
    seconds fading out). Call ``show`` from one thread (the
    table's event loop); gpiozero blinks in its own threads.
    """

    def __init__(
        self,
        pin_map: PinMap,
        pin_factory: Any,
        *,
        brightness: float = 1.0,
        slow_blink: tuple[float, float] = SLOW_BLINK,
        fast_flash: tuple[float, float] = FAST_FLASH,
        pulse: tuple[float, float] = PULSE,
    ) -> None:
        if not 0.05 <= brightness <= 1.0:
            raise ValueError(f"brightness {brightness}: choose from 0.05 (dim) to 1 (full)")
        self.brightness = brightness
        self._slow = slow_blink
        self._fast = fast_flash
        self._pulse = pulse
        self._leds: list[Any] = []
        try:
            for seat in SEATS:
                red, green, blue = pin_map.seat(seat).led
                self._leds.append(
                    open_device(
                        lambda r=red, g=green, b=blue: RGBLED(
                            r,
                            g,
                            b,
                            active_high=pin_map.led_wiring.active_high,
                            pwm=True,
                            pin_factory=pin_factory,
                        ),
                        f"seat {seat}'s light",
                        f"GPIO{red}, GPIO{green} and GPIO{blue}",
                    )
                )
        except SeatDeviceError:
            self.close()
            raise
        self._shown: list[SeatLight | None] = [None, None, None, None]

    @property
    def shown(self) -> tuple[SeatLight | None, ...]:
        """What each seat shows now; None before the first ``show``."""
        return tuple(self._shown)

    def led(self, seat: Seat) -> Any:
        """The seat's gpiozero RGBLED (for the builder's test and for tests)."""
        return self._leds[seat]

    def show(self, lights: TableLights) -> None:
        """Show ``lights``, changing only the seats whose light differs."""
        for seat in SEATS:
            if lights[seat] is not self._shown[seat]:
                self._drive(seat, lights[seat])

    def refresh(self) -> None:
        """Drive every seat again from what it should show (after a suspected glitch)."""
        for seat in SEATS:
            shown = self._shown[seat]
            self._drive(seat, shown if shown is not None else SeatLight.OFF)

    def set_colour(self, seat: Seat, rgb: RGB) -> None:
        """Light a seat in a plain colour, outside the game's view (the wiring test).
        The next ``show`` drives the seat again."""
        self._leds[seat].value = self._scaled(rgb)
        self._shown[seat] = None

    def off(self) -> None:
        self.show(ALL_OFF)

    def close(self) -> None:
        """Turn the lights off and release their pins."""
        for led in self._leds:
            led.close()
        self._leds = []

    def _scaled(self, rgb: RGB, level: float = 1.0) -> RGB:
        k = self.brightness * level
        r, g, b = rgb
        return (r * k, g * k, b * k)

    def _drive(self, seat: Seat, light: SeatLight) -> None:
        led = self._leds[seat]
        pattern = light.pattern
        base = DARK if light.colour is None else light.colour.rgb
        colour = self._scaled(base)
        if pattern is Pattern.OFF:
            led.off()
        elif pattern is Pattern.GLOW:
            led.value = self._scaled(base, GLOW)
        elif pattern is Pattern.STEADY:
            led.value = colour
        elif pattern is Pattern.SLOW_BLINK:
            led.blink(*self._slow, on_color=colour, off_color=DARK)
        elif pattern is Pattern.PULSE:
            led.pulse(*self._pulse, on_color=colour, off_color=DARK)
        elif pattern is Pattern.FAST_FLASH:
            led.blink(*self._fast, on_color=colour, off_color=DARK)
        else:  # FAST_ALTERNATE: a renege, red and white in turn
            led.blink(*self._fast, on_color=colour, off_color=self._scaled(WHITE))
        self._shown[seat] = light


__all__ = ["FAST_FLASH", "GLOW", "PULSE", "SLOW_BLINK", "SeatLeds"]
