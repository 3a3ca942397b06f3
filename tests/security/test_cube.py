"""The trump cube's firmware, run by the emulator behind a real pty: anything that can
write to the cube's port without greeting it first (a stray program, a terminal opened on
the wrong device) cannot stop it or change what it shows."""

from __future__ import annotations

import os
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager

from cube_helpers import WAIT

from table_controller.devices import frame
from table_controller.devices.emulator import CubeEmulator

HEARTS = frame.State(frame.SUIT_HEARTS, frame.SEAT_N, False, 3, 5, 0, 64)


class Port:
    """The host's end of the emulator's pty, opened as any program on the machine could."""

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        self.decoder = frame.Decoder()
        self.frames: list[frame.Frame] = []

    def send(self, seq: int, payload: bytes) -> None:
        os.write(self.fd, frame.encode(seq, payload))

    def wait_for(self, kind: int, timeout: float = WAIT) -> frame.Frame:
        """The first frame of ``kind`` received from now on (every frame is kept)."""
        seen = len(self.frames)
        deadline = time.monotonic() + timeout
        while True:
            for f in self.frames[seen:]:
                if f.kind == kind:
                    return f
            seen = len(self.frames)
            left = deadline - time.monotonic()
            assert left > 0, f"the cube sent no frame of kind {kind:#x} within {timeout} s"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                self.frames.extend(self.decoder.feed(os.read(self.fd, 4096)))

    def acked(self, seq: int) -> bool:
        return any(f.kind == frame.KIND_ACK and f.seq == seq for f in self.frames)


@contextmanager
def emulated_cube() -> Iterator[tuple[CubeEmulator, Port]]:
    emulator = CubeEmulator()
    emulator.start()
    port = Port(emulator.device)
    try:
        yield emulator, port
    finally:
        os.close(port.fd)
        emulator.close()


def test_a_stop_without_a_hello_does_not_halt_the_cube() -> None:
    with emulated_cube() as (emulator, port):
        port.send(1, frame.stop())
        port.send(2, HEARTS.to_payload())
        # Frames are handled in order: once the hello's reply is here, both were seen.
        port.send(0, frame.hello(0x4242, 2000))
        reply = port.wait_for(frame.KIND_HELLO_REPLY)
        assert frame.parse_hello_reply(reply.payload)[1] == 0x4242
        assert not emulator.stopped, "the cube obeyed a STOP from a port that never greeted it"
        assert emulator.applied == [] and emulator.shown_state() is None
        assert not port.acked(1) and not port.acked(2)


def test_messages_without_a_session_are_ignored_until_a_hello() -> None:
    """A hello of another protocol version opens no session either; a good hello does,
    and then the same messages work (``cube flash`` greets the cube, then sends stop)."""
    with emulated_cube() as (emulator, port):
        wrong_version = bytearray(frame.hello(0x1111, 2000))
        wrong_version[1] = frame.PROTOCOL_VERSION + 1
        port.send(0, bytes(wrong_version))
        port.wait_for(frame.KIND_HELLO_REPLY)
        port.send(1, HEARTS.to_payload())
        port.send(0, frame.heartbeat(0x1111))
        beat = port.wait_for(frame.KIND_HEARTBEAT)
        assert frame.parse_heartbeat(beat.payload) == 0  # no session: greet me
        assert emulator.applied == [] and not port.acked(1)
        port.send(0, frame.hello(0x2222, 2000))
        port.wait_for(frame.KIND_HELLO_REPLY)
        port.send(1, HEARTS.to_payload())
        assert port.wait_for(frame.KIND_ACK).seq == 1
        assert emulator.shown_state() == HEARTS
        port.send(2, frame.stop())
        while port.wait_for(frame.KIND_ACK).seq != 2:
            pass
        assert emulator.stopped
