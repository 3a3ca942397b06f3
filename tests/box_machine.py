"""The Pi in a box (hardware/box/): a QEMU machine booted from the cached Debian image with
the box's own kernel, driven through ``hardware/box/box.sh``.

What keeps the box from running here (QEMU missing, a kernel or image that cannot be
built) is not a silent skip: :func:`not_checked` records it, and the session's summary
(conftest.py) names what was left unchecked. The figures a run measures (boot, first-boot.sh)
are printed there too, for hardware/box/README.md.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOX = ROOT / "hardware" / "box"
SCRIPT = BOX / "box.sh"

WHAT = (
    "the Pi in a box (first-boot.sh on a booted Debian, the table's unit at boot, its seat"
    " lights and buttons through the kernel, its trump cube on the machine's serial port cut"
    " and restored, its USB camera through V4L2 making trump on the cube, unplugged and"
    " plugged back, its restart after a kill and a power cut, a new release that fails at"
    " its start undone, and the fleet: the table joining a director on this machine by its"
    " code and playing a hand its dashboard shows)"
)
# Set to 1: the test builds the kernel and the image when they are not cached (tens of
# minutes on 2 cores). Unset: it runs only on cached ones, and says so when there are none.
BUILD = "TABLE_CONTROLLER_BOX_BUILD"
# The box's architecture, read by hardware/box/common.sh: amd64 (the default) for the
# everyday run, arm64 (the Pi's) to check the same steps once before a release.
ARCH = "BOX_ARCH"
QEMU = {"amd64": ("qemu-system-x86_64", "qemu-system-x86"),
        "arm64": ("qemu-system-aarch64", "qemu-system-arm")}  # fmt: skip
UNAME = {"amd64": "x86_64", "arm64": "aarch64"}  # what `uname -m` says in the box
# Set to 1 (or BUILD to 1): the box runs. Unset: it is not run, and the summary says so:
# the box's whole session (tests/box/, its first boot cached) took 42 minutes on 2 cores
# under emulation beside other work, more than the whole suite may.
RUN = "TABLE_CONTROLLER_BOX"

# The figures the box's tests measured, in order. They reach the session's summary through
# each test's report (``report_figures``), so the summary holds when the tests ran in
# worker processes (`pytest -n 2`), where this list is the worker's, not the session's.
FIGURES: list[str] = []
_REPORTED = [0]  # how many of FIGURES are in a report already
SKIPPED = "not checked: "
FIGURE = "the Pi in a box"  # the name of a figure among a report's user properties


def not_checked(what: str, why: str) -> None:
    """Skip the test, with ``what`` and ``why`` named in the session's summary."""
    pytest.skip(f"{SKIPPED}{what}: {why}")


def report_figures(node: pytest.Item) -> None:
    """Hand the figures measured since the last call to ``node``'s report."""
    for line in FIGURES[_REPORTED[0] :]:
        node.user_properties.append((FIGURE, line))
    _REPORTED[0] = len(FIGURES)


def summary(reporter: pytest.TerminalReporter) -> None:
    """The session summary's lines: what the box could not check, and its figures, read
    from the tests' reports."""
    missed: list[str] = []
    figures: list[str] = []
    for reports in reporter.stats.values():
        for report in reports:
            if not isinstance(report, pytest.TestReport):
                continue
            if report.skipped and isinstance(report.longrepr, tuple):
                reason = str(report.longrepr[2]).removeprefix("Skipped: ")
                if reason.startswith(SKIPPED) and reason not in missed:
                    missed.append(reason)
            for name, value in report.user_properties:
                if name == FIGURE and value not in figures:
                    figures.append(str(value))
    if missed:
        reporter.section("not checked")
        for line in missed:
            reporter.write_line(f"NOT CHECKED: {line.removeprefix(SKIPPED)}", red=True, bold=True)
    if figures:
        reporter.section(f"the Pi in a box ({arch()})")
        for line in figures:
            reporter.write_line(line)


def building_allowed() -> bool:
    return os.environ.get(BUILD) == "1"


def asked() -> bool:
    return os.environ.get(RUN) == "1" or building_allowed()


def arch() -> str:
    """The architecture the box runs (``BOX_ARCH``; amd64 unless set)."""
    return os.environ.get(ARCH, "") or "amd64"


def missing() -> str | None:
    """Why the box cannot run on this machine, or None."""
    if arch() not in QEMU:
        return f"{ARCH}={arch()}: the box is amd64 (the default) or arm64"
    for command, package in (QEMU[arch()], ("ssh", "openssh-client")):
        if shutil.which(command) is None:
            return f"{command} is missing (apt-get install {package})"
    return None


def cached(script: str, built: str) -> Path | None:
    """The folder hardware/box/``script`` (kernel.sh or image.sh) builds into, if its file
    ``built`` is there already; None if not (nothing is built)."""
    done = subprocess.run(
        ["bash", str(BOX / script), "--path"], capture_output=True, text=True, timeout=600
    )
    if done.returncode != 0:
        not_checked(WHAT, f"hardware/box/{script} --path failed: {done.stderr.strip()}")
    folder = Path(done.stdout.strip())
    return folder if (folder / built).exists() else None


def build(script: str, timeout: float) -> tuple[Path, float]:
    """Runs hardware/box/``script``: its folder and the seconds it took (about none when
    it was cached). A build that fails or overruns skips with its last words."""
    started = time.monotonic()
    try:
        done = subprocess.run(
            ["bash", str(BOX / script)], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        not_checked(WHAT, f"hardware/box/{script} took over {timeout:.0f} s: run it by hand once")
    if done.returncode != 0:
        tail = " / ".join(done.stderr.strip().splitlines()[-3:])
        not_checked(WHAT, f"hardware/box/{script} could not build: {tail}")
    return Path(done.stdout.strip().splitlines()[-1]), time.monotonic() - started


class Box:
    """One booted box kept in ``folder`` (its disk over the cached image, console log)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _box(self, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", str(SCRIPT), args[0], str(self.folder), *args[1:]],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def _seconds(self, done: subprocess.CompletedProcess[str], what: str) -> float:
        assert done.returncode == 0, f"{what} failed: {done.stderr}\n{self.console_tail()}"
        return float(done.stdout.strip().splitlines()[-1])

    def start(self) -> float:
        """Boots the box; the seconds to its ssh login with systemd started."""
        return self._seconds(self._box("start", timeout=900), "box.sh start")

    def reboot(self) -> float:
        return self._seconds(self._box("reboot", timeout=900), "box.sh reboot")

    def stop(self) -> None:
        self._box("stop", timeout=120)

    def copy_project(self) -> None:
        done = self._box("copy", timeout=300)
        assert done.returncode == 0, f"copying the project failed: {done.stderr}"

    def ssh(self, command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Runs ``command`` in the box as pi (a shell command line)."""
        return self._box("ssh", command, timeout=timeout)

    def port(self, name: str) -> int:
        return int(self._box("port", name, timeout=30).stdout)

    def cube_line(self) -> str:
        """This machine's pseudo-terminal wired to the box's serial port for the cube
        (:meth:`cube_device`; QEMU's ``-chardev pty``, a new one at every start of QEMU)."""
        done = self._box("port", "cube", timeout=30)
        assert done.returncode == 0 and done.stdout.strip(), f"no cube line: {done.stderr}"
        return done.stdout.strip()

    def cube_device(self) -> str:
        """The box's serial port for the cube, as its table.toml names it: /dev/ttyS1 on
        amd64, the UART /dev/ttyAMA0 on arm64 (as on the Pi's header)."""
        done = self._box("port", "cube-device", timeout=30)
        assert done.returncode == 0 and done.stdout.startswith("/dev/"), (
            f"the box names no cube device: {done.stderr}"
        )
        return done.stdout.strip()

    def mac(self) -> str:
        """The box's network card's address: its own (box.sh), as every Pi's is."""
        done = self._box("port", "mac", timeout=30)
        assert done.returncode == 0 and done.stdout.count(":") == 5, f"no address: {done.stderr}"
        return done.stdout.strip()

    def console_tail(self, lines: int = 30) -> str:
        log = self.folder / "console.log"
        if not log.exists():
            return "(no console log)"
        text = log.read_text(errors="replace").splitlines()[-lines:]
        return "the box's console, last lines:\n" + "\n".join(text)

    def sudo_write(self, path: str, text: str) -> None:
        """Writes ``text`` to the box's ``path`` as root (a file a person edits with sudo)."""
        done = subprocess.run(
            [
                "bash",
                str(SCRIPT),
                "ssh",
                str(self.folder),
                f"sudo tee {shlex.quote(path)} >/dev/null",
            ],
            input=text,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, f"writing {path} in the box failed: {done.stderr}"

    def follow(self, command: str) -> subprocess.Popen[str]:
        """``command`` run in the box, its output read as it comes (kill it when done)."""
        return subprocess.Popen(
            ["bash", str(SCRIPT), "ssh", str(self.folder), command],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def kill_power(self) -> None:
        """The machine's power cut: QEMU killed at once, its guest given no word."""
        pid = int((self.folder / "qemu.pid").read_text())
        os.kill(pid, 9)
        limit = time.monotonic() + 60
        while time.monotonic() < limit:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        (self.folder / "qemu.pid").unlink(missing_ok=True)

    def wait_for(self, what: str, check: Callable[[], bool], within: float) -> float:
        """Waits until ``check()`` holds (asked again every 2 s); the seconds it took.
        Fails naming ``what`` when it does not hold ``within`` seconds."""
        started = time.monotonic()
        while not check():
            assert time.monotonic() - started < within, (
                f"{what}: not within {within:.0f} s\n{self.console_tail()}"
            )
            time.sleep(2)
        return time.monotonic() - started

    def unit_facts(self, unit: str) -> dict[str, str]:
        """``systemctl show``'s properties of ``unit``, by name."""
        text = self.ssh(f"systemctl show {unit} --no-pager", timeout=60).stdout
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def wait_active(self, unit: str, within: float) -> str:
        """Waits for ``unit`` to be active; its last state seen."""
        limit = time.monotonic() + within
        state = ""
        while time.monotonic() < limit:
            state = self.ssh(f"systemctl is-active {unit}", timeout=60).stdout.strip()
            if state == "active":
                break
            time.sleep(3)
        return state

    def snapshot(self, within: float = 120) -> dict[str, object]:
        """The table's snapshot as its page receives it: the first message of /events."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        url = f"https://127.0.0.1:{self.port('web')}/events"
        limit = time.monotonic() + within
        while True:
            try:
                with urllib.request.urlopen(url, context=context, timeout=60) as stream:
                    for raw in stream:
                        line = raw.decode("utf-8", "replace").rstrip("\r\n")
                        if line.startswith("data:"):
                            found: dict[str, object] = json.loads(line[5:])
                            return found
            except OSError:
                if time.monotonic() > limit:
                    raise
                time.sleep(3)

    def get_page(self, path: str = "/", within: float = 120) -> tuple[int, str]:
        """The table's page through the forwarded port (its own certificate: unverified)."""
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        url = f"https://127.0.0.1:{self.port('web')}{path}"
        limit = time.monotonic() + within
        while True:
            try:
                with urllib.request.urlopen(url, context=context, timeout=30) as answer:
                    return answer.status, answer.read().decode("utf-8", "replace")
            except urllib.error.HTTPError as error:
                return error.code, error.read().decode("utf-8", "replace")
            except OSError:
                if time.monotonic() > limit:
                    raise
                time.sleep(3)


# --- a first-booted box, kept between runs ---------------------------------------------

# What first-boot.sh's result depends on, beside the image and the wheelhouse: a change to
# any of them runs first-boot.sh on a fresh card again. The table's own code is not among
# them: it is copied into the box and set up by first-boot.sh again at every run.
TABLE_CONFIG = "/etc/table-controller/table.toml"  # the table's own file, first-boot.sh's

FIRST_BOOT_INPUTS = (
    "hardware/first-boot.sh",
    "scripts/setup.sh",
    "pyproject.toml",
    "setup.py",
    "constraints.txt",
    "hardware/table-controller-fleet.service",
    "examples/table.toml",
)


def _path_of(script: str) -> str:
    done = subprocess.run(
        ["bash", str(BOX / script), "--path"], capture_output=True, text=True, timeout=600
    )
    return done.stdout.strip() if done.returncode == 0 else ""


def booted_folder(image: Path) -> Path:
    """Where the disk of a box that ran first-boot.sh on ``image`` is kept: named by a
    hash of the image, the wheelhouse and FIRST_BOOT_INPUTS."""
    digest = hashlib.sha256()
    digest.update(image.name.encode())
    digest.update(Path(_path_of("wheels.sh")).name.encode())
    for name in FIRST_BOOT_INPUTS:
        digest.update(name.encode() + b"\0" + (ROOT / name).read_bytes())
    return image.parent / f"booted-{digest.hexdigest()[:16]}"


class FirstBoot:
    """What first-boot.sh did on a fresh card: its seconds inside, when, and whether in this
    run (False: kept from an earlier run of the same install steps)."""

    def __init__(self, seconds: float, when: str, now: bool) -> None:
        self.seconds, self.when, self.now = seconds, when, now
        # At the box's boot from that card: the table's unit's state, its page's status
        # and the box's uptime when the page answered.
        self.at_boot: tuple[str, int, float] | None = None
        # The table's own file as first-boot.sh wrote it (a fleet's), for the tests that
        # need the table as it left it after others ran a club's table on the box.
        self.config = ""

    def words(self) -> str:
        kept = "in this run" if self.now else f"kept from {self.when}, same install steps"
        took = f"{self.seconds:.0f} s" if self.seconds >= 0 else "not timed (made by hand)"
        return f"first-boot.sh on a fresh card inside (TCG): {took} ({kept})"


def _first_boot_afresh(base: Path) -> None:
    """Boots a fresh card, runs first-boot.sh as a person does after Raspberry Pi Imager
    (with the project copied to /home/pi), then the pin library a Pi has from Raspberry Pi
    OS (python3-lgpio; the box takes the same lgpio from its wheelhouse), and powers off.
    The disk is kept in ``base``; a failure keeps nothing."""
    work = base.with_name(base.name + ".partial")
    shutil.rmtree(work, ignore_errors=True)
    machine = Box(work)
    try:
        machine.start()
        assert machine.ssh("systemctl cat table-controller").returncode != 0, "not a fresh card"
        machine.copy_project()
        started = float(machine.ssh("date +%s.%N").stdout)
        done = machine.ssh("sudo table-controller/hardware/first-boot.sh", timeout=3600)
        assert done.returncode == 0, (
            f"first-boot.sh failed in the box:\n{done.stdout}\n{done.stderr}"
        )
        assert "done. The table looks for the director" in done.stdout, done.stdout
        seconds = float(machine.ssh("date +%s.%N").stdout) - started
        done = machine.ssh(
            "sudo /opt/table-controller/.venv/bin/pip install --quiet lgpio"
            " && sudo chown -R euchre:euchre /opt/table-controller/.venv",
            timeout=600,
        )
        assert done.returncode == 0, f"installing lgpio in the box failed: {done.stderr}"
    finally:
        machine.stop()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    (work / "first-boot.json").write_text(json.dumps({"seconds": seconds, "when": when}))
    for name in ("ports", "cube", "boot_id", "qemu.log"):
        (work / name).unlink(missing_ok=True)
    work.rename(base)


def first_booted(folder: Path, image: Path) -> tuple[Box, FirstBoot]:
    """A box started in ``folder`` on a disk laid over one that ran first-boot.sh (kept
    between runs in :func:`booted_folder`, made here when missing), with this project
    copied in and first-boot.sh run again as after an update of the card's copy: so the
    table's unit runs this checkout's code. The box's table is a fleet's, as first-boot.sh
    leaves it."""
    base = booted_folder(image)
    now = False
    with open(base.with_name(base.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one first-boot per machine, not one per worker
        if not (base / "disk.qcow2").exists():
            _first_boot_afresh(base)
            now = True
    facts = json.loads((base / "first-boot.json").read_text())
    first = FirstBoot(float(facts["seconds"]), str(facts["when"]), now)
    folder.mkdir(parents=True, exist_ok=True)
    made = subprocess.run(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2",
         "-b", str(base / "disk.qcow2"), str(folder / "disk.qcow2")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert made.returncode == 0, f"qemu-img could not lay a disk over {base}: {made.stderr}"
    machine = Box(folder)
    FIGURES.append(
        f"boot of the first-booted box to the ssh login under TCG: {machine.start():.1f} s"
    )
    # A boot after first-boot.sh: the table's unit starts by itself, and its page answers.
    state = machine.wait_active("table-controller", within=900)
    code, _page = machine.get_page("/", within=900) if state == "active" else (0, "")
    first.at_boot = (state, code, float(machine.ssh("cut -d' ' -f1 /proc/uptime").stdout))
    if not now:
        machine.copy_project()
        done = machine.ssh(
            "sudo rm -rf /opt/table-controller/releases/*"
            " && sudo table-controller/hardware/first-boot.sh"
            " && sudo systemctl restart table-controller",
            timeout=1800,
        )
        assert done.returncode == 0, (
            f"first-boot.sh again with this checkout failed:\n{done.stdout}\n{done.stderr}"
        )
    first.config = machine.ssh(f"cat {TABLE_CONFIG}").stdout
    assert "[fleet]" in first.config, f"first-boot.sh left no fleet's table:\n{first.config}"
    return machine, first
