"""The seat buttons: gpiozero Buttons turned into one event per press.

Each seat has pass, call and alone buttons; the table has one director button (the four
seats' director buttons wired together). A button connects its pin to ground; gpiozero
turns on the pin's pull-up, so pressed reads low.

Presses reach the table as ``ButtonPressed`` events through ``sink``, a callable that
may be called from gpiozero's threads: ``queue.Queue.put`` is one, ``asyncio_sink`` makes
one for an asyncio loop. The rules never see a press until the table's
``seat_input`` has checked it.

What keeps a bad button from flooding the table:

- contact bounce: a press is counted only after ``bounce_time`` with no change on the pin,
  so the chatter of a closing (or opening) contact is one press, on every backend. The
  pin library's own debounce (``bounce_time`` on the gpiozero Button) filters as well
  where it waits for a steady level (lgpio);
- a held button is one press: only the change from up to down counts;
- a stuck button (down for ``stuck_after`` seconds, or already down at start) is
  reported once as ``ButtonStuck``, with what to do, and ignored until it comes up
  (``ButtonFreed``). A watchdog thread looks every half second. (gpiozero's own
  ``when_held`` is not used for this: its hold thread waits out ``hold_time`` while a
  button is down, so closing the table with a stuck button would hang that long.)
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import Button

from table_controller.closing import Closing
from table_controller.devices.gpio import debounces_by_level, open_device
from table_controller.devices.pins import PinMap
from table_controller.devices.seat_events import (
    SEAT_BUTTONS,
    ButtonEvent,
    ButtonFreed,
    ButtonPressed,
    ButtonStuck,
    SeatButton,
)
from table_controller.seats import SEATS, Seat

BOUNCE_TIME = 0.03  # seconds: arcade and tactile switches settle in under 10 ms
STUCK_AFTER = 10.0  # seconds down before a button counts as stuck

Sink = Callable[[ButtonEvent], None]


def asyncio_sink(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[ButtonEvent]) -> Sink:
    """A sink that hands each event to ``queue`` on ``loop``'s thread, safely from
    gpiozero's threads. Events after the loop has closed are dropped (shutting down)."""

    def put(event: ButtonEvent) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed
            loop.call_soon_threadsafe(queue.put_nowait, event)

    return put


@dataclass(slots=True)
class _State:
    seat: Seat | None
    button: SeatButton
    pin: int
    last_change: float = float("-inf")
    down_since: float | None = None
    stuck: bool = False


class SeatButtons(Closing):
    """The twelve seat buttons and the director button of ``pin_map``.

    ``clock`` (seconds, monotonic) times the debounce and the stuck buttons; tests pass
    their own and call ``check_stuck`` themselves.
    """

    def __init__(
        self,
        pin_map: PinMap,
        pin_factory: Any,
        sink: Sink,
        *,
        bounce_time: float = BOUNCE_TIME,
        stuck_after: float = STUCK_AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 <= bounce_time < 1:
            raise ValueError(f"bounce_time {bounce_time}: choose from 0 to under 1 second")
        if stuck_after <= 0:
            raise ValueError(f"stuck_after {stuck_after}: choose a number of seconds above 0")
        self._sink = sink
        self._bounce = bounce_time
        self._stuck_after = stuck_after
        self._clock = clock
        self._lock = threading.Lock()
        self._states: list[_State] = []
        self._buttons: list[Any] = []
        pin_bounce = (bounce_time or None) if debounces_by_level(pin_factory) else None
        wanted: list[tuple[Seat | None, SeatButton, int]] = [
            (seat, b, pin_map.seat(seat).button(b)) for seat in SEATS for b in SEAT_BUTTONS
        ]
        wanted.append((None, SeatButton.DIRECTOR, pin_map.director))
        try:
            for seat, kind, pin in wanted:
                where = "the table's director button"
                if seat is not None:
                    where = f"seat {seat}'s {kind.words}"
                button = open_device(
                    lambda p=pin: Button(
                        p,
                        pull_up=True,
                        bounce_time=pin_bounce,
                        hold_time=0,  # its hold thread then idles (module docstring)
                        pin_factory=pin_factory,
                    ),
                    where,
                    f"GPIO{pin}",
                )
                self._add(button, _State(seat, kind, pin))
        except Exception:
            self.close()
            raise
        # A button already down now is stuck (or wired to ground): say so once.
        now = clock()
        for state, button in zip(self._states, self._buttons, strict=True):
            if button.is_pressed:
                state.stuck = True
                state.down_since = now
                self._sink(ButtonStuck(state.seat, state.button, state.pin, at_start=True))
        self._stop = threading.Event()
        self._watchdog = threading.Thread(
            target=self._watch, args=(min(0.5, stuck_after / 4),), daemon=True
        )
        self._watchdog.start()

    def check_stuck(self) -> None:
        """Report (once) each button down for ``stuck_after`` seconds or more."""
        found: list[ButtonStuck] = []
        with self._lock:
            now = self._clock()
            for state in self._states:
                down = state.down_since
                if down is not None and not state.stuck and now - down >= self._stuck_after:
                    state.stuck = True
                    found.append(ButtonStuck(state.seat, state.button, state.pin, False))
        for event in found:
            self._sink(event)

    def _watch(self, every: float) -> None:
        while not self._stop.wait(every):
            self.check_stuck()

    def _add(self, button: Any, state: _State) -> None:
        def pressed() -> None:
            self._on_press(state)

        def released() -> None:
            self._on_release(state)

        button.when_pressed = pressed
        button.when_released = released
        self._buttons.append(button)
        self._states.append(state)

    @property
    def stuck(self) -> list[tuple[Seat | None, SeatButton]]:
        """The buttons reported stuck and not freed yet."""
        with self._lock:
            return [(s.seat, s.button) for s in self._states if s.stuck]

    def close(self) -> None:
        """Stop reporting and release the pins."""
        stop = getattr(self, "_stop", None)
        if stop is not None:
            stop.set()
            self._watchdog.join()
        # Each Button's hold thread takes up to 0.1 s to stop: close them side by side.
        closers = [threading.Thread(target=b.close) for b in self._buttons]
        for closer in closers:
            closer.start()
        for closer in closers:
            closer.join()
        with self._lock:
            self._buttons = []
            self._states = []

    # --- gpiozero's callbacks (on its threads) -------------------------------------

    def _on_press(self, state: _State) -> None:
        with self._lock:
            now = self._clock()
            settled = now - state.last_change >= self._bounce
            state.last_change = now
            if state.down_since is None:
                state.down_since = now
            if state.stuck or not settled:
                return
        self._sink(ButtonPressed(state.seat, state.button))

    def _on_release(self, state: _State) -> None:
        with self._lock:
            state.last_change = self._clock()
            state.down_since = None
            if not state.stuck:
                return
            state.stuck = False
        self._sink(ButtonFreed(state.seat, state.button))


__all__ = ["BOUNCE_TIME", "STUCK_AFTER", "SeatButtons", "Sink", "asyncio_sink"]
