"""What the box's tests share: the box itself, booted and first-booted
(:func:`booted_box`), and a club's table run on it, its seat lines read and its buttons
pressed through the box's GPIO chip, its cube's fault read from its status."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator

import pytest
from box_machine import (
    BUILD,
    FIGURES,
    ROOT,
    RUN,
    TABLE_CONFIG,
    WHAT,
    Box,
    FirstBoot,
    asked,
    build,
    building_allowed,
    cached,
    first_booted,
    missing,
    not_checked,
)

# What first-boot.sh did on the card the session's box was made from (booted_box).
FIRST_BOOT: list[FirstBoot] = []


def booted_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    """The box a test module runs on (its fixture yields from this): a box that ran
    first-boot.sh (:func:`first_booted`), or a skip naming what kept it from running."""
    why = missing()
    if why is not None:
        not_checked(WHAT, why)
    if not asked():
        not_checked(
            WHAT,
            "the emulated machine's run (first-boot.sh, then the devices and faults) takes "
            f"longer than the whole suite may (42 minutes on 2 cores beside other work): run it "
            f"with {RUN}=1 "
            "(hardware/box/README.md)",
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
    machine, first = first_booted(tmp_path_factory.mktemp("box"), image)
    FIRST_BOOT.append(first)
    try:
        yield machine
    finally:
        machine.stop()


def service_use(box: Box) -> str:
    """The table's service's memory and CPU so far, as systemd counts them, and its
    processes' resident memory (ps)."""
    facts = box.unit_facts("table-controller")
    memory = int(facts.get("MemoryCurrent", "0") or 0) / 2**20
    cpu = int(facts.get("CPUUsageNSec", "0") or 0) / 1e9
    procs = box.ssh(
        "ps -o rss=,pcpu=,etimes=,args= --ppid "
        + "$(systemctl show -p MainPID --value table-controller)"
        + " -p $(systemctl show -p MainPID --value table-controller)"
    ).stdout
    lines = [
        f"{int(p.split()[0]) / 1024:.0f} MiB resident, {p.split()[1]} % CPU over {p.split()[2]} s"
        for p in procs.splitlines()
        if p.strip()
    ]
    return f"{memory:.0f} MiB (cgroup), {cpu:.1f} s of CPU; processes: " + "; ".join(lines)


# --- a club's table on the box's pins ----------------------------------------------------

# The chip's lines in sysfs: gpio-sim's own attributes of each line (hardware/box/gpio-header.sh).
LINE = "/sys/devices/platform/gpio-sim.*/gpiochip*/sim_gpio{n}"
LOG = "/var/lib/table-controller/club.sqlite"
CALIBRATION = "/var/lib/table-controller/calibration/table.json"


def club_table(*, simulated: bool = False, cube: str = "none") -> str:
    """A club's single table (not a fleet's), as a person writes it from the example:
    the example's pins (examples/table.toml: N's light on GPIO 17, 27, 22, the director
    button on GPIO 8) on the Pi's real pins, North dealing first, no cube; no camera is
    plugged into the box yet. ``simulated``: the simulated table instead (its players,
    mock pins and the synthetic camera), which plays a game by itself. ``cube``: the
    trump cube's serial port, as the club writes it ("none": no cube)."""
    text = (ROOT / "examples" / "table.toml").read_text()
    changes = {
        'log = "table-1.sqlite"': f'log = "{LOG}"',
        "# first_dealer = ": "first_dealer = ",
        'calibration = "calibration/table.json"': f'calibration = "{CALIBRATION}"',
        'source = "picamera2"': 'source = "synthetic"' if simulated else 'source = "usb:0"',
        'port = "auto"  ': f'port = "{cube}"  ',
        'host = "127.0.0.1"': 'host = "0.0.0.0"',
    }
    if simulated:
        changes['gpio = "auto"'] = 'gpio = "mock"'
    for old, new in changes.items():
        assert old in text, f"examples/table.toml has changed ({old!r} is gone): update this test"
        text = text.replace(old, new, 1)
    return text


def run_club_table(box: Box, text: str) -> None:
    """The table run on ``text``: calibrated first as a person does (from the synthetic
    table's picture: no camera is plugged into the box yet), checked, restarted."""
    if box.ssh(f"sudo test -f {CALIBRATION}").returncode != 0:
        done = box.ssh(
            "cd /tmp && sudo -u euchre /opt/table-controller/.venv/bin/table-controller"
            f" calibrate --camera synthetic --frames 3 --out {CALIBRATION}",
            timeout=600,
        )
        assert done.returncode == 0, f"calibrating failed: {done.stdout}{done.stderr}"
    box.sudo_write("/etc/table-controller/table.toml", text)
    # The table's own check, as the service's user: the file is good, the pins are there
    # (no camera is plugged into the box yet: that alone is missing).
    check = box.ssh(
        # From pi's home, which the service's user cannot write: lgpio, which makes a pipe
        # in its folder, is given one of its own (devices/gpio.py).
        "sudo -u euchre /opt/table-controller/.venv/bin/table-controller config check"
        " /etc/table-controller/table.toml"
    ).stdout
    good = "table.toml is good." in check or "table.toml is a good file" in check
    assert good, f"the club's table.toml:\n{check}"
    if 'gpio = "mock"' not in text:
        assert "seats:   GPIO pins found (/dev/gpiochip0), through lgpio" in check, check
    assert box.ssh("sudo systemctl restart table-controller", timeout=300).returncode == 0
    box.wait_for("the club's table serving its page", lambda: serving(box), within=600)


def serving(box: Box) -> bool:
    done = box.ssh("curl -sk --max-time 20 https://127.0.0.1:8080/health", timeout=60)
    try:
        return bool(json.loads(done.stdout).get("serving"))
    except ValueError:
        return False


def sample_lines(box: Box, lines: list[int], seconds: float) -> dict[int, set[str]]:
    """The values each of ``lines`` showed over ``seconds``, read in the box every 20 ms."""
    script = (
        "import glob, json, sys, time\n"
        f"lines = {lines!r}\n"
        f"paths = {{n: glob.glob({LINE!r}.format(n=n) + '/value')[0] for n in lines}}\n"
        "seen = {n: set() for n in lines}\n"
        f"end = time.monotonic() + {seconds}\n"
        "while time.monotonic() < end:\n"
        "    for n, p in paths.items():\n"
        "        seen[n].add(open(p).read().strip())\n"
        "    time.sleep(0.02)\n"
        "print(json.dumps({n: sorted(v) for n, v in seen.items()}))\n"
    )
    done = box.ssh(f"sudo python3 -c {shlex.quote(script)}", timeout=120 + seconds)
    assert done.returncode == 0, f"reading the chip's lines failed: {done.stderr}"
    return {int(n): set(v) for n, v in json.loads(done.stdout).items()}


def press(box: Box, line: int, hold: float = 1.0) -> None:
    """A finger on the button of ``line``: the line pulled to ground for ``hold``
    seconds, then let go (the button's own pull-up brings it back)."""
    path = LINE.format(n=line) + "/pull"
    done = box.ssh(
        f"echo pull-down | sudo tee {path} >/dev/null && sleep {hold}"
        f" && echo pull-up | sudo tee {path} >/dev/null"
    )
    assert done.returncode == 0, f"pressing GPIO{line} failed: {done.stderr}"


# --- the trump cube on the box's serial port ---------------------------------------------

# The box's serial port for the cube (Box.cube_device: its ttyS1, or ttyAMA0 on arm64):
# QEMU wires it to a pseudo-terminal of this machine (hardware/box/box.sh), where the
# cube's firmware runs (MicroPython is not on this machine: the project's emulator of it,
# tests/test_cube_on_a_port.py).


def device_fault(box: Box, device: str) -> str | None:
    """``device``'s fault ("cube", "camera") as the table's status (/health, what its page
    shows) words it; None when it has none."""
    health = json.loads(box.ssh("curl -sk --max-time 20 https://127.0.0.1:8080/health").stdout)
    for fault in health["faults"]:
        if fault.get("device") == device:
            return f"{fault['what']}: {fault['problem']} ({fault['fix']})"
    return None


def cube_fault(box: Box) -> str | None:
    return device_fault(box, "cube")


def as_first_boot_left(box: Box) -> None:
    """The box's table put back as first-boot.sh left it, a fleet's (its table.toml), and
    started again on it, when another test ran a club's table on the box."""
    assert FIRST_BOOT, "no box was booted"
    config = FIRST_BOOT[0].config
    if box.ssh(f"sudo cat {TABLE_CONFIG}").stdout == config:
        return
    box.sudo_write(TABLE_CONFIG, config)
    assert box.ssh("sudo systemctl restart table-controller", timeout=300).returncode == 0


FAST = "/etc/systemd/system/table-controller.service.d/box-fast.conf"


def fast_pace(box: Box, on: bool) -> None:
    """The simulated table at its own fast pace (`run --fast`: clean frames, 4 to a card)
    from its next start, or back to the demo's pace: a drop-in as `systemctl edit` writes
    one. At the demo pace a card took about 100 s of frames under emulation on a loaded
    machine, and a hand over an hour."""
    if not on:
        assert box.ssh(f"sudo rm -f {FAST} && sudo systemctl daemon-reload").returncode == 0
        return
    unit = box.ssh("grep '^ExecStart=' /etc/systemd/system/table-controller.service").stdout
    assert unit.startswith("ExecStart=") and "run --config" in unit, unit
    box.sudo_write(FAST, f"[Service]\nExecStart=\n{unit.strip()} --fast\n")
    assert box.ssh("sudo systemctl daemon-reload").returncode == 0
