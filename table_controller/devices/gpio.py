"""The GPIO backend: which gpiozero pin factory the seat devices ask for pins.

Chosen by configuration and passed to each device (``pin_factory=``), never set on
gpiozero's global ``Device.pin_factory``: a test, the simulated table and the real table
can live in one process without touching each other. The pin libraries (lgpio,
RPi.GPIO) exist only on a Raspberry Pi, so they are imported only when asked for.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import MutableMapping
from enum import Enum
from typing import Any

from table_controller.errors import TableControllerError

# The board the simulated backend pretends to be: a Raspberry Pi 5 with 4 GB.
SIMULATED_REVISION = "c04170"
# Where simulated pins are had: each a real command or config key (tests parse them).
SIMULATED_PINS = (
    "`table-controller seats test --simulated` tries the seat lights and buttons on them, "
    'and [table] gpio = "mock" runs a table\'s config on them'
)


class GpioBackend(Enum):
    """``lgpio``: a Raspberry Pi (the only pin library that runs on a Pi 5, and it runs
    on earlier Pis too). ``rpigpio``: RPi.GPIO, for a Pi 4 or earlier that has it.
    ``simulated``: gpiozero's mock pins, which record every change (tests, a laptop)."""

    LGPIO = "lgpio"
    RPIGPIO = "rpigpio"
    SIMULATED = "simulated"

    @classmethod
    def parse(cls, text: str) -> GpioBackend:
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(b.value for b in cls)
            raise ValueError(f"unknown GPIO backend {text!r}: choose one of {names}") from None


class GpioUnavailable(TableControllerError, RuntimeError):
    """Real pins were asked for where there are none (or they cannot be opened)."""


# lgpio's own setting: the folder it makes its notification pipes in (.lgd-nfyN).
LGPIO_FOLDER = "LG_WD"


def give_lgpio_a_folder(environ: MutableMapping[str, str] | None = None) -> str:
    """The folder lgpio makes its notification pipes in: ``LG_WD`` where set, else a new
    private one in the system's temporary folder, set as ``LG_WD`` for lgpio to read.

    Why: without ``LG_WD`` lgpio makes them in the process's current folder, and a
    table started from a folder its user cannot write (`config check` run as the
    service's user from /home/pi, or a unit whose working folder is read-only) could not
    open its pins ("No such file or directory: '.lgd-nfy-3'"). Called before lgpio is
    imported, because lgpio reads the setting from the process's environment."""
    env = os.environ if environ is None else environ
    folder = env.get(LGPIO_FOLDER, "")
    if folder and os.path.isdir(folder) and os.access(folder, os.W_OK | os.X_OK):
        return folder
    folder = tempfile.mkdtemp(prefix="table-controller-lgpio-")  # 0700, this user's
    env[LGPIO_FOLDER] = folder
    return folder


def make_pin_factory(backend: GpioBackend) -> Any:
    """A new gpiozero pin factory for ``backend``; close it when the devices are closed.

    Raises ``GpioUnavailable`` saying what to do when the real pins cannot be had.
    """
    if backend is GpioBackend.SIMULATED:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(revision=SIMULATED_REVISION, pin_class=MockPWMPin)
    if backend is GpioBackend.LGPIO:
        library, install = "lgpio", "`make setup-pi` there installs it"
    else:
        library, install = "RPi.GPIO", "`sudo apt install python3-rpi.gpio`, or use lgpio"
    try:
        if backend is GpioBackend.LGPIO:
            give_lgpio_a_folder()
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        from gpiozero.pins.rpigpio import RPiGPIOFactory

        return RPiGPIOFactory()
    except ImportError as exc:
        raise GpioUnavailable(
            f"the {library} pin library is not installed ({exc}): this is not a Raspberry "
            f"Pi, or its setup did not finish. Run this on the table's Pi ({install}), or "
            f"use simulated pins: {SIMULATED_PINS}."
        ) from exc
    except Exception as exc:  # the libraries raise their own error types
        pi5 = " RPi.GPIO does not run on a Pi 5: use lgpio there." if library != "lgpio" else ""
        raise GpioUnavailable(
            f"cannot open the GPIO pins through {library} ({exc}). On the table's "
            "Raspberry Pi, check that your user is in the gpio group (`groups`; add it "
            f"with `sudo adduser $USER gpio` and log in again).{pi5} Anywhere else, "
            f"use simulated pins: {SIMULATED_PINS}."
        ) from exc


class SeatDeviceError(TableControllerError, RuntimeError):
    """A seat light or button could not be set up on its pin."""


def open_device(make: Any, where: str, pins: str) -> Any:
    """``make()`` a gpiozero device, or say which seat and pin failed and what to do."""
    try:
        return make()
    except Exception as exc:  # gpiozero and the pin libraries raise many kinds
        raise SeatDeviceError(
            f"cannot use {pins} for {where} ({exc}). If another program holds the pins "
            "(the table service: `sudo systemctl stop table-controller`), stop it first; "
            "otherwise check the pin map (`table-controller seats pins`)."
        ) from exc


def debounces_by_level(pin_factory: Any) -> bool:
    """Whether the pin library's own debounce (``bounce_time``) is a filter that waits
    for a steady level (lgpio; the mock pins ignore it), rather than RPi.GPIO's lock-out
    after an edge, which can drop the next real press (gpiozero issue 1039)."""
    return type(pin_factory).__name__ != "RPiGPIOFactory"


__all__ = [
    "SIMULATED_PINS",
    "SIMULATED_REVISION",
    "GpioBackend",
    "GpioUnavailable",
    "SeatDeviceError",
    "debounces_by_level",
    "make_pin_factory",
    "open_device",
]
