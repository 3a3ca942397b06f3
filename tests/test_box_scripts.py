"""The Pi in a box's scripts (hardware/box/), read without running them: shellcheck finds
nothing, and the kernel's fragment asks for every device the box needs, so a line lost
from it fails here in a second rather than as a missing device after a long build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

BOX = Path(__file__).resolve().parents[1] / "hardware" / "box"
SCRIPTS = sorted(BOX.glob("*.sh"))

# What the table's devices and systemd need of the kernel (hardware/box/README.md).
NEEDED = (
    "CONFIG_MODULES",
    "CONFIG_VIRTIO_BLK",
    "CONFIG_VIRTIO_NET",
    "CONFIG_VIRTIO_CONSOLE",
    "CONFIG_EXT4_FS",
    "CONFIG_DEVTMPFS",
    "CONFIG_CGROUPS",
    "CONFIG_NAMESPACES",
    "CONFIG_SECCOMP",
    "CONFIG_INOTIFY_USER",
    "CONFIG_GPIO_SIM",
    "CONFIG_GPIO_CDEV",
    "CONFIG_CONFIGFS_FS",
    "CONFIG_MEDIA_SUPPORT",
    "CONFIG_VIDEO_DEV",
)
# Each architecture's own (kernel-ARCH.config): its console's and its cube's serial port,
# and on arm64 the virt machine's PCI host, on which the virtio devices sit.
NEEDED_BY_ARCH = {
    "amd64": ("CONFIG_SERIAL_8250", "CONFIG_SERIAL_8250_CONSOLE", "CONFIG_ACPI"),
    "arm64": ("CONFIG_SERIAL_AMBA_PL011", "CONFIG_PCI_HOST_GENERIC", "CONFIG_ARM_GIC_V3_ITS"),
}


def asked_of(name: str) -> set[str]:
    lines = (BOX / name).read_text().splitlines()
    return {line.split("=")[0] for line in lines if line.startswith("CONFIG_") and "=y" in line}


@pytest.mark.skipif(
    shutil.which("shellcheck") is None,
    reason="shellcheck is not installed (`make test` installs it)",
)
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck_finds_nothing(script: Path) -> None:
    done = subprocess.run(
        ["shellcheck", "-x", "-P", "SCRIPTDIR", script.name],
        cwd=BOX,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_kernel_fragment_asks_for_every_device_the_box_needs() -> None:
    assert set(NEEDED) - asked_of("kernel.config") == set()


@pytest.mark.parametrize("arch", sorted(NEEDED_BY_ARCH))
def test_each_architecture_asks_for_its_own_machine(arch: str) -> None:
    """Each architecture's file asks for its own serial ports and buses, and nothing
    another architecture lacks goes into the file both share (kernel.sh fails on a line
    that does not survive, after minutes of configuring)."""
    own = asked_of(f"kernel-{arch}.config")
    assert set(NEEDED_BY_ARCH[arch]) - own == set()
    others = {name for other, names in NEEDED_BY_ARCH.items() if other != arch for name in names}
    assert not (others & asked_of("kernel.config")), "an architecture's own line in kernel.config"


def test_the_scripts_stop_at_the_first_error() -> None:
    for script in SCRIPTS:
        if script.name != "common.sh":  # sourced by the others
            assert "set -euo pipefail" in script.read_text(), script.name
