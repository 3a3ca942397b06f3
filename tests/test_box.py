"""The Pi in a box: Debian bookworm booted under QEMU with a kernel built from Debian's
source (hardware/box/), where ``hardware/first-boot.sh`` runs exactly as a person runs
it on a fresh Raspberry Pi OS Lite, and after a reboot the table's unit runs and its page
answers. Then, on the same machine and in this order: the table drives its seat lights
and reads its buttons through the kernel's GPIO device (the box's gpio-sim chip), the trump
cube on the machine's serial port (ttyS1) gets the table's state and comes back after its
line is cut, systemd restarts the table killed, and a power cut mid-game loses nothing
acknowledged. The
kernel, the image and the wheelhouse are built once and cached outside the project
(hardware/box/README.md); QEMU emulates the machine (TCG), so this is the suite's
longest test. Where it cannot run, the session's summary says so (box_machine.py).
"""

from __future__ import annotations

import json
import shlex
import time
from collections.abc import Iterator

import pytest
from box_machine import FIGURES, Box, FirstBoot, report_figures
from box_table import (
    CUBE_PORT,
    LOG,
    booted_box,
    club_table,
    cube_fault,
    press,
    run_club_table,
    sample_lines,
    service_use,
    serving,
)

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


@pytest.fixture(autouse=True)
def figures_reported(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test's figures go into its report, for the session's summary."""
    yield
    report_figures(request.node)


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    yield from booted_box(tmp_path_factory, FIRST_BOOT)


FIRST_BOOT: list[FirstBoot] = []


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
    # Nothing failed at boot (systemd-sysctl did, before the image's pid_max drop-in).
    failed = box.ssh("systemctl --failed --no-legend --plain").stdout.strip()
    assert failed == "", f"units failed at the box's boot:\n{failed}"
    # The header's chip, the gpio group's (as on Raspberry Pi OS), made at boot; what
    # first-boot.sh would install through apt-get for the pi set is there already.
    chip = box.ssh("stat -c '%G %a' /dev/gpiochip0").stdout.split()
    assert chip == ["gpio", "660"], f"/dev/gpiochip0 is {chip}"
    baked = box.ssh("dpkg-query -W -f '${Status}\\n' libzbar0 gcc libc6-dev python3-dev").stdout
    assert baked.count("install ok installed") == 4, baked


def test_first_boot_makes_the_box_a_table_that_starts_at_boot(box: Box) -> None:
    """first-boot.sh ran on a fresh card (box_machine.first_booted: in this run, or kept
    from an earlier run of the same install steps, then run again with this checkout's
    code): after a reboot the table's unit starts by itself and its page answers."""
    FIGURES.append(FIRST_BOOT[0].words())
    assert box.ssh("systemctl is-enabled table-controller").stdout.strip() == "enabled"
    rebooted = box.reboot()
    FIGURES.append(f"reboot to the ssh login: {rebooted:.1f} s")
    state = box.wait_active("table-controller", within=600)
    status = box.ssh("systemctl status --no-pager -n 40 table-controller").stdout
    assert state == "active", f"the table's unit is {state} after the reboot:\n{status}"
    assert box.ssh("systemctl is-enabled table-controller").stdout.strip() == "enabled"

    code, page = box.get_page("/", within=600)
    assert code == 200, f"the table's page answered {code}: {page[:500]}\n{status}"
    assert "<html" in page.lower()
    # From the machine's start to the page: the kernel's uptime when the page answered.
    uptime = float(box.ssh("cut -d' ' -f1 /proc/uptime").stdout)
    FIGURES.append(
        f"boot to the table's page (joining: the join page), by the box's uptime: {uptime:.0f} s"
    )
    FIGURES.append(f"the table's service: {service_use(box)}")


def test_the_table_drives_its_lights_and_reads_its_buttons_through_the_kernel(box: Box) -> None:
    """The table's real backend (gpiozero's lgpio factory) on the box's simulated chip:
    North deals first, so North's light blinks amber (red and green, no blue); no camera is
    plugged in, a device fault, so every other seat blinks purple (red and blue, no
    green) for the players to look at the page; the director button (GPIO 8), pressed by
    pulling its line, reaches the table, whose page says the director was called. With a
    wrong pin in the config (North's red as 7, the director as 7) it fails: checked."""
    run_club_table(box, club_table())
    health = json.loads(box.ssh("curl -sk https://127.0.0.1:8080/health").stdout)
    devices = [fault.get("device") for fault in health["faults"]]
    assert "seats" not in devices, f"the seat lights and buttons did not open: {health}"

    # (red, green, blue) of each seat in the example's pins.
    north, others = (17, 27, 22), [(10, 9, 11), (23, 24, 25), (16, 20, 21)]
    values = sample_lines(box, [n for rgb in (north, *others) for n in rgb], seconds=4)
    red, green, blue = north
    assert values[red] == values[green] == {"0", "1"}, f"North's amber does not blink: {values}"
    assert values[blue] == {"0"}, f"North's blue (GPIO{blue}) is lit: {values}"
    for _red, green, blue in others:
        assert values[blue] == {"0", "1"}, f"GPIO{blue} does not blink purple: {values}"
        assert values[green] == {"0"}, f"GPIO{green} is lit (purple has no green): {values}"

    assert not any("director" in str(n) for n in box.snapshot()["notices"])  # type: ignore[attr-defined]
    press(box, 8)

    def called() -> bool:
        notices = box.snapshot()["notices"]
        return any("called the director" in str(n) for n in notices)  # type: ignore[attr-defined]

    box.wait_for("the director button's press on the page", called, within=120)
    FIGURES.append(f"the club's table's service (real pins, no camera): {service_use(box)}")


def test_the_cube_on_the_boxs_serial_port_is_cut_and_restored(box: Box) -> None:
    """The trump cube on a serial port of the machine, as a club's table.toml names it
    (``[cube] port = "/dev/ttyS1"``): its firmware runs on this machine, at the far end of
    the box's ttyS1. The table's state reaches it through the kernel's serial driver: its
    display when the table starts (no trump yet: no camera plays a deal in the box), then
    the director's alert when the director button (GPIO 8) is pressed. The cube's line cut
    (this machine's end closed, the firmware stopped): the table's status says so in
    words and it goes on serving; the line restored, with a freshly started cube: the
    fault clears and the cube shows the table's state again. With the port named wrong in
    the config (/dev/ttyS2, a port with nothing on it) this fails: checked by hand."""
    from table_controller.devices.cube_types import Alert, CubeState
    from table_controller.devices.emulator import CubeEmulator

    emulator = CubeEmulator(port=box.cube_line())
    emulator.start()
    try:
        run_club_table(box, club_table(cube=CUBE_PORT))

        def shown() -> CubeState | None:
            wire = emulator.shown_state()
            return None if wire is None else CubeState.from_wire(wire)

        def showing(alert: Alert) -> bool:
            state = shown()
            return state is not None and state.alert == alert and state.trump is None

        box.wait_for("the table's state on the cube over ttyS1", lambda: showing(Alert.NONE), 300)
        box.wait_for("the cube's link up", lambda: cube_fault(box) is None, within=120)
        press(box, 8)  # the director button: the table's state changes, and the cube's
        box.wait_for("the director's alert on the cube", lambda: showing(Alert.DIRECTOR), 120)

        emulator.unplug()  # the line cut at this machine's end: the cube is gone
        cut = time.monotonic()
        box.wait_for("the cut in the table's status", lambda: cube_fault(box) is not None, 120)
        noticed = time.monotonic() - cut
        fault = cube_fault(box)
        assert fault is not None and "the trump cube is not connected" in fault, fault
        assert "reconnects by itself" in fault, fault
        assert serving(box), "the table stopped serving its page without its cube"
        page = box.snapshot()
        assert any(f.get("device") == "cube" for f in page["faults"]), page["faults"]  # type: ignore[attr-defined]

        emulator.plug_in()  # the line back, with a cube started afresh (it knows nothing)
        restored = time.monotonic()
        box.wait_for("the cube's link up again", lambda: cube_fault(box) is None, within=300)
        box.wait_for("the state on the cube again", lambda: showing(Alert.DIRECTOR), 120)
        recovered = time.monotonic() - restored
        assert emulator.boots == 2
        FIGURES.append(
            f"the cube's serial line cut, in the table's status: {noticed:.1f} s; restored to "
            f"the state on the cube again: {recovered:.1f} s"
        )
    finally:
        emulator.close()


# --- faults -------------------------------------------------------------------------------


def test_the_table_killed_is_restarted_by_systemd(box: Box) -> None:
    """The table's processes killed at once (SIGKILL, as the kernel's OOM killer or a
    crash would): systemd starts it again by itself, and its page answers again."""
    before = box.unit_facts("table-controller")
    started = time.monotonic()
    assert box.ssh("sudo systemctl kill --signal=KILL table-controller").returncode == 0

    def restarted() -> bool:
        facts = box.unit_facts("table-controller")
        return (
            int(facts["NRestarts"]) > int(before["NRestarts"])
            and facts["ActiveState"] == "active"
            and facts["MainPID"] not in ("0", before["MainPID"])
        )

    box.wait_for("the table started again by systemd", restarted, within=300)
    box.wait_for("the table's page after the restart", lambda: serving(box), within=300)
    FIGURES.append(
        f"the table killed (SIGKILL) to its page again: {time.monotonic() - started:.0f} s"
    )


def test_a_power_cut_mid_game_loses_nothing_acknowledged(box: Box) -> None:
    """The simulated table plays a game by itself; each event it has put on disk it
    acknowledges (TABLE_CONTROLLER_ACK=1: 'ack GAME SEQ EVENT' in its journal), read here
    as it comes. The machine's power is cut (QEMU killed) mid-game; after the boot the
    table resumes from its log, which holds every acknowledged event as acknowledged."""
    box.sudo_write(
        "/etc/systemd/system/table-controller.service.d/box-ack.conf",
        "[Service]\nEnvironment=TABLE_CONTROLLER_ACK=1\n",
    )
    assert box.ssh("sudo systemctl daemon-reload").returncode == 0
    run_club_table(box, club_table(simulated=True))

    acked: list[tuple[int, int, object]] = []
    follow = box.follow("journalctl -u table-controller -f -n 0 -o cat")
    try:
        limit = time.monotonic() + 900
        assert follow.stdout is not None
        for line in follow.stdout:
            if line.startswith("ack "):
                _, game_text, seq_text, event = line.rstrip("\n").split(" ", 3)
                acked.append((int(game_text), int(seq_text), json.loads(event)))
            if len(acked) >= 4:
                break
            assert time.monotonic() < limit, f"only {len(acked)} events acknowledged in 900 s"
        FIGURES.append(f"the simulated table's service (playing): {service_use(box)}")
        box.kill_power()
    finally:
        follow.kill()
        follow.wait()
    cut = time.monotonic()

    box.start()
    box.wait_for("the table started after the power cut", lambda: serving(box), within=600)
    FIGURES.append(
        f"power cut mid-game to the table's page again: {time.monotonic() - cut:.0f} s "
        f"({len(acked)} events acknowledged before the cut)"
    )
    resumed = box.ssh("journalctl -b -u table-controller -o cat | grep '^state ' | head -1")
    _, game_text, next_text, _digest = resumed.stdout.split()
    at = (int(game_text), int(next_text))
    for g, seq, _event in acked:
        assert (g, seq) < at, f"ack {g} {seq} is past where the table resumed ({at})"
    script = (
        "import json, sqlite3, sys\n"
        f"db = sqlite3.connect('file:{LOG}?mode=ro', uri=True)\n"
        "rows = db.execute('SELECT game, seq, event FROM events').fetchall()\n"
        "print(json.dumps([[g, s, json.loads(e)] for g, s, e in rows]))\n"
    )
    logged = box.ssh(f"sudo python3 -c {shlex.quote(script)}")
    assert logged.returncode == 0, logged.stderr
    kept = {(g, s): e for g, s, e in json.loads(logged.stdout)}
    lost = [(g, s) for g, s, e in acked if kept.get((g, s)) != e]
    assert lost == [], f"acknowledged but not in the log as acknowledged after the cut: {lost}"
