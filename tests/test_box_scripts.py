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
    "CONFIG_SERIAL_8250_CONSOLE",
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
    lines = (BOX / "kernel.config").read_text().splitlines()
    asked = {line.split("=")[0] for line in lines if line.startswith("CONFIG_") and "=y" in line}
    assert set(NEEDED) - asked == set()


def test_the_scripts_stop_at_the_first_error() -> None:
    for script in SCRIPTS:
        if script.name != "common.sh":  # sourced by the others
            assert "set -euo pipefail" in script.read_text(), script.name
