"""The Pi in a box: Debian bookworm booted under QEMU with a kernel built from Debian's
source (hardware/box/), shaped like a fresh Raspberry Pi OS Lite, where
``hardware/first-boot.sh`` ran exactly as a person runs it; at the next boot the table's
unit starts by itself and its page answers. The kernel, the image, the wheelhouse and
the first-booted disk are built once and cached outside the project
(hardware/box/README.md). Where the box cannot run, the session's summary says so
(box_machine.py).
"""

from __future__ import annotations

import pytest
from box_machine import FIGURES, UNAME, Box, FirstBoot, arch
from box_table import service_use

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


def test_the_box_is_shaped_like_raspberry_pi_os_lite(box: Box) -> None:
    """What first-boot.sh expects of a fresh card: the user pi with sudo, the Pi's groups,
    Python 3.11 with venv, systemd as init, and the simulated GPIO chip's driver; on the
    architecture asked for (BOX_ARCH: arm64 is the Pi's)."""
    machine = box.ssh("uname -m").stdout.strip()
    assert machine == UNAME[arch()], f"the box runs {machine!r}, not {arch()}"
    facts = box.ssh(
        "id -nG; sudo -n true && echo sudo-ok; python3 -c 'import sys, venv; print(sys.version)';"
        " ps -p 1 -o comm=; getent group gpio video dialout | cut -d: -f1;"
        " ls /sys/kernel/config 2>/dev/null; grep -c gpio-sim /sys/bus/platform/drivers/*/uevent"
        " 2>/dev/null; ls /sys/bus/platform/drivers/ | grep -x gpio-sim"
    ).stdout
    for want in ("gpio", "video", "dialout", "sudo-ok", "3.11", "systemd", "gpio-sim"):
        assert want in facts, f"{want!r} not in the box's facts:\n{facts}"
    # Nothing failed at boot (systemd-sysctl did, before the image's pid_max drop-in).
    failed = box.ssh("systemctl --failed --no-legend --plain").stdout.strip()
    assert failed == "", f"units failed at the box's boot:\n{failed}"
    # The header's chip, the gpio group's (as on Raspberry Pi OS), made at boot; what
    # first-boot.sh would install through apt-get for the pi set is there already.
    chip = box.ssh("stat -c '%G %a' /dev/gpiochip0").stdout.split()
    assert chip == ["gpio", "660"], f"/dev/gpiochip0 is {chip}"
    baked = box.ssh("dpkg-query -W -f '${Status}\\n' libzbar0 gcc libc6-dev python3-dev").stdout
    assert baked.count("install ok installed") == 4, baked


def test_first_boot_makes_the_box_a_table_that_starts_at_boot(
    box: Box, first_boot: FirstBoot
) -> None:
    """first-boot.sh ran on a fresh card (box_machine.first_booted: in this run, or kept
    from an earlier run of the same install steps); the box then booted from that card,
    and the table's unit started by itself and its page answered; then first-boot.sh ran
    again with this checkout's code, as after a person copies a new version onto the
    card, and the table runs it."""
    FIGURES.append(first_boot.words())
    assert first_boot.at_boot is not None
    state, code, uptime = first_boot.at_boot
    assert state == "active", f"the table's unit was {state} at boot"
    assert code == 200, f"the table's page answered {code} at boot"
    # From the machine's start to the page: the kernel's uptime when the page answered.
    FIGURES.append(
        f"boot to the table's page (joining: the join page), by the box's uptime: {uptime:.0f} s"
    )
    assert box.ssh("systemctl is-enabled table-controller").stdout.strip() == "enabled"
    state = box.wait_active("table-controller", within=600)
    status = box.ssh("systemctl status --no-pager -n 40 table-controller").stdout
    assert state == "active", f"the table's unit is {state} with this checkout:\n{status}"
    code, page = box.get_page("/", within=600)
    assert code == 200, f"the table's page answered {code}: {page[:500]}\n{status}"
    assert "<html" in page.lower()
    FIGURES.append(f"the table's service: {service_use(box)}")
