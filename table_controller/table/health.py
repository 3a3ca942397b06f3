"""The table's devices' health: what is wrong now, in words for the players and the
director, and what to do about it.

A fault is raised by whoever notices it (the camera loop, the cube link, the disk
check), shown on the page and the seat lights, logged, and cleared by the same watcher
when the cause goes away: no fault stops the table. ``Health`` holds the current ones;
raising a fault already raised with the same words changes nothing, so watchers may
raise on every check.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from table_controller.present import FaultShown


class Device(Enum):
    """What a fault is about: one fault per device at a time."""

    CAMERA = "camera"
    VIEW = "view"  # the camera works but sees nothing of the table (covered)
    CALIBRATION = "calibration"
    CUBE = "cube"
    SEATS = "seats"  # the seat lights and buttons
    DISK = "disk"
    LOG = "log"
    FEED = "feed"

    @property
    def words(self) -> str:
        return {
            Device.CAMERA: "the camera",
            Device.VIEW: "the camera's view",
            Device.CALIBRATION: "the camera's calibration",
            Device.CUBE: "the trump cube",
            Device.SEATS: "the seat lights and buttons",
            Device.DISK: "the disk",
            Device.LOG: "the event log",
            Device.FEED: "the director's feed",
        }[self]


@dataclass(frozen=True)
class Fault:
    """Something wrong with one device: what, and what a person can do about it."""

    device: Device
    problem: str  # "no frames for 5 s", "unplugged"
    fix: str  # "check the camera's ribbon cable"
    since: float  # the table's clock (seconds), when it was first raised

    def to_json(self) -> FaultShown:
        return {
            "device": self.device.value,
            "what": self.device.words,
            "problem": self.problem,
            "fix": self.fix,
            "since": round(self.since, 3),
        }


Listener = Callable[[Fault | None, Device], None]  # (the new fault or None: cleared, device)


class Health:
    """The faults now; ``listener`` hears every change (raised, reworded or cleared)."""

    def __init__(self, listener: Listener | None = None) -> None:
        self._faults: dict[Device, Fault] = {}
        self._listener = listener

    def raise_fault(self, device: Device, problem: str, fix: str, now: float) -> bool:
        """Record a fault; True when it is new or its words changed."""
        old = self._faults.get(device)
        if old is not None and (old.problem, old.fix) == (problem, fix):
            return False
        since = old.since if old is not None else now
        fault = Fault(device, problem, fix, since)
        self._faults[device] = fault
        if self._listener is not None:
            self._listener(fault, device)
        return True

    def clear(self, device: Device) -> bool:
        """The device is well again; True when it had a fault."""
        if self._faults.pop(device, None) is None:
            return False
        if self._listener is not None:
            self._listener(None, device)
        return True

    def fault(self, device: Device) -> Fault | None:
        return self._faults.get(device)

    @property
    def faults(self) -> tuple[Fault, ...]:
        """The current faults, in the order of ``Device``."""
        return tuple(self._faults[d] for d in Device if d in self._faults)

    @property
    def ok(self) -> bool:
        return not self._faults
