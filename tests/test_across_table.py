"""A card laid across a zone's line at the running table, end to end: the simulated
world's camera (the real vision path), the table, its seat lights on gpiozero's mock
pins, its page in Debian's chromium (headless, Playwright) and its status for the
director. While the card lies across the line the page says whose and where to push it
and that seat's light pulses; pushed into the zone, it is played and both go.
No test asserts how long anything takes; the waits are guards against a hang.
A screenshot lands in test-artifacts/table-across.png."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect
from test_seat_leds import fades
from waiting import InThread

from table_controller.cards import Card
from table_controller.devices.gpio import GpioBackend, make_pin_factory
from table_controller.devices.pins import DEFAULT_PIN_MAP
from table_controller.devices.seat_lights import SeatLight
from table_controller.rules.events import CardPlayed, DealerDiscarded, HandDealt, OrderedUp
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.sim import World
from table_controller.table.app import Table
from table_controller.table.config import parse_config
from table_controller.table.devices import TableDevices
from table_controller.table.options import TableOptions
from table_controller.vision.synthetic import Effects

ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
GUARD = 120.0  # seconds: only against a hang
N, E, S, W = Seat
C9S = Card.parse("9S")
# North's play zone runs from y = -235 to -65 mm, the kitty from -60 to 60: a card
# centred at y = -62, turned to North, lies about half in each.
ACROSS_AT = (0.0, -62.0, 180.0)
PUSHED_TO = (0.0, -150.0)


class Running(InThread):
    def __init__(self, table: Table) -> None:
        super().__init__(table, "the table", GUARD)
        self.until("the table started", lambda: table.url is not None)


def table_in(folder: Path, pins: Any) -> Table:
    config = parse_config(
        {
            "table": {
                "name": "Table 7",
                "gpio": "mock",
                "log": "table.sqlite",
                "first_dealer": "W",
            },
            "players": {"N": "Ann", "E": "Bo", "S": "Cy", "W": "Di"},
            "camera": {"source": "synthetic", "lost_after": 5.0, "drift_check": 0},
            "cube": {"port": "none"},
            "web": {"host": "127.0.0.1", "port": 0},
        },
        folder,
        "<test>",
    )
    world = World(effects=Effects(), hands=False, seed=3)
    devices = TableDevices(config, clock=time.monotonic, pin_factory=pins)
    return Table(config, TableOptions(devices=devices), world=world)


def led_pins(factory: Any, seat: Seat) -> list[Any]:
    return [factory.pin(p) for p in DEFAULT_PIN_MAP.seat(seat).led]


def test_a_card_across_a_line_is_shown_to_its_player_until_pushed_in(
    tmp_path: Path, browser: Browser
) -> None:
    pins = make_pin_factory(GpioBackend.SIMULATED)
    table = table_in(tmp_path, pins)
    run = Running(table)
    try:
        assert table.world is not None
        lights = table.devices.lights
        assert lights is not None
        for event in (HandDealt(Card.parse("9H")), OrderedUp(N, False), DealerDiscarded(None)):
            table.rulings.put_nowait(event)
        run.until("North to lead", lambda: table.game.phase is Phase.PLAYING)
        run.until("North's light", lambda: lights.shown[N] is SeatLight.YOUR_PLAY)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        assert table.url is not None
        page.goto(table.url)
        expect(page.locator("#conn")).to_have_text("live")
        marks = [len(p.states) for p in led_pins(pins, N)]

        # Laid across the line between North's play zone and the kitty: in neither.
        table.world.lay_at(C9S, *ACROSS_AT)
        run.until("the card across a line", lambda: lights.shown[N] is SeatLight.PUSH_CARD)
        banner = page.locator("#across .banner.across")
        expect(banner).to_have_count(1)
        expect(banner.locator(".problem")).to_have_text(
            "Ann (North): push the 9♠ into your play zone"
        )
        expect(banner.locator(".fix")).to_contain_text("It lies across the line between")
        expect(banner.locator(".fix")).to_contain_text("your play zone")
        expect(banner.locator(".fix")).to_contain_text("the kitty")
        seat = page.locator("#seat-N")
        expect(seat).to_have_class(re.compile(r"\bpush\b"))
        expect(seat.locator(".push-card")).to_have_text("Push the 9♠ in")
        # The seat's light pulses white on its pins: fading up and down.
        for pin, mark in zip(led_pins(pins, N), marks, strict=True):
            run.until("a pulse", lambda pin=pin, mark=mark: fades(pin, mark, 1.0))
        assert lights.shown[E] is SeatLight.OFF
        assert table.game.log[-1] == DealerDiscarded(None)  # nothing reached the rules
        # The director's view is told in the table's status.
        status = table.core.status()
        assert status["across"] == [
            {"card": "9S", "seat": "N", "into": "play:N", "zones": status["across"][0]["zones"]}
        ]
        assert set(status["across"][0]["zones"]) == {"play:N", "kitty"}
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "table-across.png"))

        # Pushed into North's play zone: North's card played, the words and pulse gone.
        table.world.slide(C9S, *PUSHED_TO)
        run.until("the card played", lambda: table.game.log[-1] == CardPlayed(N, C9S))
        run.until("East's turn", lambda: lights.shown[E] is SeatLight.YOUR_PLAY)
        run.until("North's pulse gone", lambda: lights.shown[N] is SeatLight.OFF)
        expect(page.locator("#across .banner")).to_have_count(0)
        expect(page.locator("#seat-N .push-card")).to_have_count(0)
        expect(page.locator("#seat-N")).not_to_have_class(re.compile(r"\bpush\b"))
        expect(page.locator("#play-N .card")).to_have_attribute("data-card", "9S")
        assert table.core.status()["across"] == []
        page.close()
    finally:
        run.close()
        pins.close()
