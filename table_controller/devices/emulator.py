"""The trump cube without the cube: the real firmware logic behind a pseudo-terminal.

``CubeEmulator`` runs ``firmware/cube.py`` (and through it ``display.py`` and the shared
``frame.py``) in a thread, wired to the master side of a pty. The slave side is a real
serial device (``/dev/pts/N``): the host opens it with pyserial as it would open the
cube's ``/dev/ttyACM0``, and a person can open it with a serial terminal. A stable path
(``link``) can point at it, as ``/dev/serial/by-id/...`` points at a real cube.

The board is ``EmulatedBoard``: the matrix is a pixel buffer (as text, or a PNG), the
button and the accelerometer are driven by calls. The emulator can also unplug the cube
(the device disappears, the cube loses power), plug it back (a new pty, a freshly booted
cube), cut the line (bytes lost both ways, the device still there) and damage bytes on
their way to the cube and back (``to_cube`` and ``to_host``, each a ``LineFaults``):
what the tests and the benchmark do to the link.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from table_controller.devices import firmware, frame

if TYPE_CHECKING:
    from firmware import cube as cube_module
    from table_controller.devices.cube_types import CubeState

WIDTH = 8
HEIGHT = 8
TICK = 0.005  # the firmware's loop: poll the line, then tick (main.py polls for 5 ms too)
# The faces' suits on the emulated cube: as board_rp2040.FACE_SUITS.
FACE_SUITS = (0, 0, frame.SUIT_CLUBS, frame.SUIT_DIAMONDS, frame.SUIT_HEARTS, frame.SUIT_SPADES)
_FACE_VECTORS = {0: (0, 0, 1), 1: (0, 0, -1), 2: (1, 0, 0), 3: (-1, 0, 0), 4: (0, 1, 0)}
_FACE_VECTORS[5] = (0, -1, 0)

_COLOUR_NAMES = (  # for text(): the nearest of these, by hue
    ("R", (1, 0, 0)),
    ("O", (1, 0.4, 0)),
    ("Y", (1, 0.75, 0)),
    ("G", (0, 1, 0.2)),
    ("C", (0, 1, 1)),
    ("B", (0, 0.35, 1)),
    ("P", (0.6, 0, 1)),
    ("M", (1, 0, 0.75)),
    ("W", (1, 1, 1)),
)


def colour_letter(rgb: tuple[int, int, int]) -> str:
    """One letter for a lit LED (R red, O orange, Y yellow, G green, C cyan, B blue,
    P purple, M magenta, W white), ``.`` for a dark one."""
    peak = max(rgb)
    if peak == 0:
        return "."
    norm = [c / peak for c in rgb]

    def distance(ref: tuple[float, float, float]) -> float:
        return sum((a - b) ** 2 for a, b in zip(norm, ref, strict=True))

    return min(_COLOUR_NAMES, key=lambda item: distance(item[1]))[0]


class EmulatedBoard:
    """The cube's hardware in memory. ``show`` is called from the emulator's thread; the
    rest from anywhere."""

    def __init__(self, accelerometer: bool = True) -> None:
        self._changed = threading.Condition()
        self.pixels = bytes(WIDTH * HEIGHT * 3)
        self.frames_shown = 0
        self._button = False
        self._accel: tuple[float, float, float] | None = (0.0, 0.0, 1.0) if accelerometer else None

    # the firmware's side
    def show(self, pixels: bytearray) -> None:
        with self._changed:
            self.pixels = bytes(pixels)
            self.frames_shown += 1
            self._changed.notify_all()

    def button_down(self) -> bool:
        return self._button

    def acceleration(self) -> tuple[float, float, float] | None:
        return self._accel

    # a person's side
    def press(self) -> None:
        self._button = True

    def release(self) -> None:
        self._button = False

    def turn_face_up(self, face: int) -> None:
        """Lay the cube down with ``face`` up (0 the matrix, 2..5 the suit faces)."""
        if self._accel is None:
            raise ValueError("this emulated cube has no accelerometer")
        if face not in _FACE_VECTORS:
            raise ValueError(f"face {face}: a cube has faces 0 to 5")
        x, y, z = _FACE_VECTORS[face]
        self._accel = (float(x), float(y), float(z))

    def pick_up(self) -> None:
        """In the hand: tilted, so no face is up."""
        if self._accel is not None:
            self._accel = (0.6, 0.6, 0.5)

    def power_off(self) -> None:
        self.show(bytearray(WIDTH * HEIGHT * 3))

    # looking at it
    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        i = (y * WIDTH + x) * 3
        p = self.pixels
        return (p[i], p[i + 1], p[i + 2])

    def text(self) -> str:
        """The matrix as 8 lines of 8 letters (see ``colour_letter``)."""
        return "\n".join(
            "".join(colour_letter(self.pixel(x, y)) for x in range(WIDTH)) for y in range(HEIGHT)
        )

    def wait_for(self, check: Callable[[EmulatedBoard], bool], timeout: float) -> bool:
        """Wait until ``check(board)`` holds after a redraw (or already does)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not check(self):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True

    def save_png(self, path: str | Path, led: int = 32) -> None:
        """The matrix as a picture a person can look at: round LEDs on a dark board, each
        lit LED brightened so the dimmest setting is still readable on a screen."""
        from PIL import Image, ImageDraw

        size = led * WIDTH
        image = Image.new("RGB", (size, size), (18, 18, 18))
        draw = ImageDraw.Draw(image)
        for y in range(HEIGHT):
            for x in range(WIDTH):
                r, g, b = self.pixel(x, y)
                peak = max(r, g, b)
                colour = (40, 40, 40) if peak == 0 else tuple(c * 255 // peak for c in (r, g, b))
                box = (x * led + 3, y * led + 3, (x + 1) * led - 4, (y + 1) * led - 4)
                draw.ellipse(box, fill=colour)
        image.save(str(path))


class LineFaults:
    """What can go wrong on the wire, one way: each byte is dropped, corrupted (XOR with
    a random non-zero byte) or sent twice with the given probabilities; ``cut`` loses
    everything; ``cut_after(n)`` lets n more bytes through first (to cut the line in the
    middle of a frame)."""

    def __init__(
        self,
        drop: float = 0.0,
        corrupt: float = 0.0,
        duplicate: float = 0.0,
        seed: int | None = None,
    ) -> None:
        if drop + corrupt + duplicate > 1:
            raise ValueError("drop + corrupt + duplicate must not exceed 1")
        self.drop = drop
        self.corrupt = corrupt
        self.duplicate = duplicate
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self.cut = False
        self._cut_after: int | None = None
        self.bytes_in = 0
        self.dropped = 0
        self.corrupted = 0
        self.duplicated = 0
        self.lost_to_cut = 0

    def cut_after(self, count: int) -> None:
        with self._lock:
            self._cut_after = count

    def restore(self) -> None:
        with self._lock:
            self.cut = False
            self._cut_after = None

    def apply(self, data: bytes) -> bytes:
        with self._lock:
            self.bytes_in += len(data)
            if self._cut_after is not None:
                passed, rest = data[: self._cut_after], data[self._cut_after :]
                self._cut_after -= len(passed)
                if self._cut_after == 0:
                    self.cut = True
                    self._cut_after = None
                self.lost_to_cut += len(rest)
                data = passed
            elif self.cut:
                self.lost_to_cut += len(data)
                return b""
            if not (self.drop or self.corrupt or self.duplicate):
                return data
            out = bytearray()
            rng = self._rng
            for byte in data:
                r = rng.random()
                if r < self.drop:
                    self.dropped += 1
                elif r < self.drop + self.corrupt:
                    self.corrupted += 1
                    out.append(byte ^ rng.randrange(1, 256))
                elif r < self.drop + self.corrupt + self.duplicate:
                    self.duplicated += 1
                    out += bytes((byte, byte))
                else:
                    out.append(byte)
            return bytes(out)


@dataclass(frozen=True)
class Applied:
    """A state the firmware applied: the log the tests check for loss and duplicates."""

    state: frame.State
    seq: int
    session: int
    boot: int  # 1 for the first power-on, 2 after the first replug, ...
    at: float


@dataclass(frozen=True)
class Delivery:
    """How states sent one at a time fared, judged from the firmware's log.

    Applied twice is the failure the sequence numbers prevent: one (session, seq)
    applied more than once. A state sent again after a reconnect is a new message (a new
    session) applying the same snapshot, by design; it is counted apart."""

    lost: int  # sent, never applied
    twice: int  # one (boot, session, seq) applied more than once
    resent: int  # the same snapshot applied again after a reconnect
    wrong: int  # applied, never sent (a damaged frame that passed its CRC)
    in_order: bool  # the states applied in the order they were sent


def delivery(applied: list[Applied], sent: list[CubeState]) -> Delivery:
    """Judge ``applied`` (the emulator's log) against the states ``sent``."""
    keys = [(a.boot, a.session, a.seq) for a in applied]
    wire = [s.to_wire() for s in sent]
    distinct: list[frame.State] = []
    resent = 0
    for a in applied:
        if distinct and distinct[-1] == a.state:
            resent += 1
        else:
            distinct.append(a.state)
    return Delivery(
        lost=sum(1 for w in wire if w not in distinct),
        twice=len(keys) - len(set(keys)),
        resent=resent,
        wrong=sum(1 for d in distinct if d not in wire),
        in_order=distinct == [w for w in wire if w in distinct],
    )


class CubeEmulator:
    """The firmware on a pty. ``start()`` returns the device path to open.

    With ``port``, the firmware runs on that serial device instead of a pty of its own:
    the end of a line someone else made, such as the pseudo-terminal QEMU wires to a
    virtual machine's serial port (the Pi in a box's ttyS1), so the host at the far end
    opens a real serial device of its own machine. Unplugging closes the port (the line
    goes quiet); plugging in opens it again, with a freshly booted cube.
    """

    def __init__(
        self,
        *,
        link: str | Path | None = None,
        to_cube: LineFaults | None = None,
        to_host: LineFaults | None = None,
        accelerometer: bool = True,
        face_suits: tuple[int, ...] = FACE_SUITS,
        port: str | Path | None = None,
    ) -> None:
        if port is not None and link is not None:
            raise ValueError("a cube on a given port has no link of its own: give one or the other")
        self.port = Path(port) if port is not None else None
        self.board = EmulatedBoard(accelerometer)
        self.to_cube = to_cube if to_cube is not None else LineFaults()
        self.to_host = to_host if to_host is not None else LineFaults()
        self.link = Path(link) if link is not None else None
        self.face_suits = face_suits
        self.applied: list[Applied] = []
        self.boots = 0
        self.stopped = False  # the firmware obeyed STOP (it would be at the REPL now)
        self._lock = threading.RLock()
        self._applied_changed = threading.Condition(self._lock)
        self._master: int | None = None
        self._slave: int | None = None
        self._slave_path = ""
        self._cube: cube_module.Cube | None = None
        self._wake_r, self._wake_w = os.pipe()
        self._wake_lock = threading.Lock()
        self._loop_done = False
        self._loop_closes = False
        self._thread: threading.Thread | None = None
        self._running = False
        self._t0 = time.monotonic()

    # --- the device -------------------------------------------------------------------

    @property
    def device(self) -> str:
        """The path a host opens: the stable link if there is one, else the pty."""
        return str(self.link) if self.link is not None else self._slave_path

    @property
    def pty(self) -> str:
        """The pty's own path (``/dev/pts/N``); it changes at every replug."""
        return self._slave_path

    @property
    def plugged_in(self) -> bool:
        return self._master is not None

    @property
    def cube(self) -> cube_module.Cube | None:
        """The running firmware (None while unplugged)."""
        return self._cube

    def _now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def start(self) -> str:
        self._plug()
        self._running = True
        self._loop_done = False
        self._thread = threading.Thread(target=self._run, name="cube-emulator", daemon=True)
        self._thread.start()
        return self.device

    def _plug(self) -> None:
        if self.port is not None:
            try:
                fd = os.open(self.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            except OSError as exc:
                raise OSError(
                    exc.errno,
                    f"cannot open the serial port {self.port} for the cube: {exc.strerror}",
                ) from exc
            tty.setraw(fd)  # bytes as they are, as on the Pico's USB serial
            self._slave_path = str(self.port)
            self._master, self._slave = fd, None
            self._boot()
            return
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line editing: bytes as they are
        os.set_blocking(master, False)
        self._slave_path = os.ttyname(slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
            tmp.symlink_to(self._slave_path)
            tmp.replace(self.link)
        self._master, self._slave = master, slave
        self._boot()

    def _boot(self) -> None:
        self.boots += 1
        self.stopped = False
        cube = firmware.new_cube(self.board, self._now_ms(), self.face_suits)
        boot = self.boots
        cube.on_state = lambda state, seq: self._log(state, seq, cube.session, boot)
        self._cube = cube

    def _log(self, state: frame.State, seq: int, session: int, boot: int) -> None:
        with self._applied_changed:
            self.applied.append(Applied(state, seq, session, boot, time.monotonic()))
            self._applied_changed.notify_all()

    def unplug(self) -> None:
        """Pull the cable: the device path disappears, the cube loses power (and state)."""
        with self._lock:
            if self._master is None:
                return
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            self._cube = None
            if self.link is not None:
                with contextlib.suppress(FileNotFoundError):
                    self.link.unlink()
            self.board.power_off()
        self._wake()

    def plug_in(self) -> str:
        """Plug the cable back in: a new pty (the link moves to it), a freshly booted cube."""
        with self._lock:
            if self._master is None:
                self._plug()
        self._wake()
        return self.device

    def reset(self) -> None:
        """The cube restarts but its USB device stays (a watchdog, a brown-out): a fresh
        firmware on the same pty, with no state and no session."""
        with self._lock:
            if self._master is not None:
                self._boot()

    def cut(self) -> None:
        """The line goes dead both ways but the device stays (a broken wire, a hung hub)."""
        self.to_cube.cut = True
        self.to_host.cut = True

    def restore(self) -> None:
        self.to_cube.restore()
        self.to_host.restore()

    def close(self) -> None:
        self._running = False
        self._wake()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.unplug()
        with self._wake_lock:  # a loop still finishing a step (a loaded machine) closes them
            if self._thread is None or self._loop_done:
                self._close_wake()
            else:
                self._loop_closes = True

    def _close_wake(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    def __enter__(self) -> CubeEmulator:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")

    # --- the firmware's loop ----------------------------------------------------------

    def _run(self) -> None:
        while self._running:
            master = self._master
            fds = [self._wake_r] if master is None else [self._wake_r, master]
            try:
                ready, _, _ = select.select(fds, [], [], TICK)
            except (OSError, ValueError):  # the pty closed under us by unplug()
                continue
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)
            with self._lock:
                self._step(master is not None and master in ready)
        with self._wake_lock:
            self._loop_done = True
            if self._loop_closes:
                self._close_wake()

    def _step(self, readable: bool) -> None:
        master, cube = self._master, self._cube
        if master is None or cube is None:
            return
        data = b""
        if readable:
            try:
                data = os.read(master, 4096)
            except (BlockingIOError, InterruptedError):
                data = b""
            except OSError:  # EIO: no one has the port open; the cube waits
                data = b""
        now = self._now_ms()
        if self.stopped:
            return  # at the REPL: the firmware no longer runs
        if data:
            cube.receive(self.to_cube.apply(data), now)
        cube.tick(now)
        out = cube.take_output()
        if cube.stopped:
            # before its last bytes go out: the host may look as soon as it has the ack
            self.stopped = True
        if out:
            out = self.to_host.apply(out)
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(master, out)  # a full buffer drops bytes, as USB serial does

    # --- what the tests look at -------------------------------------------------------

    def shown_state(self) -> frame.State | None:
        """The state the firmware holds now (None: never told, or unplugged)."""
        cube = self._cube
        return None if cube is None else cube.state
