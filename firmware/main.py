"""The cube's start-up (MicroPython runs main.py at boot): the serial loop round cube.Cube.

The host talks to the cube over the Pico's USB serial port, which is also MicroPython's
REPL. So that the bytes 0x03 inside frames do not interrupt the program, Ctrl-C is
switched off while it runs; to get the REPL back (``table-controller cube flash`` does
this) the host sends the STOP message, or hold the button while plugging the cube in:
the firmware then does not start (safe mode, a dim yellow frame).

An unexpected error restarts the board after a second: the host sees the cable unplugged
and replugged, reconnects and sends the display state again.
"""

import select
import sys
import time

import board_rp2040
import cube
import machine
import micropython

POLL_MS = 5
READ_MAX = 64


class Clock:
    """Milliseconds since boot that never wrap (``ticks_ms`` wraps after about 12 days)."""

    def __init__(self) -> None:
        self.last = time.ticks_ms()
        self.now = 0

    def ms(self) -> int:
        t = time.ticks_ms()
        self.now += time.ticks_diff(t, self.last)
        self.last = t
        return self.now


def run(board: board_rp2040.Board) -> None:
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    clock = Clock()
    c = cube.Cube(board, clock.ms(), board_rp2040.FACE_SUITS)
    micropython.kbd_intr(-1)
    try:
        while not c.stopped:
            if poller.poll(POLL_MS):
                data = bytearray()
                while len(data) < READ_MAX and poller.poll(0):
                    data.extend(stdin.read(1))
                c.receive(data, clock.ms())
            c.tick(clock.ms())
            out = c.take_output()
            if out:
                stdout.write(out)
    finally:
        micropython.kbd_intr(3)
        board.blank()


def main() -> None:
    board = board_rp2040.Board()
    if board.button_down():
        board.safe_mode()
        return
    try:
        run(board)
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # anything else: restart rather than hang
        sys.print_exception(exc)
        time.sleep(1)
        machine.reset()


main()
