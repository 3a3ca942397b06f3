"""The trump cube, from the host: keeps the cube showing the table's state, whatever the
cable does.

``TrumpCube`` runs a link thread over a port its backend opens, and the protocol in
``CubeLink`` (cube_link.py, no IO of its own). At connect it greets the
cube (hello, with a fresh session number) and checks the protocol version. ``show(state)``
hands it a whole display state; the thread sends it as a reliable message (a sequence
number, an ack expected, retransmitted after a timeout from the measured round trip) and
only the newest state is ever sent, so a burst of changes costs one message. Heartbeats
go both ways; with none for ``link_timeout`` the link is lost: the port is closed and
opened again (a replugged cable comes back the same way: the port errors, disappears,
reappears) and, after a new handshake, the current state is sent again. Re-sending a
whole state cannot apply anything twice.

Events from the cube (the button, a face turned up, the link going up or down) arrive on
a thread-safe queue, read with ``poll()``, and through optional callbacks run on the link
thread (``when_pressed``, ``when_face_up``, ``when_link_changes``). An asyncio table
reads them with ``await loop.run_in_executor(None, cube.poll, 0.5)``, or sets a callback
that does ``loop.call_soon_threadsafe(queue.put_nowait, event)``.

::

    with TrumpCube.from_config(CubeConfig(port="/dev/serial/by-id/usb-MicroPython...")) as cube:
        cube.wait_connected(5)
        cube.show(CubeState(trump=Suit.H, maker=Seat.N, score_ns=3, score_ew=5))
        cube.wait_shown(2)
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable

import serial

from table_controller.devices.cube_backend import CubeBackend, SerialPort
from table_controller.devices.cube_link import CubeLink, CubeStats, Link
from table_controller.devices.cube_types import (
    ButtonPressed,
    CubeConfig,
    CubeError,
    CubeEvent,
    CubeInfo,
    CubeState,
    CubeTimeout,
    FaceTurnedUp,
    LinkChanged,
)

log = logging.getLogger(__name__)

__all__ = ["CubeStats", "Link", "TrumpCube"]


class TrumpCube:
    def __init__(
        self,
        backend: CubeBackend,
        config: CubeConfig | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        self.config = config if config is not None else CubeConfig()
        self._clock = clock
        self._cond = threading.Condition()  # guards the link and the port
        self._link = CubeLink(self.config, backend.describe())
        self._events: queue.Queue[CubeEvent] = queue.Queue()
        self.when_pressed: Callable[[ButtonPressed], None] | None = None
        self.when_face_up: Callable[[FaceTurnedUp], None] | None = None
        self.when_link_changes: Callable[[LinkChanged], None] | None = None
        self._thread: threading.Thread | None = None
        self._closing = False
        self._port: SerialPort | None = None

    @classmethod
    def from_config(cls, config: CubeConfig) -> TrumpCube:
        """A cube on the backend the configuration names (see ``cube_backend``)."""
        from table_controller.devices.cube_backend import cube_backend

        return cls(cube_backend(config), config)

    # --- the public side --------------------------------------------------------------

    def start(self) -> None:
        """Start the link thread; it connects, and reconnects, by itself."""
        if self._thread is None:
            self._link.reason = "connecting"
            self._thread = threading.Thread(target=self._run, name="trump-cube", daemon=True)
            self._thread.start()

    def close(self) -> None:
        with self._cond:
            self._closing = True
            self._wake()
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._cond:
            self._close_port()
        self.backend.close()

    def __enter__(self) -> TrumpCube:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def is_connected(self) -> bool:
        return self._link.state is Link.UP

    @property
    def info(self) -> CubeInfo | None:
        return self._link.info

    @property
    def stats(self) -> CubeStats:
        return self._link.stats

    @property
    def round_trip(self) -> float | None:
        """The smoothed round trip of acknowledged messages, seconds."""
        return self._link.rtt.srtt

    @property
    def retransmit_timeout(self) -> float:
        return self._link.rtt.rto

    @property
    def shown(self) -> CubeState | None:
        """The state the cube has acknowledged since the link last came up."""
        return self._link.shown

    def show(self, state: CubeState) -> None:
        """Make the cube show ``state`` (now if the link is up, else when it comes back).
        Returns at once; ``wait_shown`` waits for the cube's acknowledgement."""
        with self._cond:
            self._link.wanted = state
            self._wake()

    def wait_connected(self, timeout: float) -> CubeInfo:
        """Wait for the handshake; raise what stands in the way (with what to do)."""
        link = self._link
        deadline = self._clock() + timeout
        with self._cond:
            while link.state is not Link.UP:
                if link.state is Link.FAILED and link.error is not None:
                    raise link.error
                left = deadline - self._clock()
                if left <= 0:
                    if link.error is not None:
                        raise link.error
                    raise CubeTimeout(f"no cube after {timeout:g} s: {link.reason}")
                self._cond.wait(left)
            assert link.info is not None
            return link.info

    def wait_shown(self, timeout: float) -> None:
        """Wait until the cube has acknowledged the newest state given to ``show``."""
        link = self._link
        deadline = self._clock() + timeout
        with self._cond:
            while not (link.state is Link.UP and link.shown == link.wanted):
                if link.rejected is not None:
                    raise link.rejected
                if link.state is Link.FAILED and link.error is not None:
                    raise link.error
                left = deadline - self._clock()
                if left <= 0:
                    raise CubeTimeout(
                        f"the cube did not acknowledge the state within {timeout:g} s "
                        f"(link {link.state.value}: {link.reason})"
                    )
                self._cond.wait(left)

    def stop_firmware(self, timeout: float) -> None:
        """Ask the firmware to stop and hand the port to MicroPython's REPL (to flash it).
        Raises ``CubeTimeout`` if it does not acknowledge."""
        link = self._link
        deadline = self._clock() + timeout
        with self._cond:
            link.stop_wanted = True
            self._wake()
            while not link.stopped:
                if link.state is Link.FAILED and link.error is not None:
                    raise link.error
                left = deadline - self._clock()
                if left <= 0:
                    raise CubeTimeout(f"the firmware did not stop within {timeout:g} s")
                self._cond.wait(left)

    def poll(self, timeout: float | None = 0.0) -> CubeEvent | None:
        """The next event, waiting up to ``timeout`` seconds (None: for ever); None if
        there is none. Thread-safe."""
        try:
            if timeout is not None and timeout <= 0:
                return self._events.get_nowait()
            return self._events.get(timeout=timeout)
        except queue.Empty:
            return None

    # --- the link thread --------------------------------------------------------------

    def _wake(self) -> None:
        """Interrupt the link thread's read (called with the lock held, as the port is
        closed only with it held, so the port cannot be closed under this call)."""
        if self._port is not None:
            with contextlib.suppress(OSError, serial.SerialException, TypeError):
                self._port.cancel_read()

    def _is_closing(self) -> bool:
        return self._closing

    def _run(self) -> None:
        while True:
            with self._cond:
                if self._closing:
                    return
                port = self._port
            if port is None:
                self._open()
                continue
            try:
                data = port.read(max(1, port.in_waiting))
            except (serial.SerialException, OSError, TypeError) as exc:
                self._step(b"", f"the port failed ({exc}): the cable was pulled?")
                continue
            out = self._step(data)
            if out:
                try:
                    port.write(out)
                except (serial.SerialException, OSError, TypeError) as exc:
                    self._step(b"", f"writing to the port failed ({exc}): the cable was pulled?")

    def _step(self, data: bytes, failure: str | None = None) -> bytes:
        """Run the link on what was read (or on the port's failure), then hand out the
        events it produced; returns the bytes to write."""
        with self._cond:
            now = self._clock()
            link = self._link
            if failure is not None:
                link.lose(failure, now)
            else:
                link.receive(data, now)
                link.tick(now)
            out = link.take_output()
            if link.drop_port:
                self._close_port()
                out = b""
            events = link.take_events()
            self._cond.notify_all()
        self._dispatch(events)
        return out

    def _open(self) -> None:
        with self._cond:
            while not self._closing:
                left = self._link.next_open - self._clock()
                if left <= 0:
                    break
                self._cond.wait(left)
            if self._closing:
                return
        try:
            port = self.backend.open()
        except CubeError as exc:
            with self._cond:
                self._link.open_failed(exc, self._clock())
                self._cond.notify_all()
            return
        with self._cond:
            if self._is_closing():
                port.close()
                return
            self._port = port
            self._link.opened(self._clock())

    def _close_port(self) -> None:
        if self._port is not None:
            with contextlib.suppress(OSError, serial.SerialException):
                self._port.close()
            self._port = None

    def _dispatch(self, events: list[CubeEvent]) -> None:
        """Hand out events: the queue first, then the callbacks, outside the lock."""
        for event in events:
            self._events.put(event)
            try:
                if isinstance(event, ButtonPressed):
                    if self.when_pressed is not None:
                        self.when_pressed(event)
                elif isinstance(event, FaceTurnedUp):
                    if self.when_face_up is not None:
                        self.when_face_up(event)
                elif self.when_link_changes is not None:
                    self.when_link_changes(event)
            except Exception:  # a callback's bug must not stop the link
                log.exception("a trump cube callback failed on %s", event)
