"""What ``config check`` finds of the devices a table's config names: each looked for
on a machine the test describes (tests/machines.py), through the same functions the
real machine is looked at with; and every missing device said plainly, with what to do."""

from __future__ import annotations

import argparse
import io
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
from machines import PI, PICO, SERIAL_DONGLE, Parts, bare, table_pi

from table_controller.table.config import TableConfig, load_config, parse_config
from table_controller.table.config.cli import cmd_check
from table_controller.table.machine import (
    Machine,
    SerialPortInfo,
    look_at,
    look_at_camera,
    look_at_cube,
    look_at_gpio,
)
from table_controller.vision.layout import Calibration

# A config key a message tells someone to write: [section] key = "value"
KEY = re.compile(r'\[(\w+)\] (\w+) = ("[^"]*"|[\w.]+)')


def a_table(folder: Path, extra: str = "") -> Path:
    """The example's devices: the Pi camera, the Pi's pins, the cube found on USB."""
    Calibration((1280, 720), np.diag([0.5, 0.5, 1.0])).save(folder / "calibration" / "table.json")
    path = folder / "table.toml"
    path.write_text('[table]\nname = "Club Night 3"\n' + extra, encoding="utf-8")
    return path


def check(path: Path, machine: Machine) -> tuple[int, str]:
    out = io.StringIO()
    code = cmd_check(argparse.Namespace(file=str(path)), out, machine)
    return code, out.getvalue()


def keys_work(text: str, base: Path) -> None:
    """Every ``[section] key = value`` in ``text`` is a key the config takes."""
    found = KEY.findall(text)
    assert found, f"no config key in {text!r}"
    data: dict[str, dict[str, object]] = {"table": {"name": "T"}}
    for section, key, value in found:
        data.setdefault(section, {})[key] = value.strip('"') if value[0] == '"' else value
    parse_config(data, base)  # raises ConfigError on a key or value it does not take


def test_on_a_machine_with_none_of_the_devices_each_is_said_missing_with_what_to_do(
    tmp_path: Path,
) -> None:
    path = a_table(tmp_path)
    code, text = check(path, bare())
    assert code == 1
    lines = text.splitlines()
    assert lines[0] == f"{path} is a good file, but 3 devices it names are not on this machine."
    assert "is good." not in text
    start = lines.index("On this machine:")
    said = "\n".join(lines[start:])
    assert "  camera:  no Pi camera found: picamera2 is not installed here" in said
    assert "  seats:   no GPIO pins on this machine (no /dev/gpiochip*)" in said
    assert "  cube:    no trump cube plugged in" in said and "no USB serial ports at all" in said
    todos = [line.strip() for line in lines[start:] if line.strip().startswith("what to do:")]
    assert len(todos) == 3
    assert 'set [camera] source = "synthetic"' in todos[0]
    assert 'set [table] gpio = "mock"' in todos[1]
    assert 'set [cube] port = "none"' in todos[2]
    for todo in todos:
        keys_work(todo, tmp_path)
    assert lines[-1].startswith("`table-controller run` would start with each missing device")


def test_on_the_table_s_pi_every_device_is_found(tmp_path: Path) -> None:
    code, text = check(a_table(tmp_path), table_pi())
    assert code == 0
    assert text.splitlines()[0].endswith(" is good.")
    assert "  camera:  Pi camera 0 found (imx708)" in text
    assert "  seats:   GPIO pins found (/dev/gpiochip0, /dev/gpiochip4), through lgpio" in text
    assert "  cube:    a cube found on USB: /dev/ttyACM0" in text
    assert "what to do" not in text


def test_the_simulated_table_needs_nothing_of_the_machine(tmp_path: Path) -> None:
    extra = 'gpio = "mock"\n[camera]\nsource = "synthetic"\n[cube]\nport = "emulator"\n'
    path = a_table(tmp_path, extra)
    code, said = check(path, bare())
    assert code == 0, said
    assert "  camera:  the synthetic camera (no camera needed)" in said
    assert "  seats:   simulated pins" in said
    assert "  cube:    the cube's firmware, run on this machine" in said


def test_a_pi_camera_installed_but_not_connected() -> None:
    machine = replace(PI, cameras=[]).machine()
    finding = look_at_camera("picamera2", machine)
    assert not finding.here
    assert finding.found.startswith("no Pi camera found")
    assert finding.todo.startswith("connect one") and "rpicam-hello --list-cameras" in finding.todo
    # the second camera of a Pi with one
    assert not look_at_camera("picamera2:1", table_pi()).here


def test_a_usb_camera_is_looked_for_at_its_device() -> None:
    machine = Parts(paths={"/dev/video0"}).machine()
    assert look_at_camera("usb:0", machine).found == "camera /dev/video0 found"
    missing = look_at_camera("usb:2", machine)
    assert not missing.here and missing.found == "no camera at /dev/video2"
    assert "`ls /dev/video*`" in missing.todo


def test_gpio_pins_without_a_pin_library_or_the_right_to_open_them() -> None:
    no_library = replace(PI, modules={"picamera2", "gpiozero"}).machine()
    finding = look_at_gpio("auto", no_library)
    assert not finding.here
    assert "no pin library" in finding.found and "No module named 'lgpio'" in finding.found
    assert "`make setup` installs lgpio" in finding.todo
    rpi_gpio = replace(PI, modules={"RPi.GPIO", "gpiozero"}).machine()
    assert look_at_gpio("auto", rpi_gpio).found.endswith("through RPi.GPIO")
    closed = replace(PI, closed={"/dev/gpiochip4"}).machine()
    finding = look_at_gpio("auto", closed)
    assert not finding.here and finding.found.endswith("cannot open /dev/gpiochip4")
    assert "sudo adduser $USER gpio" in finding.todo


def test_the_cube_on_auto_a_named_port_or_none() -> None:
    others = Parts(ports=[SERIAL_DONGLE]).machine()
    finding = look_at_cube("auto", others)
    assert not finding.here
    assert "USB serial ports: /dev/ttyUSB0 (0403:6001 FT232R USB UART)" in finding.found
    assert look_at_cube("auto", Parts(ports=[SERIAL_DONGLE, PICO]).machine()).here
    named = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_e6614c-if00"
    assert look_at_cube(named, Parts(paths={named}).machine()).found == f"{named} found"
    missing = look_at_cube(named, bare())
    assert not missing.here and missing.found == f"no serial port {named}"
    assert "ls /dev/serial/by-id/" in missing.todo
    assert look_at_cube(None, bare()).here
    assert look_at_cube("socket://localhost:7000", bare()).here


def test_the_findings_follow_the_config(tmp_path: Path) -> None:
    config: TableConfig = load_config(a_table(tmp_path, '[cube]\nport = "none"\n'))
    devices = [(f.device, f.here) for f in look_at(config, bare())]
    assert devices == [("camera", False), ("seats", False), ("cube", True)]


def test_a_look_that_fails_is_said_not_raised(tmp_path: Path) -> None:
    def broken() -> list[SerialPortInfo]:
        raise OSError("sysfs is not mounted")

    machine = replace(table_pi(), serial_ports=broken)
    config = load_config(a_table(tmp_path))
    camera, seats, cube = look_at(config, machine)
    assert camera.here and seats.here
    assert not cube.here and cube.found == "could not look for it (sysfs is not mounted)"
