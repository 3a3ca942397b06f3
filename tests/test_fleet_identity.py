"""Which machine a table runs on (table/fleet/identity.py), read from a fake ``/proc``
and ``/sys`` as a Raspberry Pi, a PC and a container show them: the Pi's serial number
first, the first physical network card's address next, this start's id last; the same
machine read twice gives the same fingerprint, two machines give two, and what goes on
the wire is a hash, never the serial number or the address."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.table.fleet.identity import (
    MachinePaths,
    fingerprint,
    machine_claim,
    network_address,
    pi_serial,
)

SERIAL = "10000000a1b2c3d4"
CPUINFO = f"""processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid

Hardware\t: BCM2835
Revision\t: d04170
Serial\t\t: {SERIAL}
Model\t\t: Raspberry Pi 5 Model B Rev 1.0
"""
BOOT_ID = "5f0e7a3c-2b1d-4c8e-9a6f-0d1e2f3a4b5c"


def machine(
    folder: Path,
    *,
    tree_serial: str | None = None,
    cpuinfo: str | None = None,
    cards: dict[str, str] | None = None,
    virtual: dict[str, str] | None = None,
    boot_id: str | None = BOOT_ID,
) -> MachinePaths:
    """A fake machine's ``/proc`` and ``/sys`` under ``folder``: ``cards`` are physical
    interfaces (with a ``device``), ``virtual`` ones have none (as a bridge or a VPN)."""
    proc, sys = folder / "proc", folder / "sys"
    proc.mkdir(parents=True)
    (sys / "class" / "net").mkdir(parents=True)
    if tree_serial is not None:
        (proc / "device-tree").mkdir()
        (proc / "device-tree" / "serial-number").write_bytes(tree_serial.encode() + b"\0")
    if cpuinfo is not None:
        (proc / "cpuinfo").write_text(cpuinfo)
    if boot_id is not None:
        (proc / "sys" / "kernel" / "random").mkdir(parents=True)
        (proc / "sys" / "kernel" / "random" / "boot_id").write_text(boot_id + "\n")
    for name, address in {"lo": "00:00:00:00:00:00", **(virtual or {})}.items():
        (sys / "class" / "net" / name).mkdir()
        (sys / "class" / "net" / name / "address").write_text(address + "\n")
    for name, address in (cards or {}).items():
        card = sys / "class" / "net" / name
        card.mkdir()
        (card / "address").write_text(address + "\n")
        (folder / "devices" / name).mkdir(parents=True)
        os.symlink(folder / "devices" / name, card / "device")
    return MachinePaths(proc=proc, sys=sys)


def test_a_pi_is_told_by_its_serial_number_from_the_device_tree(tmp_path: Path) -> None:
    paths = machine(
        tmp_path, tree_serial=SERIAL, cpuinfo=CPUINFO, cards={"eth0": "d8:3a:dd:01:02:03"}
    )
    claim = machine_claim(paths)
    assert claim == {"id": fingerprint("serial", SERIAL), "source": "serial"}
    assert re.fullmatch(r"[0-9a-f]{16}", claim["id"])
    # A hash: neither the serial number nor a part of it is on the wire.
    assert SERIAL not in claim["id"] and "a1b2c3d4" not in claim["id"]
    # The same machine read again (another start): the same fingerprint.
    assert machine_claim(paths) == claim


def test_without_a_device_tree_the_serial_comes_from_cpuinfo(tmp_path: Path) -> None:
    with_tree = machine(tmp_path / "a", tree_serial=SERIAL)
    only_cpuinfo = machine(tmp_path / "b", cpuinfo=CPUINFO)
    assert pi_serial(only_cpuinfo.proc) == SERIAL
    # The same board read either way is the same machine.
    assert machine_claim(only_cpuinfo) == machine_claim(with_tree)


def test_two_pis_from_one_card_are_two_machines(tmp_path: Path) -> None:
    a = machine(tmp_path / "a", cpuinfo=CPUINFO)
    b = machine(tmp_path / "b", cpuinfo=CPUINFO.replace(SERIAL, "10000000ffee0011"))
    claim_a, claim_b = machine_claim(a), machine_claim(b)
    assert claim_a is not None and claim_b is not None
    assert claim_a["id"] != claim_b["id"]


def test_a_machine_without_a_serial_is_told_by_its_first_network_card(tmp_path: Path) -> None:
    # A PC: cpuinfo has no Serial line (a board without one shows zeros: not a serial).
    cpuinfo = "processor\t: 0\nmodel name\t: Intel(R) Core(TM)\nSerial\t\t: 0000000000000000\n"
    paths = machine(
        tmp_path,
        cpuinfo=cpuinfo,
        cards={"wlan0": "DC:A6:32:00:00:02", "eth0": "DC:A6:32:00:00:01"},
        virtual={"docker0": "02:42:ac:11:00:01", "br-lan": "02:00:00:00:00:09"},
    )
    # eth0 before wlan0 by name; lo and the virtual ones left out; in lower case.
    assert network_address(paths.sys) == "dc:a6:32:00:00:01"
    assert machine_claim(paths) == {
        "id": fingerprint("network", "dc:a6:32:00:00:01"),
        "source": "network",
    }


def test_two_network_addresses_give_two_machines_and_one_gives_the_same(tmp_path: Path) -> None:
    a = machine_claim(machine(tmp_path / "a", cards={"eth0": "52:54:00:ab:cd:01"}))
    again = machine_claim(machine(tmp_path / "again", cards={"eth0": "52:54:00:ab:cd:01"}))
    b = machine_claim(machine(tmp_path / "b", cards={"eth0": "52:54:00:ab:cd:02"}))
    assert a is not None and b is not None
    assert a == again and a["id"] != b["id"]


def test_two_emulated_pis_with_qemus_default_address_are_told_by_their_starts(
    tmp_path: Path,
) -> None:
    # Two QEMU machines from one disk (hardware/box/box.sh starts them so): no serial,
    # one network card each with QEMU's default address, the same on both.
    a = machine(tmp_path / "a", cards={"enp0s2": "52:54:00:12:34:56"})
    b = machine(
        tmp_path / "b",
        cards={"enp0s2": "52:54:00:12:34:56"},
        boot_id="0a0b0c0d-1111-2222-3333-444455556666",
    )
    claim_a, claim_b = machine_claim(a), machine_claim(b)
    assert claim_a is not None and claim_b is not None
    assert claim_a["source"] == claim_b["source"] == "boot"
    assert claim_a["id"] != claim_b["id"]


def test_only_virtual_interfaces_fall_back_to_this_starts_id_and_say_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A container: no serial, only lo and a virtual interface.
    paths = machine(tmp_path, virtual={"eth0": "02:42:ac:11:00:02"})
    caplog.set_level("INFO")
    claim = machine_claim(paths)
    assert claim == {"id": fingerprint("boot", BOOT_ID), "source": "boot"}
    assert "this start's own id, new at every start" in caplog.text
    # Another start has another id: another fingerprint (the director counts two machines
    # only when both report at once).
    (paths.proc / "sys" / "kernel" / "random" / "boot_id").write_text(
        "11111111-2222-3333-4444-555555555555\n"
    )
    assert machine_claim(paths) != claim


def test_nothing_readable_is_no_claim_said_in_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    paths = machine(tmp_path, boot_id=None)
    assert machine_claim(paths) is None
    assert "the director shows its machine as not known" in caplog.text
    # Folders that are not there at all: the same, never an error.
    assert machine_claim(MachinePaths(proc=tmp_path / "nope", sys=tmp_path / "nope")) is None


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_a_fingerprint_is_16_hex_digits_and_tells_values_apart(a: str, b: str) -> None:
    fa, fb = fingerprint("serial", a), fingerprint("serial", b)
    assert re.fullmatch(r"[0-9a-f]{16}", fa)
    assert (fa == fb) == (a == b)
    assert fingerprint("network", a) != fa  # the source is part of what is hashed
