"""Shared by the cube's link and fault tests: a host and an emulated cube on a real pty."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import SerialBackend
from table_controller.devices.cube_types import CubeConfig, CubeEvent, CubeState
from table_controller.devices.emulator import Applied, CubeEmulator, LineFaults, delivery

# Only against a hang, on a loaded 2-core CI machine: the tests wait on conditions, so
# no machine waits this long unless something is wrong.
WAIT = 60.0
CONFIG = CubeConfig(
    port="unused",
    link_timeout=1.0,
    handshake_timeout=3.0,
    hello_interval=0.1,
    reconnect_interval=0.05,
)

E = TypeVar("E")


@contextmanager
def cube_and_emulator(
    tmp_path: Path,
    config: CubeConfig = CONFIG,
    to_cube: LineFaults | None = None,
    to_host: LineFaults | None = None,
) -> Iterator[tuple[TrumpCube, CubeEmulator]]:
    """The emulator behind a pty with a stable link (as /dev/serial/by-id/...), and a
    TrumpCube on that path through the real serial backend, connected."""
    emulator = CubeEmulator(link=tmp_path / "cube-tty", to_cube=to_cube, to_host=to_host)
    emulator.start()
    cube = TrumpCube(SerialBackend(emulator.device), config)
    cube.start()
    try:
        cube.wait_connected(WAIT)
        while cube.poll(0.05) is not None:  # "connected", and how the cube lies
            pass
        yield cube, emulator
    finally:
        cube.close()
        emulator.close()


def next_event(cube: TrumpCube, kind: type[E], timeout: float = WAIT) -> E:
    """The next event of ``kind``, skipping others (a cube lying face up reports it)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        event: CubeEvent | None = cube.poll(left)
        if isinstance(event, kind):
            return event
    raise AssertionError(f"no {kind.__name__} within {timeout} s")


def numbered(i: int) -> CubeState:
    """A state that names its command: the scores count the commands."""
    return CubeState(score_ns=i % 100, score_ew=i // 100)


def check_log(applied: list[Applied], sent: list[CubeState]) -> tuple[int, int, int]:
    """(lost, applied twice, re-sent after a reconnect) for states sent one at a time
    (see ``emulator.delivery``); the states must have been applied in order."""
    d = delivery(applied, sent)
    assert d.in_order, "applied out of order"
    return d.lost, d.twice, d.resent
