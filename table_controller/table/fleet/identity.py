"""Which machine this table runs on: a short fingerprint of what the hardware gives,
told to the director in the request to join and in every heartbeat.

Why: a club that copies one first-booted SD card onto twenty cards gets twenty machines
with the same join key (docs/fleet.md, "do not copy a card"). They show one code, take
the director's one approval and log in as one table, each closing the others'
connection, and nothing they send says they are two. The machine's own hardware does:

- a Raspberry Pi's serial number (``/proc/device-tree/serial-number``, else the
  "Serial" line of ``/proc/cpuinfo``), the same at every start of that board and
  different on every other board;
- else the address of the machine's first network card (``/sys/class/net/*/address``,
  in the interfaces' name order; not ``lo``, not a virtual interface, which has no
  ``device`` in ``/sys``, and not QEMU's default address, ``52:54:00:12:34:5x``, which
  every emulated machine started without an address of its own has: two emulated Pis
  made from one disk were seen with it);
- else, said in ``source`` as "boot", this start's own id
  (``/proc/sys/kernel/random/boot_id``): new at every start, so it tells two machines
  running at once apart but not one machine across its restarts (the director counts
  two machines only when both report in the same minutes, so a restart is not taken
  for a copy).

What goes on the wire is a hash of it (``fingerprint``), 16 hex digits, never the
serial number or the address itself: the director needs only to tell machines apart.
It is not a secret: someone who knows a board's serial number can work its
fingerprint out. It is a claim a table makes inside messages it already signs, not a
proof of which machine sent them (docs/security.md).

The folders are given (``MachinePaths``): a test gives a fake ``/proc`` and ``/sys``.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from table_controller.feed.messages import MACHINE_ID_DIGITS, MachineClaim

log = logging.getLogger(__name__)

DOMAIN = b"table-controller machine 1\0"  # so the hash is of this use only
_READ_LIMIT = 65_536
_NO_SERIAL = {"", "0" * 16, "0" * 8}
_NO_ADDRESS = {"", "00:00:00:00:00:00"}
QEMU_DEFAULT = "52:54:00:12:34:"  # QEMU's NICs, first to last: ...:56, ...:57, ...


@dataclass(frozen=True)
class MachinePaths:
    """Where the machine's facts are read: the kernel's ``/proc`` and ``/sys``."""

    proc: Path = Path("/proc")
    sys: Path = Path("/sys")


def fingerprint(source: str, value: str) -> str:
    """The short hash of ``value`` read from ``source``: what the director is told."""
    digest = hashlib.sha256(DOMAIN + source.encode() + b"\0" + value.encode()).hexdigest()
    return digest[:MACHINE_ID_DIGITS]


def machine_claim(paths: MachinePaths) -> MachineClaim | None:
    """This machine's fingerprint and what it was made from (``MachineClaim``); None,
    said in the log, when not even the start's id can be read (the director then shows
    the table's machine as not known)."""
    serial = pi_serial(paths.proc)
    if serial:
        return {"id": fingerprint("serial", serial), "source": "serial"}
    address = network_address(paths.sys)
    if address:
        return {"id": fingerprint("network", address), "source": "network"}
    boot = _read(paths.proc / "sys" / "kernel" / "random" / "boot_id").strip().lower()
    if boot:
        log.info(
            "this machine has no Raspberry Pi serial number and no network card's address "
            "to tell it by: it is told to the director by this start's own id, new at "
            "every start"
        )
        return {"id": fingerprint("boot", boot), "source": "boot"}
    log.warning(
        "this machine's identity cannot be read (no serial number, network address or "
        "start id under %s and %s): the director shows its machine as not known",
        paths.proc,
        paths.sys,
    )
    return None


def pi_serial(proc: Path) -> str:
    """The Raspberry Pi's serial number in lower case, "" when there is none."""
    tree = _read(proc / "device-tree" / "serial-number").strip("\0 \n\t").lower()
    if tree not in _NO_SERIAL:
        return tree
    for line in _read(proc / "cpuinfo").splitlines():
        name, _, value = line.partition(":")
        if name.strip().lower() == "serial":
            serial = value.strip().lower()
            if serial.strip("0"):
                return serial
    return ""


def network_address(sys: Path) -> str:
    """The address of the first physical network card, by interface name; "" when
    there is none (no card, or only ``lo``, virtual ones and QEMU's default address,
    which is no one machine's)."""
    net = sys / "class" / "net"
    try:
        names = sorted(p.name for p in net.iterdir())
    except OSError:
        return ""
    for name in names:
        if name == "lo" or not (net / name / "device").exists():
            continue  # a virtual interface (a bridge, a VPN, a container's) has no device
        address = _read(net / name / "address").strip().lower()
        if address not in _NO_ADDRESS and not address.startswith(QEMU_DEFAULT):
            return address
    return ""


def _read(path: Path) -> str:
    try:
        with path.open("rb") as f:
            return f.read(_READ_LIMIT).decode("ascii", "replace")
    except OSError:
        return ""


__all__ = [
    "QEMU_DEFAULT",
    "MachinePaths",
    "fingerprint",
    "machine_claim",
    "network_address",
    "pi_serial",
]
