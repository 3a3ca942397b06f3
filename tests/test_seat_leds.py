"""The seat lights on gpiozero's mock PWM pins: what each pin records, as gpiozero's own
tests check (``pin.state``, the ``pin.states`` history)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
import waiting

from table_controller.cards import Card, cards
from table_controller.devices.gpio import GpioBackend, SeatDeviceError, make_pin_factory
from table_controller.devices.pins import DEFAULT_PIN_MAP, LedWiring, PinMap
from table_controller.devices.seat_leds import GLOW, SeatLeds
from table_controller.devices.seat_lights import (
    ALL_OFF,
    Colour,
    Pattern,
    SeatLight,
    TableLights,
)
from table_controller.rules import Game, preset
from table_controller.rules.events import (
    CardPlayed,
    DealerChosen,
    DealerDiscarded,
    HandDealt,
    OrderedUp,
    Passed,
)
from table_controller.rules.hand import Phase
from table_controller.seats import Seat
from table_controller.table.seat_state import seat_lights

N, E, S, W = Seat
L = SeatLight
QUICK = (0.01, 0.01)  # blink times for tests: the pattern, not the speed, is checked
# A pulse's fades for tests: gpiozero fades in steps of 1/25 s, so a few steps each way.
FADES = (0.2, 0.2)
HANDS = {
    N: cards("JH AH 9C TD QS"),
    E: cards("JD KH AC KD 9S"),
    S: cards("QH TC JC AD TS"),
    W: cards("TH QC KC 9D AS"),
}


@pytest.fixture
def factory() -> Iterator[Any]:
    f = make_pin_factory(GpioBackend.SIMULATED)
    yield f
    f.close()


def open_leds(factory: Any, pin_map: PinMap = DEFAULT_PIN_MAP, **kw: Any) -> SeatLeds:
    return SeatLeds(pin_map, factory, slow_blink=QUICK, fast_flash=QUICK, pulse=FADES, **kw)


def pins(factory: Any, seat: Seat) -> list[Any]:
    return [factory.pin(p) for p in DEFAULT_PIN_MAP.seat(seat).led]


def levels(factory: Any, seat: Seat) -> tuple[float, ...]:
    return tuple(round(float(p.state), 4) for p in pins(factory, seat))


def only(seat: Seat, light: SeatLight) -> TableLights:
    shown = list(ALL_OFF)
    shown[seat] = light
    return (shown[0], shown[1], shown[2], shown[3])


def wait_for(condition: Callable[[], bool]) -> bool:
    """Until ``condition`` holds (a blink thread at work); the guard only stops a hang."""
    waiting.wait_until("the LEDs to get there", condition)
    return True


def has_seen(pin: Any, since: int, wanted: set[float]) -> bool:
    return seen_levels(pin, since) >= wanted


def seen_levels(pin: Any, since: int) -> set[float]:
    """The levels a pin has had since ``len(pin.states)`` was ``since`` (the level it had
    then included: a pin only records changes)."""
    return {round(float(s.state), 4) for s in pin.states[since - 1 :]}


def test_every_light_drives_its_pins(factory: Any) -> None:
    with open_leds(factory) as leds:
        for light in SeatLight:
            red, green, blue = pins(factory, N)
            # The last light's blinking stopped first: its thread would write its own
            # levels between the marks and the new light.
            leds.show(ALL_OFF)
            marks = [len(red.states), len(green.states), len(blue.states)]
            leds.show(only(N, light))
            rgb = (0.0, 0.0, 0.0) if light.colour is None else light.colour.rgb
            if light.pattern is Pattern.OFF:
                assert levels(factory, N) == (0, 0, 0)
            elif light.pattern is Pattern.GLOW:
                assert levels(factory, N) == pytest.approx([c * GLOW for c in rgb])
            elif light.pattern is Pattern.STEADY:
                assert levels(factory, N) == pytest.approx(rgb)
            elif light.pattern is Pattern.PULSE:  # fading: levels between dark and the colour
                for pin, mark, on_level in zip((red, green, blue), marks, rgb, strict=True):
                    assert wait_for(partial(fades, pin, mark, on_level))
            else:  # blinking: each pin goes between the colour and the off colour
                off = (1.0, 1.0, 1.0) if light.pattern is Pattern.FAST_ALTERNATE else (0, 0, 0)
                for pin, mark, on_level, off_level in zip(
                    (red, green, blue), marks, rgb, off, strict=True
                ):
                    want = {round(on_level, 4), round(float(off_level), 4)}
                    before = round(float(pin.states[mark - 1].state), 4)
                    assert wait_for(partial(has_seen, pin, mark, want))
                    assert seen_levels(pin, mark) <= want | {before}
            assert levels(factory, E) == (0, 0, 0)  # the other seats stay dark


def fades(pin: Any, since: int, top: float) -> bool:
    """A pulse: the pin has been dark, at its top level and between (never above)."""
    seen = seen_levels(pin, since)
    between = {level for level in seen if 0.0 < level < top}
    return {0.0, round(top, 4)} <= seen and len(between) >= 2 and max(seen) <= top


def test_a_card_across_a_line_pulses_white_fading_up_and_down(factory: Any) -> None:
    """Told from every blink by its soft edges: a blink only ever shows its two levels,
    a pulse passes through the levels between (docs/seats.md, "push your card")."""
    with open_leds(factory) as leds:
        red, green, blue = pins(factory, S)
        marks = [len(p.states) for p in (red, green, blue)]
        leds.show(only(S, L.PUSH_CARD))
        for pin, mark in zip((red, green, blue), marks, strict=True):
            assert wait_for(partial(fades, pin, mark, 1.0))  # white: all three fade
        assert levels(factory, N) == (0, 0, 0)
        leds.show(only(S, L.YOUR_PLAY))  # pushed in, its turn: steady white again
        assert levels(factory, S) == (1, 1, 1)
        mark = len(red.states)
        leds.show(only(S, L.YOUR_PLAY))  # shown again: the pins do not move
        assert len(red.states) == mark


def test_a_renege_flashes_red_and_white_never_dark(factory: Any) -> None:
    with open_leds(factory) as leds:
        red, green, _ = pins(factory, W)
        leds.show(only(W, L.RENEGE))
        mark, red_mark = len(green.states), len(red.states)
        assert wait_for(lambda: len(green.states) >= mark + 4)  # green flashed twice
        assert seen_levels(green, mark) == {0.0, 1.0}
        assert seen_levels(red, red_mark) == {1.0}  # red all along: never dark


def test_common_anode_lights_pull_low(factory: Any) -> None:
    anode = PinMap(DEFAULT_PIN_MAP.seats, DEFAULT_PIN_MAP.director, LedWiring.COMMON_ANODE)
    with open_leds(factory, anode) as leds:
        assert levels(factory, S) == (1, 1, 1)  # dark: all three legs high
        leds.show(only(S, L.YOUR_PLAY))
        assert levels(factory, S) == (0, 0, 0)  # white: all three low
        leds.show(only(S, L.HAND_WON))
        assert levels(factory, S) == pytest.approx([1 - c for c in Colour.GREEN.rgb])


def test_showing_the_same_view_twice_changes_nothing(factory: Any) -> None:
    with open_leds(factory) as leds:
        view = (L.YOUR_BID, L.OFF, L.SITTING_OUT, L.YOUR_PLAY)
        leds.show(view)
        steady = pins(factory, S) + pins(factory, W)
        history = [list(p.states) for p in steady]
        led = leds.led(N)
        blinking = led._blink_thread  # gpiozero's: a new one would restart the rhythm
        assert blinking is not None
        leds.show(view)
        assert [list(p.states) for p in steady] == history
        assert led._blink_thread is blinking
        assert leds.shown == view


def test_after_a_restart_the_current_view_drives_the_pins_again(factory: Any) -> None:
    view = (L.OFF, L.YOUR_PLAY, L.OFF, L.SITTING_OUT)
    leds = open_leds(factory)
    leds.show(view)
    leds.close()  # the table stops: lights off, pins released
    assert levels(factory, E) == (0, 0, 0)
    with open_leds(factory) as again:
        assert again.shown == (None, None, None, None)
        again.show(view)
        assert levels(factory, E) == (1, 1, 1)
        assert levels(factory, W) == pytest.approx([c * GLOW for c in Colour.PURPLE.rgb])


def test_refresh_and_a_plain_colour(factory: Any) -> None:
    with open_leds(factory, brightness=0.5) as leds:
        leds.show(only(N, L.YOUR_PLAY))
        assert levels(factory, N) == (0.5, 0.5, 0.5)
        leds.led(N).value = (0, 0, 0)  # a glitch
        leds.refresh()
        assert levels(factory, N) == (0.5, 0.5, 0.5)
        leds.set_colour(N, (1.0, 0.0, 0.0))
        assert levels(factory, N) == (0.5, 0, 0)
        leds.show(only(N, L.YOUR_PLAY))  # the game's view takes over again
        assert levels(factory, N) == (0.5, 0.5, 0.5)
        leds.off()
        assert levels(factory, N) == (0, 0, 0)


def test_a_whole_hand_through_the_rules_on_the_pins(factory: Any) -> None:
    game = Game(preset("td-tournament"))
    with open_leds(factory) as leds:

        def push(event: Any) -> None:
            leds.show(seat_lights(game, game.push(event)))

        push(DealerChosen(W))
        push(HandDealt(Card.parse("9H"), HANDS))
        assert levels(factory, W) == pytest.approx([c * GLOW for c in Colour.AMBER.rgb])
        push(Passed(N))
        push(OrderedUp(E, alone=True))  # W, the dealer, sits out but discards first
        assert levels(factory, W) == pytest.approx(Colour.AMBER.rgb)
        push(DealerDiscarded(Card.parse("9D")))
        assert levels(factory, W) == pytest.approx([c * GLOW for c in Colour.PURPLE.rgb])
        while game.phase is Phase.PLAYING:
            seat = game.to_act
            assert seat is not None
            assert levels(factory, seat) == (1, 1, 1)  # steady white: your turn
            for other in (N, E, S):
                if other != seat:
                    assert levels(factory, other) == (0, 0, 0)
            push(CardPlayed(seat, game.legal_plays()[0]))
        assert leds.shown[N] is L.DEAL


def test_errors_name_the_seat_and_the_pins(factory: Any) -> None:
    with open_leds(factory), pytest.raises(SeatDeviceError) as info:
        open_leds(factory)
    text = str(info.value)
    assert "cannot use GPIO17, GPIO27 and GPIO22 for seat N's light" in text
    assert "sudo systemctl stop table-controller" in text
    with pytest.raises(ValueError, match="brightness 2: choose from 0.05"):
        open_leds(factory, brightness=2)
