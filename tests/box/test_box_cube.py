"""The trump cube on a serial port of the machine: the box's /dev/ttyS1 (/dev/ttyAMA0 on
arm64), wired by QEMU to a pseudo-terminal of this machine where the cube's firmware
runs."""

from __future__ import annotations

import time

import pytest
from box_machine import FIGURES, Box
from box_table import club_table, cube_fault, press, run_club_table, serving

# Minutes with cached builds; a first run builds the kernel and the image too.
pytestmark = [pytest.mark.slow(budget=1800), pytest.mark.timeout(5400)]


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
        run_club_table(box, club_table(cube=box.cube_device()))

        def shown() -> CubeState | None:
            wire = emulator.shown_state()
            return None if wire is None else CubeState.from_wire(wire)

        def showing(alert: Alert) -> bool:
            state = shown()
            return state is not None and state.alert == alert and state.trump is None

        box.wait_for("the state on the cube over its port", lambda: showing(Alert.NONE), 300)
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
