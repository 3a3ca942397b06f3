"""Where the cube's bytes go: a serial port, or the emulator started in this process.

The ``TrumpCube`` never opens a port itself; it asks its backend, as a gpiozero device
asks its pin factory. ``cube_backend(config)`` picks one from the configuration, so a
table runs on the real cube or the emulator without a line of code changing.
"""

from __future__ import annotations

import os
from typing import Protocol, cast

import serial
import serial.tools.list_ports

from table_controller.devices.cube_types import CubeConfig, CubeNotFound
from table_controller.devices.emulator import CubeEmulator

# MicroPython on an RP2040 shows itself on USB as 2e8a:0005 (Raspberry Pi's vendor id).
PICO_MICROPYTHON = (0x2E8A, 0x0005)
READ_TIMEOUT = 0.01  # the link thread's tick: timers are checked at least this often
WRITE_TIMEOUT = 1.0  # a cube that stops reading must not hang the host


class SerialPort(Protocol):
    """What the link uses of a pyserial port (its stubs' ``SerialBase`` lacks some)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def cancel_read(self) -> None: ...

    def close(self) -> None: ...


class CubeBackend(Protocol):
    """Opens the line to the cube; ``open`` raises ``CubeNotFound`` saying what to do."""

    def open(self) -> SerialPort: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...


def list_ports() -> list[str]:
    """The serial ports present, one line each, for error messages."""
    lines = []
    for p in sorted(serial.tools.list_ports.comports()):
        ids = f"{p.vid:04x}:{p.pid:04x}" if p.vid is not None and p.pid is not None else "-"
        lines.append(f"{p.device} ({ids} {p.description})")
    return lines


def find_cube_port() -> str:
    """The first USB serial device that is a Pico running MicroPython."""
    for p in sorted(serial.tools.list_ports.comports()):
        if (p.vid, p.pid) == PICO_MICROPYTHON:
            return str(p.device)
    ports = list_ports()
    seen = "; ports present: " + ", ".join(ports) if ports else "; no serial ports at all"
    raise CubeNotFound(
        "no trump cube plugged in: no USB serial device is a Raspberry Pi Pico running "
        f"MicroPython (USB id 2e8a:0005){seen}. Plug the cube in with a data cable (not a "
        "charge-only one), or name its port: [cube] port in the table's config, or "
        "`table-controller cube test --port PORT` (`ls /dev/serial/by-id/` lists them)."
    )


def open_serial(url: str, baudrate: int = 115200) -> SerialPort:
    """Open a device path or any pyserial URL (``loop://``, ``socket://...``)."""
    is_path = "://" not in url
    try:
        port = serial.serial_for_url(
            url,
            baudrate=baudrate,
            timeout=READ_TIMEOUT,
            write_timeout=WRITE_TIMEOUT,
            exclusive=True if is_path else None,
        )
    except (serial.SerialException, OSError, ValueError) as exc:
        if is_path and not os.path.exists(url):
            raise CubeNotFound(
                f"the cube's port {url} does not exist: is the cube plugged in? "
                "(ls /dev/serial/by-id/ lists the USB serial devices)"
            ) from exc
        raise CubeNotFound(
            f"cannot open the cube's port {url}: {exc}. If another program has it "
            "(a serial terminal, mpremote, a second table-controller), close it; if it is "
            "a permission error, add yourself to the dialout group."
        ) from exc
    return cast(SerialPort, port)


class SerialBackend:
    """A real port: a device path, a pyserial URL, or ``auto`` to look for the cube."""

    def __init__(self, port: str = "auto", baudrate: int = 115200) -> None:
        self.port = port
        self.baudrate = baudrate

    def open(self) -> SerialPort:
        url = find_cube_port() if self.port == "auto" else self.port
        return open_serial(url, self.baudrate)

    def describe(self) -> str:
        return self.port

    def close(self) -> None:
        pass


class EmulatorBackend:
    """The firmware run here behind a pty, as ``table-controller cube emulate`` does. Owns
    the emulator it starts (a given one stays the caller's)."""

    def __init__(self, emulator: CubeEmulator | None = None) -> None:
        self._owned = emulator is None
        self.emulator = emulator if emulator is not None else CubeEmulator()
        if self._owned:
            self.emulator.start()

    def open(self) -> SerialPort:
        if not self.emulator.plugged_in:
            raise CubeNotFound("the emulated cube is unplugged (plug_in() it again)")
        return open_serial(self.emulator.device)

    def describe(self) -> str:
        return f"emulator at {self.emulator.device}"

    def close(self) -> None:
        if self._owned:
            self.emulator.close()


def cube_backend(config: CubeConfig) -> CubeBackend:
    """The backend the configuration names: ``emulator``, or a port (``auto`` finds it)."""
    if config.port == "emulator":
        return EmulatorBackend()
    return SerialBackend(config.port, config.baudrate)
