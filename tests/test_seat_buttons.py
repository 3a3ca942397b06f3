"""The seat buttons on gpiozero's mock pins, driven as gpiozero's own tests drive them
(``drive_low`` is a press: the buttons pull up and connect to ground)."""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from table_controller.devices.gpio import GpioBackend, SeatDeviceError, make_pin_factory
from table_controller.devices.pins import DEFAULT_PIN_MAP
from table_controller.devices.seat_buttons import SeatButtons, asyncio_sink
from table_controller.devices.seat_events import (
    SEAT_BUTTONS,
    ButtonEvent,
    ButtonFreed,
    ButtonPressed,
    ButtonStuck,
    SeatButton,
)
from table_controller.seats import Seat

N, E, S, W = Seat
PASS, CALL, ALONE, DIRECTOR = SeatButton


class Clock:
    """A hand-moved clock for the debounce: bounces are milliseconds apart."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def factory() -> Iterator[Any]:
    f = make_pin_factory(GpioBackend.SIMULATED)
    yield f
    f.close()


class Rig:
    """The buttons on mock pins, their events in a list, and a hand-moved clock."""

    def __init__(self, factory: Any, **kw: Any) -> None:
        self.factory = factory
        self.clock = Clock()
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self.buttons = SeatButtons(
            DEFAULT_PIN_MAP, factory, self.events.put, clock=self.clock, **kw
        )

    def pin(self, seat: Seat | None, button: SeatButton) -> Any:
        number = (
            DEFAULT_PIN_MAP.director if seat is None else DEFAULT_PIN_MAP.seat(seat).button(button)
        )
        return self.factory.pin(number)

    def taken(self) -> list[ButtonEvent]:
        out: list[ButtonEvent] = []
        while not self.events.empty():
            out.append(self.events.get_nowait())
        return out

    def wait(self, timeout: float = 60.0) -> ButtonEvent:  # only against a hang
        return self.events.get(timeout=timeout)


@pytest.fixture
def rig(factory: Any) -> Iterator[Rig]:
    r = Rig(factory)
    yield r
    r.buttons.close()


def test_each_button_is_one_press_event(rig: Rig) -> None:
    for seat in Seat:
        for button in SEAT_BUTTONS:
            pin = rig.pin(seat, button)
            assert pin.pull == "up" and pin.state  # pulled up: high when not pressed
            pin.drive_low()
            rig.clock.advance(0.2)
            pin.drive_high()
            rig.clock.advance(0.2)
            assert rig.taken() == [ButtonPressed(seat, button)]
    rig.pin(None, DIRECTOR).drive_low()
    assert rig.taken() == [ButtonPressed(None, DIRECTOR)]


def test_contact_bounce_is_one_press(rig: Rig) -> None:
    pin = rig.pin(E, CALL)
    for _ in range(5):  # a closing contact chatters for a few milliseconds
        pin.drive_low()
        rig.clock.advance(0.002)
        pin.drive_high()
        rig.clock.advance(0.002)
    pin.drive_low()
    rig.clock.advance(0.3)  # held down
    for _ in range(3):  # and chatters again as it opens
        pin.drive_high()
        rig.clock.advance(0.002)
        pin.drive_low()
        rig.clock.advance(0.002)
    pin.drive_high()
    assert rig.taken() == [ButtonPressed(E, CALL)]
    rig.clock.advance(0.3)
    pin.drive_low()  # the next real press counts
    assert rig.taken() == [ButtonPressed(E, CALL)]


def test_a_quick_tap_does_not_swallow_the_next_press(rig: Rig) -> None:
    # (gpiozero issue 1039: an edge lock-out debounce can lose the press after a tap
    # shorter than the bounce time.)
    pin = rig.pin(S, PASS)
    pin.drive_low()
    rig.clock.advance(0.01)  # a 10 ms tap, under the 30 ms bounce time
    pin.drive_high()
    rig.clock.advance(0.5)
    pin.drive_low()
    assert rig.taken() == [ButtonPressed(S, PASS), ButtonPressed(S, PASS)]


def test_a_held_button_is_one_press(rig: Rig) -> None:
    pin = rig.pin(N, ALONE)
    pin.drive_low()
    rig.clock.advance(5.0)
    pin.drive_low()  # no change on the pin: nothing
    assert rig.taken() == [ButtonPressed(N, ALONE)]
    assert rig.buttons.stuck == []


def test_a_stuck_button_is_reported_once_and_ignored_until_it_comes_up(rig: Rig) -> None:
    pin = rig.pin(W, PASS)
    pin.drive_low()
    assert rig.taken() == [ButtonPressed(W, PASS)]
    rig.clock.advance(9.0)
    rig.buttons.check_stuck()
    assert rig.taken() == []  # held a while: still fine
    rig.clock.advance(1.0)  # 10 s down: stuck
    rig.buttons.check_stuck()
    rig.buttons.check_stuck()
    stuck = rig.wait()
    assert stuck == ButtonStuck(W, PASS, 19, at_start=False)
    assert isinstance(stuck, ButtonStuck)
    assert "seat W's pass button (GPIO19) is held down: free the button" in stuck.what_to_do
    rig.clock.advance(60.0)
    rig.buttons.check_stuck()
    assert rig.taken() == []  # once only
    assert rig.buttons.stuck == [(W, PASS)]
    rig.pin(W, CALL).drive_low()  # the other buttons work meanwhile
    assert rig.taken() == [ButtonPressed(W, CALL)]
    pin.drive_high()
    assert rig.taken() == [ButtonFreed(W, PASS)]
    rig.clock.advance(1.0)
    pin.drive_low()
    assert rig.taken() == [ButtonPressed(W, PASS)]


def test_the_watchdog_finds_a_stuck_button_by_itself(factory: Any) -> None:
    rig = Rig(factory, stuck_after=0.01)
    try:
        rig.pin(S, ALONE).drive_low()
        assert rig.wait() == ButtonPressed(S, ALONE)
        rig.clock.advance(1.0)
        assert rig.wait() == ButtonStuck(S, ALONE, 18, at_start=False)
    finally:
        rig.buttons.close()


def test_a_button_down_at_start_is_stuck(factory: Any) -> None:
    # A wire shorted to ground: the pull-up cannot raise the pin.
    shorted = factory.pin(DEFAULT_PIN_MAP.director)
    shorted.drive_low()
    shorted.drive_high = lambda: None
    rig = Rig(factory)
    try:
        stuck = rig.taken()
        assert stuck == [ButtonStuck(None, DIRECTOR, 8, at_start=True)]
        assert isinstance(stuck[0], ButtonStuck)
        assert stuck[0].what_to_do.startswith(
            "the table's director button (GPIO8) was already down when the table started"
        )
        del shorted.drive_high  # the short is mended
        shorted.drive_high()
        assert rig.taken() == [ButtonFreed(None, DIRECTOR)]
    finally:
        rig.buttons.close()


def test_presses_reach_an_asyncio_loop_from_other_threads(factory: Any) -> None:
    async def main() -> list[ButtonEvent]:
        events: asyncio.Queue[ButtonEvent] = asyncio.Queue()
        sink = asyncio_sink(asyncio.get_running_loop(), events)
        with SeatButtons(DEFAULT_PIN_MAP, factory, sink):
            presser = threading.Thread(target=factory.pin(5).drive_low)  # E pass
            presser.start()
            got = await asyncio.wait_for(events.get(), timeout=60)  # only against a hang
            presser.join()
        return [got]

    assert asyncio.run(main()) == [ButtonPressed(E, PASS)]


def test_closing_releases_the_pins(factory: Any) -> None:
    first = Rig(factory)
    first.buttons.close()
    again = Rig(factory)  # the same pins can be opened again
    again.pin(N, PASS).drive_low()
    assert again.taken() == [ButtonPressed(N, PASS)]
    again.buttons.close()


def test_errors_say_which_button(factory: Any) -> None:
    in_use = "cannot use GPIO2 for seat N's pass button"
    with (
        SeatButtons(DEFAULT_PIN_MAP, factory, lambda e: None),
        pytest.raises(SeatDeviceError, match=in_use),
    ):
        SeatButtons(DEFAULT_PIN_MAP, factory, lambda e: None)
    with pytest.raises(ValueError, match="bounce_time 2"):
        SeatButtons(DEFAULT_PIN_MAP, factory, lambda e: None, bounce_time=2)
    with pytest.raises(ValueError, match="stuck_after 0"):
        SeatButtons(DEFAULT_PIN_MAP, factory, lambda e: None, stuck_after=0)
