"""The Pi in a box: Debian bookworm booted under QEMU with a kernel built from Debian's
source (hardware/box/), where ``hardware/first-boot.sh`` runs exactly as a person runs
it on a fresh Raspberry Pi OS Lite, and after a reboot the table's unit runs and its page
answers. The kernel and the image are built once and cached outside the project
(hardware/box/README.md); QEMU emulates the machine (TCG), so this is the suite's
longest test. Where it cannot run, the session's summary says so (box_machine.py).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from box_machine import (
    BUILD,
    FIGURES,
    RUN,
    WHAT,
    Box,
    asked,
    build,
    building_allowed,
    cached,
    missing,
    not_checked,
)

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    why = missing()
    if why is not None:
        not_checked(WHAT, why)
    if not asked():
        not_checked(
            WHAT,
            "first-boot.sh inside the emulated machine takes longer than the whole suite "
            f"may (over 25 minutes on 2 cores): run it with {RUN}=1 (hardware/box/README.md)",
        )
    if cached("image.sh", "root.img") is None and not building_allowed():
        not_checked(
            WHAT,
            "no kernel and image built on this machine yet: build them once with "
            "hardware/box/image.sh (tens of minutes; hardware/box/README.md), or run the "
            f"tests with {BUILD}=1",
        )
    kernel, kernel_s = build("kernel.sh", timeout=3 * 3600)
    image, image_s = build("image.sh", timeout=3600)
    FIGURES.append(
        f"kernel {kernel.name}: {kernel_s:.0f} s; image {image.name}: {image_s:.0f} s "
        "(about 0 when cached)"
    )
    machine = Box(tmp_path_factory.mktemp("box"))
    try:
        FIGURES.append(f"boot to the ssh login under TCG: {machine.start():.1f} s")
        yield machine
    finally:
        machine.stop()


def test_the_box_is_shaped_like_raspberry_pi_os_lite(box: Box) -> None:
    """What first-boot.sh expects of a fresh card: the user pi with sudo, the Pi's groups,
    Python 3.11 with venv, systemd as init, and the simulated GPIO chip's driver."""
    facts = box.ssh(
        "id -nG; sudo -n true && echo sudo-ok; python3 -c 'import sys, venv; print(sys.version)';"
        " ps -p 1 -o comm=; getent group gpio video dialout | cut -d: -f1;"
        " ls /sys/kernel/config 2>/dev/null; grep -c gpio-sim /sys/bus/platform/drivers/*/uevent"
        " 2>/dev/null; ls /sys/bus/platform/drivers/ | grep -x gpio-sim"
    ).stdout
    for want in ("gpio", "video", "dialout", "sudo-ok", "3.11", "systemd", "gpio-sim"):
        assert want in facts, f"{want!r} not in the box's facts:\n{facts}"


def test_first_boot_makes_the_box_a_table_that_starts_at_boot(box: Box) -> None:
    # A fresh card: no table yet.
    assert box.ssh("systemctl cat table-controller").returncode != 0

    box.copy_project()
    started = box.ssh("date +%s.%N").stdout
    done = box.ssh("sudo table-controller/hardware/first-boot.sh", timeout=3600)
    assert done.returncode == 0, f"first-boot.sh failed in the box:\n{done.stdout}\n{done.stderr}"
    seconds = float(box.ssh("date +%s.%N").stdout) - float(started)
    FIGURES.append(f"first-boot.sh inside (TCG): {seconds:.0f} s")
    assert "done. The table looks for the director" in done.stdout

    FIGURES.append(f"reboot to the ssh login: {box.reboot():.1f} s")
    state = box.wait_active("table-controller", within=600)
    status = box.ssh("systemctl status --no-pager -n 40 table-controller").stdout
    assert state == "active", f"the table's unit is {state} after the reboot:\n{status}"
    assert box.ssh("systemctl is-enabled table-controller").stdout.strip() == "enabled"

    code, page = box.get_page("/")
    assert code == 200, f"the table's page answered {code}: {page[:500]}\n{status}"
    assert "<html" in page.lower()
