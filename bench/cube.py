"""The trump cube's link: round trips, commands per second, faults and recovery.

Run it as ``.venv/bin/python bench/cube.py`` (``--quick`` for a short run). It prints:

* the floor: a 13-byte frame written to a pty and echoed back by another process
  (pyserial on this side), the cost of the pty and two process wake-ups alone;
* a command's round trip: ``TrumpCube.show(state)`` until ``wait_shown`` returns, the
  firmware logic running in another process behind a pty (``table-controller cube
  emulate``), one command at a time: median, p99, and commands per second;
* the same with the emulator in this process (one interpreter, one GIL);
* with 10% of the bytes damaged both ways (corrupted, dropped, or half of each): commands
  lost and applied twice (both must be 0, counted from the firmware's log of what it
  applied, by session and sequence number), states sent again after a reconnect, the
  time per command, retransmissions, and the link losses the noise caused;
* the time to recover: after the line is cut for longer than the link timeout (both sides
  report the link lost, then reconnect and send the state again), after a short cut
  (retransmission alone), and after the cable is unplugged and plugged back in.

The link uses the default ``CubeConfig`` (2 s link timeout, RTO 25..250 ms) throughout.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import serial
from sysinfo import cpu_model

from table_controller.devices import frame
from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import SerialBackend
from table_controller.devices.cube_types import CubeConfig, CubeState, LinkChanged
from table_controller.devices.emulator import CubeEmulator, EmulatedBoard, LineFaults, delivery

WAIT = 60.0
ECHO = """
import os, sys, tty
master, slave = os.openpty()
tty.setraw(slave)
print(os.ttyname(slave), flush=True)
while True:
    os.write(master, os.read(master, 4096))
"""


def numbered(i: int) -> CubeState:
    return CubeState(score_ns=i % 100, score_ew=(i // 100) % 100)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def summary(values: list[float]) -> str:
    return (
        f"median {ms(statistics.median(values))}, p99 {ms(percentile(values, 99))}, "
        f"max {ms(max(values))}"
    )


# --- round trips ---------------------------------------------------------------------


def pty_floor(count: int) -> list[float]:
    child = subprocess.Popen([sys.executable, "-c", ECHO], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    path = child.stdout.readline().strip()
    port = serial.Serial(path, timeout=5)
    message = frame.encode(1, frame.State().to_payload())
    times = []
    try:
        for _ in range(count):
            start = time.perf_counter()
            port.write(message)
            got = port.read(len(message))
            times.append(time.perf_counter() - start)
            assert got == message
    finally:
        port.close()
        child.kill()
        child.wait()
    return times


def commands(cube: TrumpCube, count: int, start: int = 0) -> list[float]:
    times = []
    for i in range(start, start + count):
        t = time.perf_counter()
        cube.show(numbered(i))
        cube.wait_shown(WAIT)
        times.append(time.perf_counter() - t)
    return times


def emulator_process(link: Path) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "table_controller.cli", "cube", "emulate", "--no-input"]
    proc = subprocess.Popen(
        [*command, "--link", str(link)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    first = proc.stdout.readline()
    if "emulator on" not in first:
        raise SystemExit(
            f"the emulator did not start: {first}{proc.stderr.read() if proc.stderr else ''}"
        )
    threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its pipe empty
    return proc


def round_trips(count: int, tmp: Path) -> None:
    floor = pty_floor(count)
    print(f"pty floor (13-byte frame echoed by another process, pyserial): {summary(floor)}")
    link = tmp / "cube-tty"
    proc = emulator_process(link)
    try:
        with TrumpCube(SerialBackend(str(link)), CubeConfig()) as cube:
            cube.wait_connected(WAIT)
            commands(cube, 50)  # warm up
            started = time.perf_counter()
            times = commands(cube, count, 50)
            took = time.perf_counter() - started
            print(
                f"command round trip, emulator in another process: {summary(times)}; "
                f"{count / took:,.0f} commands/s; link's smoothed RTT {ms(cube.round_trip or 0)}, "
                f"RTO {ms(cube.retransmit_timeout)}, {cube.stats.retransmits} retransmitted"
            )
    finally:
        proc.terminate()
        proc.wait()
    with (
        CubeEmulator(link=tmp / "cube-in") as emulator,
        TrumpCube(SerialBackend(emulator.device), CubeConfig()) as cube,
    ):
        cube.wait_connected(WAIT)
        commands(cube, 50)
        started = time.perf_counter()
        times = commands(cube, count, 50)
        took = time.perf_counter() - started
        print(
            f"command round trip, emulator in this process:    {summary(times)}; "
            f"{count / took:,.0f} commands/s"
        )


# --- faults --------------------------------------------------------------------------


def noisy(count: int, tmp: Path) -> None:
    scenarios = [("10% corrupted", 0.0, 0.10), ("10% dropped", 0.10, 0.0), ("5% + 5%", 0.05, 0.05)]
    print(f"{count} commands, one at a time, bytes damaged both ways:")
    for name, drop, corrupt in scenarios:
        to_cube, to_host = LineFaults(seed=1), LineFaults(seed=2)
        with (
            CubeEmulator(link=tmp / "cube-noisy", to_cube=to_cube, to_host=to_host) as em,
            TrumpCube(SerialBackend(em.device), CubeConfig()) as cube,
        ):
            cube.wait_connected(WAIT)
            for line in (to_cube, to_host):
                line.drop, line.corrupt = drop, corrupt
            sent = [numbered(i) for i in range(count)]
            started = time.perf_counter()
            times = []
            for state in sent:
                t = time.perf_counter()
                cube.show(state)
                cube.wait_shown(WAIT)
                times.append(time.perf_counter() - t)
            took = time.perf_counter() - started
            d = delivery(em.applied, sent)
            lost, twice, resent, wrong = d.lost, d.twice, d.resent, d.wrong
            s = cube.stats
            firmware = em.cube
            dups = firmware.duplicates if firmware is not None else 0
            print(
                f"  {name:<14} lost {lost}, applied twice {twice}, wrong {wrong}; "
                f"per command {summary(times)}; {count / took:.1f} commands/s; "
                f"{s.retransmits} timeouts + {s.nak_resends} nak resends, "
                f"{dups} duplicates the cube acked again, {s.link_losses} link losses "
                f"({resent} states sent again after them); bytes damaged "
                f"{to_cube.dropped + to_cube.corrupted} of {to_cube.bytes_in} to the cube, "
                f"{to_host.dropped + to_host.corrupted} of {to_host.bytes_in} back"
            )


# --- recovery ------------------------------------------------------------------------


def next_link_event(cube: TrumpCube, up: bool) -> LinkChanged:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        event = cube.poll(0.5)
        if isinstance(event, LinkChanged) and event.up == up:
            return event
    raise SystemExit(f"no link {'up' if up else 'down'} event")


def red_x(board: EmulatedBoard) -> bool:
    return board.text().splitlines()[1] == ".R....R."


def recovery(repeats: int, tmp: Path) -> None:
    config = CubeConfig()
    with (
        CubeEmulator(link=tmp / "cube-cut") as em,
        TrumpCube(SerialBackend(em.device), config) as cube,
    ):
        cube.wait_connected(WAIT)
        i = 0
        long_cut, short_cut, replug = [], [], []
        host_noticed, cube_noticed = [], []
        for _ in range(repeats):
            i += 1
            cube.show(numbered(i))
            cube.wait_shown(WAIT)
            em.to_cube.cut_after(5)  # mid-frame: the next state is cut short
            em.to_host.cut_after(3)
            i += 1
            cut = time.monotonic()
            cube.show(numbered(i))
            if not em.board.wait_for(red_x, WAIT):
                raise SystemExit("the cube never showed the link lost")
            cube_noticed.append(time.monotonic() - cut)
            lost = next_link_event(cube, up=False)  # after the 2 s link timeout
            host_noticed.append(lost.at - cut)  # when the host noticed, not when we looked
            time.sleep(0.2)
            t = time.perf_counter()
            em.restore()
            cube.wait_shown(WAIT)
            long_cut.append(time.perf_counter() - t)
        for _ in range(repeats):
            i += 1
            em.to_cube.cut_after(5)
            cube.show(numbered(i))
            time.sleep(0.5)  # under the link timeout: only retransmission helps
            t = time.perf_counter()
            em.restore()
            cube.wait_shown(WAIT)
            short_cut.append(time.perf_counter() - t)
        for _ in range(repeats):
            em.unplug()
            next_link_event(cube, up=False)
            i += 1
            cube.show(numbered(i))
            t = time.perf_counter()
            em.plug_in()
            cube.wait_shown(WAIT)
            replug.append(time.perf_counter() - t)
        sent = [numbered(k) for k in range(1, i + 1)]
        d = delivery(em.applied, sent)
        lost, twice, resent, wrong = d.lost, d.twice, d.resent, d.wrong
    print(f"recovery ({repeats} times each; 'recover' is from the line coming back to the state")
    print("acknowledged; the cut is noticed after the link timeout, by design):")
    print(f"  the cut noticed by the cube (its X blinks: +0..0.5 s): {summary(cube_noticed)}")
    print(f"  the cut noticed by the host (LinkChanged down):        {summary(host_noticed)}")
    print(f"  cut mid-frame for longer than the 2 s link timeout: {summary(long_cut)}")
    print(f"  cut mid-frame for 0.5 s (retransmission alone):      {summary(short_cut)}")
    print(f"  unplugged, plugged back in (a new pty, a new boot):  {summary(replug)}")
    print(f"  over all of it: lost {lost}, applied twice {twice}, wrong {wrong}, re-sent {resent}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a short run (for a smoke test)")
    ap.add_argument("--part", choices=("round-trip", "noise", "recovery"), help="only this part")
    args = ap.parse_args()
    count, noisy_count, repeats = (100, 20, 2) if args.quick else (2000, 200, 10)
    print(f"Python {platform.python_version()} ({platform.python_implementation()})")
    print(f"CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs)")
    print(f"pyserial {serial.__version__}, cube protocol {frame.PROTOCOL_VERSION}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.part in (None, "round-trip"):
            round_trips(count, Path(tmp))
        if args.part in (None, "noise"):
            noisy(noisy_count, Path(tmp))
        if args.part in (None, "recovery"):
            recovery(repeats, Path(tmp))


if __name__ == "__main__":
    main()
