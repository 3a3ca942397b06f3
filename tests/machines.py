"""Machines for the device probes (table/machine.py): a bare laptop with none of the
table's devices, and a table's Raspberry Pi with all of them, each described by the
same functions ``Machine`` calls on the real one."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any

from table_controller.table.machine import Machine, SerialPortInfo

PICO = SerialPortInfo("/dev/ttyACM0", 0x2E8A, 0x0005, "Board in FS mode")
SERIAL_DONGLE = SerialPortInfo("/dev/ttyUSB0", 0x0403, 0x6001, "FT232R USB UART")


@dataclass
class Parts:
    """What a machine has: importable modules, Pi cameras, GPIO chips, paths, ports."""

    modules: set[str] = field(default_factory=set)
    cameras: list[str] = field(default_factory=list)
    chips: list[str] = field(default_factory=list)
    closed: set[str] = field(default_factory=set)  # paths this user cannot open
    paths: set[str] = field(default_factory=set)
    ports: list[SerialPortInfo] = field(default_factory=list)

    def machine(self) -> Machine:
        def import_module(name: str) -> Any:
            if name not in self.modules:
                raise ModuleNotFoundError(f"No module named {name!r}")
            return SimpleNamespace(__name__=name)

        return Machine(
            import_module=import_module,
            pi_cameras=lambda _module: list(self.cameras),
            gpiochips=lambda: list(self.chips),
            can_open=lambda path: path not in self.closed,
            exists=lambda path: path in self.paths or path in self.chips,
            serial_ports=lambda: list(self.ports),
        )


BARE = Parts()  # a laptop or a VM: no Pi camera, no GPIO, no cube
PI = Parts(
    modules={"picamera2", "lgpio", "gpiozero"},
    cameras=["imx708"],
    chips=["/dev/gpiochip0", "/dev/gpiochip4"],
    ports=[PICO],
)


def bare() -> Machine:
    return replace(BARE).machine()


def table_pi() -> Machine:
    return replace(PI).machine()
