"""A joining table's code where a person looks: its page in a real browser (Debian's
chromium, headless), its seat lights on gpiozero's mock pins (what the pins record), and
the trump cube (its firmware emulated behind a pty)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from playwright.sync_api import Browser, expect
from waiting import wait_until

from table_controller.devices.cube_types import Alert, CubeState
from table_controller.devices.emulator import CubeEmulator
from table_controller.devices.gpio import GpioBackend, make_pin_factory
from table_controller.seats import SEATS
from table_controller.table.config import TableConfig, parse_config
from table_controller.table.fleet.display import JoinDisplay, cube_states
from table_controller.table.fleet.lights import (
    DARK,
    GLOW,
    WHITE,
    SeatColours,
    code_steps,
    read_code,
)

IMAGES = Path(__file__).resolve().parents[1] / "test-artifacts"  # docs/images/ holds a copy
codes = st.text(alphabet="123456789", min_size=4, max_size=4)


KEY = "0412 7731 5820 0093 6614"  # the director key's fingerprint
CHECK = "1234 5678 9012 3456 7890"  # the request's check


def config(tmp_path: Path, *, cube: str = "none", gpio: str = "mock") -> TableConfig:
    data: dict[str, Any] = {
        "table": {"name": "Table", "gpio": gpio, "log": "table.sqlite"},
        "camera": {"source": "synthetic"},
        "cube": {"port": cube},
        "web": {"host": "127.0.0.1", "port": 0},
    }
    return parse_config(data, tmp_path, "<test>")


@given(codes)
def test_the_lights_count_out_every_code(code: str) -> None:
    steps = code_steps(code)
    assert read_code([s.lights for s in steps]) == code
    assert steps[-2].lights == (GLOW, GLOW, GLOW, GLOW)  # "from North again"
    # While a seat counts, the others are dark: one seat lit at a time.
    assert all(sum(c != DARK for c in s.lights) <= 1 for s in steps[:-2])


@pytest.mark.parametrize("bad", ["0719", "471", "47190", "4a19", ""])
def test_a_code_is_four_digits_from_one_to_nine(bad: str) -> None:
    with pytest.raises(ValueError, match="four digits from 1 to 9"):
        code_steps(bad)


@pytest.fixture
def factory() -> Iterator[Any]:
    f = make_pin_factory(GpioBackend.SIMULATED)
    yield f
    f.close()


def test_the_seat_lights_show_the_code_on_their_pins(tmp_path: Path, factory: Any) -> None:
    """Each time the lights hold a picture, the test reads the four seats' pins: one
    round of those pictures, counted as a person counts, gives the code."""
    table = config(tmp_path)
    frames: list[SeatColours] = []
    enough = len(code_steps("4719")) * 2
    done = threading.Event()

    def seat_colour(seat: Any) -> tuple[float, float, float]:
        red, green, blue = (factory.pin(p).state for p in table.pins.seat(seat).led)
        if not table.pins.led_wiring.active_high:
            red, green, blue = 1 - red, 1 - green, 1 - blue
        return (round(red, 4), round(green, 4), round(blue, 4))

    def record(seconds: float) -> bool:
        frame = tuple(seat_colour(seat) for seat in SEATS)
        frames.append((frame[0], frame[1], frame[2], frame[3]))
        if len(frames) >= enough:
            done.set()
            return True
        return False

    display = JoinDisplay(table, pin_factory=factory, lights_wait=record)
    try:
        assert display.problems == []
        display.show_code("4719", "Spring Open", KEY, CHECK)
        assert done.wait(60)  # only against a hang
    finally:
        display.close()
    one_round = len(code_steps("4719"))
    assert read_code(frames[:one_round]) == "4719"
    assert read_code(frames[one_round : 2 * one_round]) == "4719"
    assert frames[:one_round] == [s.lights for s in code_steps("4719")]
    assert WHITE in frames[0]
    # Closed: every light is dark again.
    assert all(seat_colour(seat) == DARK for seat in SEATS)


def test_the_cube_shows_the_code_as_its_scores_and_calls_the_director(tmp_path: Path) -> None:
    alert, scores = cube_states("4719")
    assert (alert.score_ns, alert.score_ew, alert.alert) == (47, 19, Alert.DIRECTOR)
    assert (scores.score_ns, scores.score_ew, scores.alert) == (47, 19, Alert.NONE)
    with CubeEmulator() as emulator:
        display = JoinDisplay(
            config(tmp_path, cube="emulator"), emulator=emulator, cube_times=(0.05, 0.05)
        )
        try:
            display.show_code("4719", "Spring Open", KEY, CHECK)
            wait_until("the director's alert", lambda: emulator.shown_state() == alert.to_wire())
            wait_until("47 and 19", lambda: emulator.shown_state() == scores.to_wire())
        finally:
            display.close()
        assert emulator.shown_state() == CubeState().to_wire()  # blank again


def test_a_table_without_pins_still_joins_and_says_why_its_lights_are_dark(
    tmp_path: Path,
) -> None:
    display = JoinDisplay(config(tmp_path, gpio="auto"))
    try:
        display.show_code("4719", "Spring Open", KEY, CHECK)
        assert display.url is not None
        assert any("seat lights" in p for p in display.problems)
    finally:
        display.close()


def test_the_page_shows_the_code_across_a_room(tmp_path: Path, browser: Browser) -> None:
    display = JoinDisplay(config(tmp_path))
    try:
        assert display.url is not None
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(display.url)
        expect(page.locator("h1")).to_have_text("Looking for the director")
        expect(page.locator("#code-box")).to_be_hidden()
        display.say("Found the director of Spring Open at 10.0.0.5")
        expect(page.locator("#words")).to_have_text("Found the director of Spring Open at 10.0.0.5")
        display.show_code("4719", "Spring Open", KEY, CHECK)
        display.say("waiting for the director to approve code 4719")
        expect(page.locator("h1")).to_have_text("Joining Spring Open")
        expect(page.locator("#code")).to_have_text("4719")
        expect(page.locator("#key")).to_have_text(KEY)
        expect(page.locator("#check")).to_have_text(CHECK)
        expect(page.locator("#words")).to_have_text("Waiting for the director to approve code 4719")
        box = page.locator("#code").bounding_box()
        assert box is not None and box["height"] >= 0.25 * 720  # a quarter of the screen
        assert "_" not in page.locator("body").inner_text()
        IMAGES.mkdir(exist_ok=True)
        IMAGES.mkdir(exist_ok=True)
        page.screenshot(path=str(IMAGES / "join-page.png"))
        # A page opened now gets the same picture, before its script runs too.
        again = browser.new_page(java_script_enabled=False)
        again.goto(display.url)
        expect(again.locator("#code")).to_have_text("4719")
        expect(again.locator("h1")).to_have_text("Joining Spring Open")
        again.close()
        page.close()
    finally:
        display.close()
