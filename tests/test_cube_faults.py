"""Faults on the line between the host and the emulated cube: bytes corrupted, dropped
and doubled, the line cut in the middle of a frame. Nothing may be lost, nothing applied
twice, and the cube must end up showing the right state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import waiting
from cube_helpers import WAIT, check_log, cube_and_emulator, next_event, numbered

from table_controller.devices.cube_types import ButtonPressed, CubeConfig, LinkChanged
from table_controller.devices.emulator import LineFaults

NOISY = CubeConfig(port="unused", link_timeout=2.0, hello_interval=0.1, reconnect_interval=0.05)


def wait_until(check: Callable[[], bool], timeout: float = WAIT) -> None:
    waiting.wait_until("the cube's line to get there", check, timeout)


def make_noisy(*lines: LineFaults, drop: float, corrupt: float, duplicate: float) -> None:
    for line in lines:
        line.drop, line.corrupt, line.duplicate = drop, corrupt, duplicate


@pytest.mark.parametrize(
    ("drop", "corrupt", "duplicate"),
    [(0.03, 0.03, 0.0), (0.0, 0.0, 0.06), (0.02, 0.02, 0.02)],
    ids=["dropped+corrupted", "duplicated", "all three"],
)
def test_a_noisy_line_loses_nothing_and_applies_nothing_twice(
    tmp_path: Path, drop: float, corrupt: float, duplicate: float
) -> None:
    """6% of the bytes damaged each way (bench/cube.py measures 10%, which is slower)."""
    to_cube, to_host = LineFaults(seed=11), LineFaults(seed=12)
    with cube_and_emulator(tmp_path, NOISY, to_cube, to_host) as (cube, emulator):
        make_noisy(to_cube, to_host, drop=drop, corrupt=corrupt, duplicate=duplicate)
        sent = [numbered(i) for i in range(20)]
        for state in sent:
            cube.show(state)
            cube.wait_shown(WAIT)
        lost, twice, _resent = check_log(emulator.applied, sent)
        assert (lost, twice) == (0, 0)
        assert emulator.shown_state() == sent[-1].to_wire()
        assert to_cube.bytes_in > 0 and to_host.bytes_in > 0
        damaged = to_cube.dropped + to_cube.corrupted + to_cube.duplicated
        assert damaged > 0
        if drop or corrupt:
            assert cube.stats.retransmits + cube.stats.nak_resends > 0


def test_the_line_cut_mid_frame_toward_the_cube(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        cube.show(numbered(1))
        cube.wait_shown(WAIT)
        emulator.to_cube.cut_after(6)  # the next frame loses everything after byte 6
        cube.show(numbered(2))
        wait_until(lambda: emulator.to_cube.cut and cube.stats.retransmits >= 1)
        emulator.restore()
        cube.wait_shown(WAIT)
        lost, twice, _ = check_log(emulator.applied, [numbered(1), numbered(2)])
        assert (lost, twice) == (0, 0)
        assert emulator.shown_state() == numbered(2).to_wire()


def test_the_ack_cut_mid_frame_is_resent_not_applied_again(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        cube.show(numbered(1))
        cube.wait_shown(WAIT)
        before = len(emulator.applied)
        emulator.to_host.cut_after(3)  # the cube's next frame (the ack) is cut short
        cube.show(numbered(2))
        wait_until(lambda: len(emulator.applied) > before and cube.stats.retransmits >= 1)
        emulator.restore()
        cube.wait_shown(WAIT)
        assert [a.state for a in emulator.applied] == [numbered(1).to_wire(), numbered(2).to_wire()]
        firmware = emulator.cube
        assert firmware is not None and firmware.duplicates >= 1  # acked again, not applied


def test_a_long_cut_mid_frame_recovers_with_the_state(tmp_path: Path) -> None:
    config = CubeConfig(port="unused", link_timeout=0.5, hello_interval=0.1)
    with cube_and_emulator(tmp_path, config) as (cube, emulator):
        cube.show(numbered(1))
        cube.wait_shown(WAIT)
        emulator.to_cube.cut_after(5)
        emulator.to_host.cut_after(4)
        cube.show(numbered(2))
        assert not next_event(cube, LinkChanged).up
        cube.show(numbered(3))  # changed while the line is down
        emulator.restore()
        assert next_event(cube, LinkChanged).up
        cube.wait_shown(WAIT)
        lost, twice, _ = check_log(emulator.applied, [numbered(1), numbered(3)])
        assert (lost, twice) == (0, 0)
        assert emulator.shown_state() == numbered(3).to_wire()


def test_button_presses_over_a_noisy_line_arrive_once_each(tmp_path: Path) -> None:
    to_cube, to_host = LineFaults(seed=21), LineFaults(seed=22)
    with cube_and_emulator(tmp_path, NOISY, to_cube, to_host) as (cube, emulator):
        make_noisy(to_cube, to_host, drop=0.03, corrupt=0.03, duplicate=0.0)
        board = emulator.board
        for _ in range(4):
            board.press()
            wait_until(lambda: emulator.cube is not None and emulator.cube.button_down)
            board.release()
            wait_until(lambda: emulator.cube is not None and not emulator.cube.button_down)
        presses = [next_event(cube, ButtonPressed) for _ in range(4)]
        assert all(not p.held for p in presses)
        firmware = emulator.cube
        assert firmware is not None
        wait_until(lambda: firmware.outstanding is None and not firmware.events)
        extra = [cube.poll(0) for _ in range(10)]
        assert not [e for e in extra if isinstance(e, ButtonPressed)]  # none twice
