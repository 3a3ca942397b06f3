"""What this machine really has of the devices a table's config names: the camera, the
GPIO pins for the seat lights and buttons, and the trump cube.

``config check`` asks before the players sit down, so a director learns on the spot
that the Pi camera is missing, rather than from a red fault once the table runs. Each
look is a function of ``Machine`` (import a module, list the GPIO chips, list the serial
ports...), so a test gives a machine of its own, with or without each device; nothing
here opens a device or changes anything.
"""

from __future__ import annotations

import glob
import importlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType

from table_controller.devices.gpio import give_lgpio_a_folder
from table_controller.table.config import TableConfig

# What to write in the config to run without each device (also in run's faults).
SYNTHETIC_TABLE = (
    'to run without one, set [camera] source = "synthetic" with [table] gpio = "mock" and '
    '[cube] port = "emulator": the simulated table (docs/config.md)'
)
WITHOUT_SEATS = 'set [table] gpio = "mock" to run without seat lights and buttons'
WITHOUT_CUBE = 'set [cube] port = "none" to run without a cube ("emulator": its firmware here)'
PICO_USB = (0x2E8A, 0x0005)  # a Raspberry Pi Pico running MicroPython (the cube)


@dataclass(frozen=True)
class SerialPortInfo:
    """A serial port the system lists: its device path and USB id (None: not USB)."""

    device: str
    vid: int | None = None
    pid: int | None = None
    description: str = ""

    @property
    def is_cube(self) -> bool:
        return (self.vid, self.pid) == PICO_USB

    def __str__(self) -> str:
        ids = (
            f"{self.vid:04x}:{self.pid:04x}"
            if self.vid is not None and self.pid is not None
            else "-"
        )
        return f"{self.device} ({ids} {self.description})".replace(" )", ")")


def _pi_cameras(picamera2: ModuleType) -> list[str]:
    """The Pi cameras libcamera sees, by model name."""
    return [str(c.get("Model", "camera")) for c in picamera2.Picamera2.global_camera_info()]


def _serial_ports() -> list[SerialPortInfo]:
    import serial.tools.list_ports

    return [
        SerialPortInfo(str(p.device), p.vid, p.pid, str(p.description or ""))
        for p in sorted(serial.tools.list_ports.comports())
    ]


def _import(name: str) -> ModuleType:
    if name == "lgpio":  # it makes a file in its folder as it loads (devices/gpio.py)
        give_lgpio_a_folder()
    return importlib.import_module(name)


def _gpiochips() -> list[str]:
    return sorted(glob.glob("/dev/gpiochip*"))


def _can_open(path: str) -> bool:
    return os.access(path, os.R_OK | os.W_OK)


@dataclass(frozen=True)
class Machine:
    """How to look at a machine. The defaults look at this one; a test passes its own."""

    import_module: Callable[[str], ModuleType] = _import
    pi_cameras: Callable[[ModuleType], list[str]] = _pi_cameras  # given the picamera2 module
    gpiochips: Callable[[], list[str]] = _gpiochips
    can_open: Callable[[str], bool] = _can_open
    exists: Callable[[str], bool] = os.path.exists
    serial_ports: Callable[[], list[SerialPortInfo]] = _serial_ports


@dataclass(frozen=True)
class Finding:
    """One device: whether it is here, what was found, and what to do when it is not."""

    device: str  # "camera", "seats", "cube"
    here: bool
    found: str
    todo: str = ""

    def lines(self) -> list[str]:
        """For people: what was found, then what to do."""
        said = [self.found]
        return said + ([f"what to do: {self.todo}"] if self.todo and not self.here else [])


@dataclass
class _Imports:
    machine: Machine
    missing: dict[str, str] = field(default_factory=dict)

    def load(self, name: str) -> ModuleType | None:
        try:
            return self.machine.import_module(name)
        except ImportError as exc:
            self.missing[name] = str(exc)
            return None


def look_at_camera(source: str, machine: Machine) -> Finding:
    """The camera ``source`` names (an ``open_camera`` spec), looked for."""
    from table_controller.vision.camera import CameraError, parse_spec

    try:
        spec = parse_spec(source)
    except CameraError as exc:  # config check has said so already
        return Finding("camera", False, str(exc), "fix [camera] source")
    if spec.kind == "picamera2":
        module = _Imports(machine).load("picamera2")
        if module is None:
            return Finding(
                "camera",
                False,
                "no Pi camera found: picamera2 is not installed here (this is not the "
                "table's Raspberry Pi, or its setup did not finish)",
                "on the Pi, `sudo apt install -y python3-picamera2` and connect the camera; "
                f"or, {SYNTHETIC_TABLE}",
            )
        try:
            cameras = machine.pi_cameras(module)
        except Exception as exc:  # libcamera's own errors
            cameras = []
            why = f" ({exc})"
        else:
            why = ""
        number = int(spec.target) if spec.target.isdigit() else 0
        if number >= len(cameras):
            seen = f"; it sees {len(cameras)}" if cameras else ""
            return Finding(
                "camera",
                False,
                f"no Pi camera found{why}: libcamera lists no camera {number}{seen}",
                "connect one (the ribbon cable's contacts the right way round, pushed "
                "fully in; `rpicam-hello --list-cameras` lists it), then power the Pi off "
                f"and on; or, {SYNTHETIC_TABLE}",
            )
        return Finding("camera", True, f"Pi camera {number} found ({cameras[number]})")
    if spec.kind in ("usb", "opencv"):
        target = spec.target or "0"
        device = f"/dev/video{target}" if target.isdigit() else target
        if machine.exists(device):
            return Finding("camera", True, f"camera {device} found")
        return Finding(
            "camera",
            False,
            f"no camera at {device}",
            f"plug the USB camera in (`ls /dev/video*` lists the cameras); or, {SYNTHETIC_TABLE}",
        )
    if spec.kind == "synthetic":
        return Finding("camera", True, "the synthetic camera (no camera needed)")
    where = spec.target
    if machine.exists(where):
        return Finding("camera", True, f"the recorded pictures in {where}")
    return Finding("camera", False, f"no recording at {where}", "fix [camera] source")


def look_at_gpio(gpio: str, machine: Machine) -> Finding:
    """The GPIO pins ``gpio`` (``auto`` or ``mock``) asks for, looked for."""
    if gpio == "mock":
        return Finding("seats", True, "simulated pins (no lights or buttons are driven)")
    chips = machine.gpiochips()
    if not chips:
        return Finding(
            "seats",
            False,
            "no GPIO pins on this machine (no /dev/gpiochip*): it is not a Raspberry Pi",
            f"run the table on its Pi; or {WITHOUT_SEATS}",
        )
    imports = _Imports(machine)
    library = next((name for name in ("lgpio", "RPi.GPIO") if imports.load(name) is not None), None)
    if library is None or imports.load("gpiozero") is None:
        return Finding(
            "seats",
            False,
            f"GPIO pins found ({', '.join(chips)}), but no pin library to drive them "
            f"({'; '.join(imports.missing.values())})",
            f"on the Pi, `make setup` installs lgpio; or {WITHOUT_SEATS}",
        )
    closed = [c for c in chips if not machine.can_open(c)]
    if closed:
        return Finding(
            "seats",
            False,
            f"GPIO pins found, but this user cannot open {', '.join(closed)}",
            "add the user to the gpio group (`sudo adduser $USER gpio`, then log in again); "
            f"or {WITHOUT_SEATS}",
        )
    return Finding("seats", True, f"GPIO pins found ({', '.join(chips)}), through {library}")


def look_at_cube(port: str | None, machine: Machine) -> Finding:
    """The trump cube's port (``auto``, ``emulator``, a path or URL; None: no cube)."""
    if port is None:
        return Finding("cube", True, "none (the table runs without a cube)")
    if port == "emulator":
        return Finding("cube", True, "the cube's firmware, run on this machine")
    if port == "auto":
        ports = machine.serial_ports()
        cube = next((p for p in ports if p.is_cube), None)
        if cube is not None:
            return Finding("cube", True, f"a cube found on USB: {cube.device}")
        usb = [str(p) for p in ports if p.vid is not None]
        seen = "USB serial ports: " + ", ".join(usb) if usb else "no USB serial ports at all"
        return Finding(
            "cube",
            False,
            "no trump cube plugged in: no USB serial device is a Raspberry Pi Pico running "
            f"MicroPython (USB id 2e8a:0005); {seen}",
            f"plug the cube in with a data cable (not a charge-only one); or {WITHOUT_CUBE}",
        )
    if "://" in port:
        return Finding("cube", True, f"{port} (a pyserial URL, opened when the table starts)")
    if machine.exists(port):
        return Finding("cube", True, f"{port} found")
    return Finding(
        "cube",
        False,
        f"no serial port {port}",
        "plug the cube in, and check the name (`ls /dev/serial/by-id/` lists the ports); "
        f"or {WITHOUT_CUBE}",
    )


def look_at(config: TableConfig, machine: Machine | None = None) -> Sequence[Finding]:
    """Each device ``config`` names, looked for on ``machine`` (default: this one)."""
    m = machine if machine is not None else Machine()
    looks: list[tuple[str, Callable[[], Finding]]] = [
        ("camera", lambda: look_at_camera(config.camera.source, m)),
        ("seats", lambda: look_at_gpio(config.gpio, m)),
        ("cube", lambda: look_at_cube(None if config.cube is None else config.cube.port, m)),
    ]
    findings = []
    for device, look in looks:
        try:
            findings.append(look())
        except Exception as exc:  # a system library's own error: said, never a traceback
            findings.append(
                Finding(device, False, f"could not look for it ({exc})", "run the check again")
            )
    return findings


__all__ = [
    "SYNTHETIC_TABLE",
    "WITHOUT_CUBE",
    "WITHOUT_SEATS",
    "Finding",
    "Machine",
    "SerialPortInfo",
    "look_at",
    "look_at_camera",
    "look_at_cube",
    "look_at_gpio",
]
