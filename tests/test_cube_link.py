"""The host's TrumpCube and the emulated cube over a real pseudo-terminal: the handshake,
states, events, unplugging and replugging, and the errors a person would see."""

from __future__ import annotations

import os
import threading
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest
from cube_helpers import CONFIG, WAIT, cube_and_emulator, next_event, numbered

from table_controller.cards import Suit
from table_controller.devices import frame
from table_controller.devices.cube import TrumpCube
from table_controller.devices.cube_backend import EmulatorBackend, SerialBackend
from table_controller.devices.cube_types import (
    Alert,
    ButtonPressed,
    CubeConfig,
    CubeNoAnswer,
    CubeNotFound,
    CubeState,
    CubeTimeout,
    CubeVersionError,
    FaceTurnedUp,
    LinkChanged,
)
from table_controller.devices.emulator import EmulatedBoard
from table_controller.seats import Seat

HEARTS_N = CubeState(trump=Suit.H, maker=Seat.N, score_ns=3, score_ew=5)


def shows_hearts(board: EmulatedBoard) -> bool:
    return board.text().splitlines()[2] == ".RRRRRR."


def test_connect_show_and_see_it(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        info = cube.info
        assert info is not None and info.firmware.startswith("cube ")
        assert (info.width, info.height, info.protocol) == (8, 8, frame.PROTOCOL_VERSION)
        assert info.has_accelerometer
        cube.show(HEARTS_N)
        cube.wait_shown(WAIT)
        assert emulator.shown_state() == HEARTS_N.to_wire()
        assert emulator.board.wait_for(shows_hearts, WAIT)
        assert cube.round_trip is not None
        assert CONFIG.min_rto <= cube.retransmit_timeout <= CONFIG.max_rto
        png = tmp_path / "cube.png"
        emulator.board.save_png(png)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_button_and_the_faces(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        pressed = threading.Event()
        cube.when_pressed = lambda event: pressed.set()
        emulator.board.press()
        assert next_event(cube, ButtonPressed).held is False
        assert pressed.wait(WAIT)
        emulator.board.release()
        emulator.board.turn_face_up(2)
        while (event := next_event(cube, FaceTurnedUp)).face != 2:
            pass
        assert event.suit is Suit.C
        assert cube.stats.events >= 2


def test_a_burst_of_states_ends_on_the_last(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        states = [numbered(i) for i in range(60)]
        for state in states:
            cube.show(state)
        cube.wait_shown(WAIT)
        assert emulator.shown_state() == states[-1].to_wire()
        applied = [a.state for a in emulator.applied]
        wire = [s.to_wire() for s in states]
        assert applied == sorted(applied, key=wire.index)  # in order, a subset, no repeats
        assert len(set(map(repr, applied))) == len(applied)
        assert len(applied) < len(states)  # superseded states were never sent


def test_unplug_and_replug(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        cube.show(HEARTS_N)
        cube.wait_shown(WAIT)
        first_pty = emulator.pty
        emulator.unplug()
        assert not (tmp_path / "cube-tty").exists()
        lost = next_event(cube, LinkChanged)
        assert not lost.up and "port" in lost.reason
        later = CubeState(trump=Suit.S, maker=Seat.E, score_ns=4, score_ew=5)
        cube.show(later)  # while unplugged: it waits for the cube
        emulator.plug_in()
        assert next_event(cube, LinkChanged).up
        cube.wait_shown(WAIT)
        assert emulator.applied[-1].boot == 2  # the replugged cube, freshly booted
        assert emulator.shown_state() == later.to_wire()
        assert emulator.pty != first_pty or emulator.boots == 2
        assert cube.stats.link_losses == 1 and cube.stats.connects == 2


def test_the_state_is_sent_again_after_a_reconnect(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        cube.show(HEARTS_N)
        cube.wait_shown(WAIT)
        emulator.unplug()
        next_event(cube, LinkChanged)
        emulator.plug_in()
        next_event(cube, LinkChanged)
        cube.wait_shown(WAIT)
        assert [a.boot for a in emulator.applied] == [1, 2]
        assert emulator.shown_state() == HEARTS_N.to_wire()


def test_a_cube_that_restarts_in_place_gets_the_state_back(tmp_path: Path) -> None:
    with cube_and_emulator(tmp_path) as (cube, emulator):
        cube.show(HEARTS_N)
        cube.wait_shown(WAIT)
        emulator.reset()  # same USB device, fresh firmware: its heartbeats say session 0
        event = next_event(cube, LinkChanged)
        assert not event.up and "restarted" in event.reason
        assert next_event(cube, LinkChanged).up
        cube.wait_shown(WAIT)
        assert emulator.applied[-1].boot == 2
        assert emulator.shown_state() == HEARTS_N.to_wire()


def test_a_cut_line_shows_link_lost_on_both_sides(tmp_path: Path) -> None:
    config = CubeConfig(
        port="unused", link_timeout=0.5, hello_interval=0.1, reconnect_interval=0.05
    )
    with cube_and_emulator(tmp_path, config) as (cube, emulator):
        cube.show(HEARTS_N)
        cube.wait_shown(WAIT)
        emulator.cut()
        assert not next_event(cube, LinkChanged).up

        def red_x(board: EmulatedBoard) -> bool:
            return board.text().splitlines()[1] == ".R....R."

        assert emulator.board.wait_for(red_x, WAIT)
        emulator.restore()
        assert next_event(cube, LinkChanged).up
        cube.wait_shown(WAIT)
        assert emulator.board.wait_for(shows_hearts, WAIT)
        assert len({a.session for a in emulator.applied}) == 2  # sent again, a new session


def test_the_emulator_backend_from_configuration() -> None:
    cube = TrumpCube.from_config(CubeConfig(port="emulator"))
    assert isinstance(cube.backend, EmulatorBackend)
    with cube:
        cube.wait_connected(WAIT)
        cube.show(CubeState(alert=Alert.RENEGE))
        cube.wait_shown(WAIT)
        assert cube.backend.emulator.shown_state() == CubeState(alert=Alert.RENEGE).to_wire()


# --- what goes wrong, and what the errors say -----------------------------------------


@pytest.fixture
def fake_cube() -> Iterator[tuple[str, list[bytes]]]:
    """A pty whose other end answers hellos as a firmware of protocol 99 would."""
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    stop = threading.Event()

    def answer() -> None:
        decoder = frame.Decoder()
        while not stop.is_set():
            try:
                data = os.read(master, 1024)
            except OSError:
                return
            for f in decoder.feed(data):
                if f.kind == frame.KIND_HELLO:
                    session = f.payload[2:4]
                    reply = bytes([frame.KIND_HELLO_REPLY, 99]) + session + b"\x08\x08\x01cube 9"
                    os.write(master, frame.encode(0, reply))

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    yield path, []
    stop.set()
    os.close(slave)
    os.close(master)


def test_a_firmware_of_another_version_is_refused(fake_cube: tuple[str, list[bytes]]) -> None:
    path, _ = fake_cube
    with TrumpCube(SerialBackend(path), CONFIG) as cube:
        with pytest.raises(CubeVersionError) as caught:
            cube.wait_connected(WAIT)
        message = str(caught.value)
        assert "protocol 99" in message and "table-controller cube flash" in message
        assert "newer" in message
        with pytest.raises(CubeVersionError):
            cube.wait_shown(1.0)


def test_a_loopback_is_not_a_cube() -> None:
    with (
        TrumpCube(SerialBackend("loop://"), CONFIG) as cube,
        pytest.raises(CubeNoAnswer, match="loopback"),
    ):
        cube.wait_connected(WAIT)


def until_the_link_says(cube: TrumpCube) -> None:
    """``wait_connected`` until the link says what stands in the way: a ``CubeTimeout``
    says only that its thread has not tried the port yet (a loaded machine)."""
    end = time.monotonic() + WAIT
    while True:
        try:
            cube.wait_connected(0.5)
            return
        except CubeTimeout:
            if time.monotonic() > end:
                raise


def test_a_missing_port_says_to_plug_the_cube_in(tmp_path: Path) -> None:
    missing = str(tmp_path / "ttyACM9")
    with (
        TrumpCube(SerialBackend(missing), CONFIG) as cube,
        pytest.raises(CubeNotFound, match="does not exist: is the cube plugged in"),
    ):
        until_the_link_says(cube)


def test_a_silent_port_says_what_to_try() -> None:
    master, slave = os.openpty()
    try:
        tty.setraw(slave)
        config = CubeConfig(port="unused", handshake_timeout=0.3, reconnect_interval=0.05)
        with TrumpCube(SerialBackend(os.ttyname(slave)), config) as cube:
            with pytest.raises(CubeNoAnswer, match="answered like a trump cube") as caught:
                until_the_link_says(cube)
            assert "cube flash" in str(caught.value)
    finally:
        os.close(slave)
        os.close(master)
