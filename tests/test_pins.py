"""The seat pin map: the default fits the header, and every mistake in a configured map
is named (seat, function, pin) with what to do; the GPIO backends."""

from __future__ import annotations

import configparser
import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from table_controller.cli import parser
from table_controller.devices.gpio import GpioBackend, GpioUnavailable, make_pin_factory
from table_controller.devices.pin_config import parse_pin_map
from table_controller.devices.pins import (
    DEFAULT_PIN_MAP,
    HEADER,
    PHYSICAL_PIN,
    USABLE_GPIOS,
    LedWiring,
    PinMap,
    PinMapError,
    PinProblem,
    SeatPins,
)
from table_controller.seats import Seat

N, E, S, W = Seat
HARDWARE = Path(__file__).parent.parent / "hardware"


def config() -> dict[str, Any]:
    """The default map in the configuration file's shape, to spoil one entry of."""
    data = DEFAULT_PIN_MAP.to_mapping()
    return {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}


def problems(data: object) -> list[PinProblem]:
    with pytest.raises(PinMapError) as info:
        parse_pin_map(data)
    assert isinstance(info.value, ValueError)
    return list(info.value.problems)


def only(data: object) -> PinProblem:
    found = problems(data)
    assert len(found) == 1, [p.message for p in found]
    return found[0]


# --- the default map ---------------------------------------------------------------


def test_the_default_map_fits_the_header_with_one_pin_free() -> None:
    uses = DEFAULT_PIN_MAP.uses()
    pins = [u.pin for u in uses]
    assert len(pins) == 4 * (3 + 3) + 1 == 25
    assert len(set(pins)) == 25
    assert all(p in USABLE_GPIOS for p in pins)
    assert DEFAULT_PIN_MAP.free_gpios() == (7,)
    assert DEFAULT_PIN_MAP.led_wiring is LedWiring.COMMON_CATHODE


def test_the_default_keeps_lights_dark_while_the_pi_boots() -> None:
    # GPIO0-8 are pulled up at power-up, GPIO9-27 down: lights on the latter stay dark.
    for seat in Seat:
        assert all(9 <= pin <= 27 for pin in DEFAULT_PIN_MAP.seat(seat).led)


def test_header_numbers() -> None:
    assert len(HEADER) == 40
    assert sorted(PHYSICAL_PIN) == list(range(28))
    assert PHYSICAL_PIN[17] == 11 and PHYSICAL_PIN[21] == 40


def test_round_trip_through_the_configuration_shape_and_toml() -> None:
    assert parse_pin_map(DEFAULT_PIN_MAP.to_mapping()) == DEFAULT_PIN_MAP
    parsed = tomllib.loads(DEFAULT_PIN_MAP.toml())
    assert parse_pin_map(parsed["seats"]) == DEFAULT_PIN_MAP


def test_a_light_may_be_written_by_colour_and_seats_in_lower_case() -> None:
    data = config()
    data["n"] = data.pop("N")
    data["n"]["led"] = {"blue": 22, "red": 17, "green": 27}
    data["led_wiring"] = "common-anode"
    pin_map = parse_pin_map(data)
    assert pin_map.seat(N).led == (17, 27, 22)
    assert pin_map.led_wiring is LedWiring.COMMON_ANODE
    assert not pin_map.led_wiring.active_high


def test_a_map_built_in_code_is_checked_too() -> None:
    seats = DEFAULT_PIN_MAP.seats
    with pytest.raises(PinMapError, match="GPIO8 is given to seat W's alone button and the"):
        PinMap((seats[0], seats[1], seats[2], SeatPins(16, 20, 21, 19, 26, 8)), director=8)


# --- every mistake, named ------------------------------------------------------------


def test_a_number_that_is_no_gpio_names_the_header_pin_meant() -> None:
    data = config()
    data["E"]["call"] = 40
    p = only(data)
    assert (p.seat, p.function, p.pin) == (E, "call button", 40)
    assert "seat E's call button is 40, which is not a GPIO" in p.message
    assert "If you meant the header's pin 40, that is GPIO21: write 21" in p.message
    data["E"]["call"] = 39
    assert "The header's pin 39 is GND, not a GPIO" in only(data).message
    data["E"]["call"] = 28
    assert "pin 28 is GPIO1, reserved for the HAT identity EEPROM" in only(data).message
    data["E"]["call"] = 99
    assert only(data).message.endswith("not the header's pin numbers.")


def test_a_reserved_pin_says_which_are_free() -> None:
    data = config()
    data["S"]["led"] = [0, 24, 25]
    p = only(data)
    assert (p.seat, p.function, p.pin) == (S, "red LED", 0)
    assert "GPIO0, which is reserved for the HAT identity EEPROM" in p.message
    assert "free now: GPIO7, GPIO23" in p.message


def test_a_pin_used_twice_names_both_jobs() -> None:
    data = config()
    data["W"]["alone"] = 17
    p = only(data)
    assert p.pin == 17 and p.seat is W and p.function == "alone button"
    assert p.message == (
        "GPIO17 is given to seat N's red LED and seat W's alone button: a pin can do one "
        "job. Move one of them to a free pin (free now: GPIO7, GPIO12)."
    )


def test_a_pin_of_the_wrong_type() -> None:
    data = config()
    data["N"]["pass"] = "GPIO2"
    data["E"]["led"] = [10, True, 11]
    found = problems(data)
    assert [(p.seat, p.function, p.pin) for p in found] == [
        (N, "pass button", "GPIO2"),
        (E, "green LED", True),
    ]
    assert "write a GPIO number, such as 17 for GPIO17" in found[0].message


def test_missing_entries() -> None:
    data = config()
    del data["director"]
    del data["W"]
    del data["S"]["alone"]
    del data["E"]["led"]
    found = problems(data)
    assert [(p.seat, p.function, p.pin) for p in found] == [
        (None, "director button", None),
        (E, "LED", None),
        (S, "alone button", None),
        (W, "seat", None),
    ]
    assert "add `director = 8`" in found[0].message
    assert "add `led = [RED, GREEN, BLUE]` to [seats.E]" in found[1].message
    assert "add `alone = PIN` to [seats.S]" in found[2].message
    assert "add a [seats.W] table" in found[3].message


def test_a_light_written_wrong() -> None:
    data = config()
    data["N"]["led"] = [17, 27]
    p = only(data)
    assert (p.seat, p.function) == (N, "LED")
    assert "in the order red, green, blue, e.g. `led = [17, 27, 22]`" in p.message
    data["N"]["led"] = {"red": 17, "green": 27}
    assert only(data).function == "LED"


def test_unknown_entries_and_a_director_button_per_seat() -> None:
    data = config()
    data["NE"] = {}
    data["N"]["pas"] = 7
    data["S"]["director"] = 7
    data["led_wiring"] = "anode"
    found = problems(data)
    messages = [p.message for p in found]
    assert [(p.seat, p.function) for p in found] == [
        (None, "NE"),
        (None, "led_wiring"),
        (N, "pas"),
        (S, "director button"),
    ]
    assert "its entries are N, E, S, W, director and led_wiring" in messages[0]
    assert 'write "common-cathode"' in messages[1]
    assert "its entries are led, pass, call and alone" in messages[2]
    assert "the director button is one for the table" in messages[3]


def test_not_a_table_at_all() -> None:
    assert "must be a table of the seats" in only([1, 2, 3]).message
    data = config()
    data["N"] = 17
    p = only(data)
    assert (p.seat, p.function, p.pin) == (N, "seat", 17)


def test_every_problem_is_reported_at_once() -> None:
    error = PinMapError(problems({"N": {"led": [17, 27, 22], "pass": 2}}))
    text = str(error)
    assert text.startswith("the seat pin map has 6 problems:\n  - ")
    assert text.count("\n  - ") == 6


# --- the wiring documents agree with the code -----------------------------------------


def load_make_wiring() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_wiring", HARDWARE / "make_wiring.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wiring_table_matches_the_default_map() -> None:
    make_wiring = load_make_wiring()
    doc = (HARDWARE / "wiring.md").read_text(encoding="utf-8")
    assert make_wiring.pinout_markdown(DEFAULT_PIN_MAP) in doc, (
        "hardware/wiring.md is out of date: run `python hardware/make_wiring.py`"
    )


def test_the_wiring_diagram_draws(tmp_path: Path) -> None:
    make_wiring = load_make_wiring()
    out = tmp_path / "wiring.png"
    make_wiring.draw(DEFAULT_PIN_MAP, out)
    assert out.stat().st_size > 10_000


def test_the_systemd_unit_restarts_the_table_as_an_ordinary_user() -> None:
    unit = configparser.ConfigParser(interpolation=None, strict=False)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(HARDWARE / "table-controller.service", encoding="utf-8")
    service = unit["Service"]
    assert service["Restart"] == "on-failure" and 1 <= int(service["RestartSec"]) <= 30
    assert service["User"] not in ("", "root")
    assert set(service["SupplementaryGroups"].split()) == {"gpio", "video", "dialout"}
    assert service["ExecStart"].startswith(service["WorkingDirectory"] + "/.venv/bin/")
    exe, *args = service["ExecStart"].split()
    assert exe.endswith("/table-controller") and args[0] == "run"
    parsed = parser().parse_args(args)  # the command line the unit runs is one `run` takes
    assert parsed.config == service["WorkingDirectory"] + "/table.toml"
    assert unit["Install"]["WantedBy"] == "multi-user.target"


# --- backends ------------------------------------------------------------------------


def test_the_simulated_backend_is_a_pi_5_with_pwm_pins() -> None:
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    before = Device.pin_factory
    factory = make_pin_factory(GpioBackend.SIMULATED)
    try:
        assert isinstance(factory, MockFactory)
        assert factory.pin_class is MockPWMPin
        assert factory.board_info.model == "5B"
    finally:
        factory.close()
    assert Device.pin_factory is before  # never the global


def lgpio_here() -> bool:
    return importlib.util.find_spec("lgpio") is not None and Path("/dev/gpiochip0").exists()


@pytest.mark.skipif(lgpio_here(), reason="this machine has GPIO pins")
def test_real_pins_where_there_are_none_say_what_to_do() -> None:
    with pytest.raises(GpioUnavailable) as info:
        make_pin_factory(GpioBackend.LGPIO)
    assert "Run this on the table's Pi" in str(info.value)
    assert "--simulated" in str(info.value)


def test_backend_names() -> None:
    assert GpioBackend.parse(" Simulated ") is GpioBackend.SIMULATED
    with pytest.raises(ValueError, match="choose one of lgpio, rpigpio, simulated"):
        GpioBackend.parse("pigpio")


def test_lgpio_gets_a_folder_of_its_own_where_it_is_not_told_one(tmp_path: Path) -> None:
    """lgpio makes its notification pipes in LG_WD, else in the current folder, which the
    service's user may not write: the table gives it a private folder unless told one."""
    import os
    import stat

    from table_controller.devices.gpio import LGPIO_FOLDER, give_lgpio_a_folder

    env: dict[str, str] = {}
    folder = give_lgpio_a_folder(env)
    try:
        assert env[LGPIO_FOLDER] == folder
        assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        assert give_lgpio_a_folder(env) == folder  # once is enough
    finally:
        os.rmdir(folder)
    told = {LGPIO_FOLDER: str(tmp_path)}
    assert give_lgpio_a_folder(told) == str(tmp_path)
    # A folder that is gone (a cleaned /tmp) is not kept.
    gone = {LGPIO_FOLDER: str(tmp_path / "gone")}
    made = give_lgpio_a_folder(gone)
    try:
        assert made != str(tmp_path / "gone") and os.path.isdir(made)
    finally:
        os.rmdir(made)


def test_the_real_machine_gives_lgpio_its_folder_before_importing_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import importlib
    import os
    import tempfile

    from table_controller.devices.gpio import LGPIO_FOLDER
    from table_controller.table import machine

    seen: list[str | None] = []

    def imported(name: str) -> ModuleType:
        seen.append(os.environ.get(LGPIO_FOLDER))
        return ModuleType(name)

    monkeypatch.delenv(LGPIO_FOLDER, raising=False)
    monkeypatch.setattr(importlib, "import_module", imported)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    machine.Machine().import_module("lgpio")
    assert seen and seen[0] is not None and seen[0].startswith(str(tmp_path))
