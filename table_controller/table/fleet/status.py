"""What the director's fleet view is told of a table's own machine, in its heartbeat
(``status_message(..., fleet=...)``): the release it runs, each device in words, the
disk's free space, when the camera was last calibrated, and the config it applied.

Why in the heartbeat and not asked for: a director looking over twenty tables wants
every one's state at once, and the heartbeat already comes every few seconds from each,
retained, so a dashboard opened later sees it too. The words are the faults' own
(table/health.py): the fleet view shows what the table's page shows.
"""

from __future__ import annotations

import importlib.metadata
import os
from collections.abc import Iterable
from pathlib import Path

from table_controller.feed.messages import FleetStatus, MachineClaim
from table_controller.table.health import Device, Fault

PACKAGE = "table-controller"
# Which faults each device of the fleet view is read from, in the order told.
DEVICE_FAULTS: dict[str, tuple[Device, ...]] = {
    "camera": (Device.CAMERA, Device.VIEW, Device.CALIBRATION),
    "lights": (Device.SEATS,),
    "cube": (Device.CUBE,),
    "disk": (Device.DISK,),
    "log": (Device.LOG,),
}
OK = "ok"
NOT_FITTED = "not fitted"


def package_version(package: str = PACKAGE) -> str:
    """The installed release of the table's software; "unknown" when it runs from a
    source tree that was never installed (the director then shows it as unknown)."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def device_words(faults: Iterable[Fault], *, cube: bool = True) -> dict[str, str]:
    """Each device as "ok" or its fault's problem in words ("the camera cannot be
    opened: ..."); the cube "not fitted" when the table has none."""
    by_device = {f.device: f for f in faults}
    out: dict[str, str] = {}
    for name, devices in DEVICE_FAULTS.items():
        found = [by_device[d].problem for d in devices if d in by_device]
        out[name] = "; ".join(found) if found else OK
    if not cube and out["cube"] == OK:
        out["cube"] = NOT_FITTED
    return out


def calibration_at(path: Path | None, made_at: float | None = None) -> float | None:
    """When the camera was last calibrated: ``made_at`` (a calibration made since the
    table started, wall clock), else the calibration file's saved time; None if neither."""
    if made_at is not None:
        return made_at
    if path is None:
        return None
    try:
        return os.stat(path).st_mtime
    except OSError:
        return None


def fleet_status(
    *,
    version: str,
    faults: Iterable[Fault],
    cube: bool,
    disk_free: int | None,
    calibration: float | None,
    config_seq: int | None = None,
    machine: MachineClaim | None = None,
) -> FleetStatus:
    """The heartbeat's ``fleet`` part (SPEC, H4). ``disk_free`` in bytes (None: not read
    yet); ``config_seq``: the director's config applied (None until the table runs in
    fleet mode, table/fleet/run.py); ``machine``: which machine this is
    (table/fleet/identity.py), left out when not known."""
    out: FleetStatus = {
        "version": version,
        "devices": device_words(faults, cube=cube),
        "disk_free_mb": None if disk_free is None else disk_free // (1024 * 1024),
        "calibration": {"at": calibration},
        "config_seq": config_seq,
    }
    if machine is not None:
        out["machine"] = machine.copy()
    return out


__all__ = [
    "DEVICE_FAULTS",
    "NOT_FITTED",
    "OK",
    "calibration_at",
    "device_words",
    "fleet_status",
    "package_version",
]
