"""``table-controller seats``: the builder's wiring test and the pin map, and their
errors (what went wrong, what to do)."""

from __future__ import annotations

import importlib.util
import io
import tomllib
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.devices.pin_config import parse_pin_map
from table_controller.devices.pins import DEFAULT_PIN_MAP


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, out.getvalue()


def test_pins_prints_every_pin_with_its_header_pin() -> None:
    code, text = run("seats", "pins")
    assert code == 0
    lines = text.splitlines()
    assert lines[0].split() == ["seat", "what", "GPIO", "header", "pin", "also"]
    assert lines[1].split() == ["N", "red", "LED", "17", "11"]
    assert "table director button 8       24          SPI CE0" in text
    assert "Free GPIOs: GPIO7." in text


def test_pins_as_toml_reads_back() -> None:
    code, text = run("seats", "pins", "--toml")
    assert code == 0
    assert parse_pin_map(tomllib.loads(text)["seats"]) == DEFAULT_PIN_MAP


def test_a_pin_map_file_with_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEFAULT_PIN_MAP.toml().replace("call = 6", "call = 17"), encoding="utf-8")
    code, _ = run("seats", "pins", "--pins", str(path))
    assert code == 2
    err = capsys.readouterr().err
    assert "GPIO17 is given to seat N's red LED and seat E's call button" in err
    assert "docs/seats.md" in err


def test_unreadable_pin_map_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("seats", "pins", "--pins", str(tmp_path / "none.toml"))
    assert code == 2
    assert "cannot read" in capsys.readouterr().err
    bad = tmp_path / "bad.toml"
    bad.write_text("[seats\n", encoding="utf-8")
    code, _ = run("seats", "test", "--simulated", "--pins", str(bad))
    assert code == 2
    assert "is not valid TOML" in capsys.readouterr().err


def test_the_simulated_wiring_test_lights_every_seat_and_presses_every_button() -> None:
    code, text = run("seats", "test", "--simulated")
    assert code == 0, text
    assert "N: red (GPIO17)" in text and "W: blue (GPIO21)" in text
    assert "renege: red, fast flash, with white, never dark" in text
    assert text.count(": pressed (GPIO") == 13
    assert "director button: pressed (GPIO8)" in text
    assert text.rstrip().endswith("All 13 buttons work.")


def test_a_custom_pin_map_is_tested_on_its_own_pins(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text(DEFAULT_PIN_MAP.toml().replace("director = 8", "director = 7"), "utf-8")
    code, text = run("seats", "test", "--simulated", "--pins", str(path))
    assert code == 0
    assert "director button: pressed (GPIO7)" in text


@pytest.mark.skipif(
    importlib.util.find_spec("lgpio") is not None and Path("/dev/gpiochip0").exists(),
    reason="this machine has GPIO pins",
)
def test_real_pins_on_a_machine_without_them(capsys: pytest.CaptureFixture[str]) -> None:
    code, _ = run("seats", "test")
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: the lgpio pin library is not installed")
    assert "`table-controller seats test --simulated`" in err
