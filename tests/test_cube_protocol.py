"""The host's protocol (CubeLink) against the firmware's (Cube), wired directly with a
virtual clock: no threads, no pty, no real time. A noisy wire and many seeds run in a
moment and the outcome never depends on the machine's load."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.devices import firmware, frame
from table_controller.devices.cube_link import CubeLink, Link
from table_controller.devices.cube_types import (
    ButtonPressed,
    CubeConfig,
    CubeNoAnswer,
    CubeState,
    CubeVersionError,
    LinkChanged,
)
from table_controller.devices.emulator import EmulatedBoard, LineFaults

cube_module = firmware.load_cube()
STEP_MS = 5


class Bench:
    """A host link and a firmware cube on one wire; ``run`` turns the virtual clock."""

    def __init__(self, seed: int = 0, damage: float = 0.0) -> None:
        self.now_ms = 0
        self.board = EmulatedBoard(accelerometer=False)
        self.cube = cube_module.Cube(self.board, 0, ())
        self.applied: list[tuple[frame.State, int, int]] = []
        self.cube.on_state = lambda state, seq: self.applied.append((state, seq, self.cube.session))
        self.link = CubeLink(CubeConfig(port="virtual"), "the virtual wire")
        self.to_cube = LineFaults(damage / 2, damage / 2, seed=seed)
        self.to_host = LineFaults(damage / 2, damage / 2, seed=seed + 1)
        self.host_in = b""
        self.port_open = False
        self.events: list[object] = []

    def run(self, ms: int) -> None:
        for _ in range(ms // STEP_MS):
            self.now_ms += STEP_MS
            now = self.now_ms / 1000
            link = self.link
            if not self.port_open and now >= link.next_open:
                link.opened(now)
                self.port_open = True
            if self.port_open:
                link.receive(self.host_in, now)
                link.tick(now)
            self.host_in = b""
            out = link.take_output()
            if link.drop_port:
                self.port_open = False
            self.events += link.take_events()
            self.cube.receive(self.to_cube.apply(out), self.now_ms)
            self.cube.tick(self.now_ms)
            self.host_in = self.to_host.apply(self.cube.take_output())

    def until(self, check: Callable[[], bool], limit_ms: int = 60_000) -> None:
        waited = 0
        while not check():
            assert waited < limit_ms, f"not within {limit_ms} ms of virtual time"
            self.run(STEP_MS * 4)
            waited += STEP_MS * 4


def numbered(i: int) -> CubeState:
    return CubeState(score_ns=i % 100, score_ew=i // 100)


def test_connect_and_show() -> None:
    bench = Bench()
    bench.until(lambda: bench.link.state is Link.UP)
    assert bench.link.info is not None and bench.link.info.width == 8
    bench.link.wanted = numbered(7)
    bench.until(lambda: bench.link.shown == numbered(7))
    assert [a[0] for a in bench.applied] == [numbered(7).to_wire()]
    assert isinstance(bench.events[0], LinkChanged) and bench.events[0].up


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.02, 0.06, 0.10]))
def test_a_noisy_wire_loses_nothing_and_applies_nothing_twice(seed: int, damage: float) -> None:
    bench = Bench(seed, damage)
    bench.until(lambda: bench.link.state is Link.UP)
    sent = [numbered(i) for i in range(12)]
    for state in sent:
        bench.link.wanted = state
        bench.until(lambda s=state: bench.link.shown == s and bench.link.state is Link.UP)
    keys = [(session, seq) for _, seq, session in bench.applied]
    assert len(keys) == len(set(keys))  # no message applied twice
    distinct: list[frame.State] = []
    for state, _, _ in bench.applied:
        if not distinct or distinct[-1] != state:
            distinct.append(state)
    assert distinct == [s.to_wire() for s in sent]  # none lost, in order
    assert bench.cube.state == sent[-1].to_wire()


def test_events_arrive_once_over_a_noisy_wire() -> None:
    bench = Bench(seed=5, damage=0.10)
    bench.until(lambda: bench.link.state is Link.UP)
    for _ in range(5):
        bench.board.press()
        bench.until(lambda: bench.cube.button_down)
        bench.board.release()
        bench.until(lambda: not bench.cube.button_down)
    bench.until(lambda: bench.cube.outstanding is None and not bench.cube.events)
    bench.run(2000)
    assert sum(isinstance(e, ButtonPressed) for e in bench.events) == 5


def test_retransmission_follows_the_timeout_and_backs_off() -> None:
    bench = Bench()
    bench.until(lambda: bench.link.state is Link.UP)
    bench.to_cube.cut = bench.to_host.cut = True  # nothing either way: timeouts alone
    bench.link.wanted = numbered(1)
    bench.run(700)
    assert bench.link.rtt.rto == bench.link.config.max_rto  # doubled up to the bound
    assert 4 <= bench.link.stats.retransmits <= 5  # at 25, 75, 175, 375, 625 ms
    bench.to_cube.restore()
    bench.to_host.restore()
    bench.until(lambda: bench.link.shown == numbered(1))
    assert len(bench.applied) == 1
    assert bench.link.rtt.rto == bench.link.rtt.base_rto  # heard again: back off no more


def test_hearing_the_cube_again_resends_at_once() -> None:
    bench = Bench()
    bench.until(lambda: bench.link.state is Link.UP)
    bench.to_cube.cut = True  # our frames are lost, the cube's heartbeats still come
    bench.link.wanted = numbered(1)
    bench.run(1000)
    assert bench.link.rtt.rto < bench.link.config.max_rto  # each heartbeat reset it
    assert bench.link.state is Link.UP


def test_a_silent_wire_is_given_up_and_tried_again() -> None:
    bench = Bench()
    bench.to_host.cut = True
    bench.run(3500)
    assert isinstance(bench.link.error, CubeNoAnswer)
    assert bench.link.state in (Link.DOWN, Link.HANDSHAKE)
    bench.to_host.restore()
    bench.until(lambda: bench.link.state is Link.UP)


def test_another_protocol_version_fails_for_good() -> None:
    link = CubeLink(CubeConfig(port="virtual"))
    link.opened(0.0)
    link.tick(0.0)
    hello = frame.Decoder().feed(link.take_output())[0]
    session = frame.parse_hello(hello.payload)[1]
    reply = bytes([frame.KIND_HELLO_REPLY, 2]) + session.to_bytes(2, "big") + b"\x08\x08\x01x"
    link.receive(frame.encode(0, reply), 0.01)
    assert link.state is Link.FAILED and link.drop_port
    assert isinstance(link.error, CubeVersionError) and "newer" in str(link.error)


def test_a_random_session_each_time_the_port_opens() -> None:
    random.seed(1)
    link = CubeLink(CubeConfig(port="virtual"))
    sessions = set()
    for i in range(20):
        link.opened(float(i))
        link.tick(float(i))
        sessions.add(frame.parse_hello(frame.Decoder().feed(link.take_output())[0].payload)[1])
    assert len(sessions) > 15 and 0 not in sessions
