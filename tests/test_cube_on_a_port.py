"""The cube's firmware run on a serial port someone else made (``CubeEmulator(port=...)``,
``table-controller cube emulate --port``): the end of a line such as the pseudo-terminal
QEMU wires to a virtual machine's serial port, which the Pi in a box's cube uses
(tests/box/test_box_cube.py). Here the line is two real ptys joined byte for byte, as QEMU joins
its pty to the machine's ttyS1; the host opens its own end through the real serial
backend."""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import sys
import threading
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
from cube_helpers import CONFIG, WAIT, next_event

from table_controller.cards import Suit
from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import SerialBackend
from table_controller.devices.cube_types import CubeState, LinkChanged
from table_controller.devices.emulator import CubeEmulator
from table_controller.seats import Seat


@contextlib.contextmanager
def serial_line() -> Iterator[tuple[str, str]]:
    """Two pty ends joined by a thread copying bytes both ways (a null-modem cable, or
    QEMU between its pty and the guest's UART): (the cube's end, the host's end)."""
    ends = [os.openpty() for _ in range(2)]
    for _master, slave in ends:
        tty.setraw(slave)
    names = (os.ttyname(ends[0][1]), os.ttyname(ends[1][1]))
    masters = [master for master, _slave in ends]
    stop_r, stop_w = os.pipe()

    def copy() -> None:
        while True:
            ready, _, _ = select.select([*masters, stop_r], [], [])
            if stop_r in ready:
                return
            for i, master in enumerate(masters):
                if master in ready:
                    try:
                        data = os.read(master, 4096)
                    except OSError:  # no one holds that end open now: bytes go nowhere
                        continue
                    with contextlib.suppress(OSError):
                        os.write(masters[1 - i], data)

    thread = threading.Thread(target=copy, name="serial-line", daemon=True)
    thread.start()
    try:
        yield names
    finally:
        os.write(stop_w, b"x")
        thread.join(timeout=WAIT)
        for fd in (*masters, *(slave for _m, slave in ends), stop_r, stop_w):
            with contextlib.suppress(OSError):
                os.close(fd)


STATE = CubeState(trump=Suit.H, maker=Seat.E, score_ns=3, score_ew=5)


def test_the_firmware_on_a_given_port_is_cut_and_restored_and_shows_the_state_again() -> None:
    with serial_line() as (cube_end, host_end):
        emulator = CubeEmulator(port=cube_end)
        assert emulator.start() == cube_end
        with TrumpCube(SerialBackend(host_end), CONFIG) as cube:
            cube.wait_connected(WAIT)
            while cube.poll(0.05) is not None:  # "connected", and how the cube lies
                pass
            cube.show(STATE)
            cube.wait_shown(WAIT)
            assert emulator.shown_state() == STATE.to_wire()

            emulator.unplug()  # the cube's end closed: the line goes quiet
            assert not next_event(cube, LinkChanged).up
            assert not cube.is_connected

            emulator.plug_in()  # a fresh firmware, knowing nothing, on the same port
            assert next_event(cube, LinkChanged).up
            cube.wait_shown(WAIT)
            assert emulator.shown_state() == STATE.to_wire()
            assert emulator.boots == 2
        emulator.close()


def test_a_port_that_is_not_there_is_named_in_the_error(tmp_path: Path) -> None:
    missing = tmp_path / "ttyS9"
    with pytest.raises(OSError, match=f"cannot open the serial port {missing} for the cube"):
        CubeEmulator(port=missing).start()
    with pytest.raises(ValueError, match="give one or the other"):
        CubeEmulator(port=missing, link=tmp_path / "cube-tty")


def test_emulate_on_a_port_from_the_command_line(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "table_controller.cli", "cube", "emulate", "--no-input"]
    missing = tmp_path / "ttyS9"
    done = subprocess.run(
        [*run, "--port", str(missing), "--seconds", "1"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert f"cannot open the serial port {missing}" in done.stderr
    assert "check the path" in done.stderr

    with serial_line() as (cube_end, host_end):
        proc = subprocess.Popen(
            [*run, "--port", cube_end], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None
            assert f"trump cube emulator on {cube_end}" in proc.stdout.readline()
            with TrumpCube(SerialBackend(host_end), CONFIG) as cube:
                cube.wait_connected(WAIT)
                cube.show(STATE)
                cube.wait_shown(WAIT)
        finally:
            proc.terminate()
            assert proc.wait(timeout=WAIT) == 0
