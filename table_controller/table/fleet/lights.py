"""The join code on the seat lights, for a table whose page nobody can see.

The four digits are counted out in white, one seat at a time in the order of play:
North blinks the first digit (4719: four blinks), then East the second, South the
third, West the fourth; then all four glow dim together, which says "from North
again". Digits run 1 to 9, so a seat is never silent, and a person standing at the
table reads the code by counting. One blink a beat (0.35 s on, 0.35 s off) is slow
enough to count and well under the three flashes a second photosensitivity guidelines
allow.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from table_controller.devices.seat_lights import RGB
from table_controller.seats import SEATS, Seat

BEAT = 0.35  # seconds: one blink is a beat on, a beat off
WHITE: RGB = (1.0, 1.0, 1.0)
DARK: RGB = (0.0, 0.0, 0.0)
GLOW: RGB = (0.15, 0.15, 0.15)  # "from North again"
BETWEEN_SEATS = 3  # beats of dark between one seat's count and the next
AGAIN = 6  # beats of the dim glow
BEFORE_AGAIN = 2  # beats of dark before a new round
SeatColours = tuple[RGB, RGB, RGB, RGB]  # indexed by Seat


@dataclass(frozen=True)
class Step:
    """What every seat shows for ``beats`` beats."""

    lights: SeatColours
    beats: int


def _only(seat: Seat, rgb: RGB) -> SeatColours:
    colours = [DARK, DARK, DARK, DARK]
    colours[seat] = rgb
    return (colours[0], colours[1], colours[2], colours[3])


def code_steps(code: str) -> list[Step]:
    """One round of the pattern that shows ``code`` (four digits 1-9)."""
    if len(code) != len(SEATS) or not all("1" <= c <= "9" for c in code):
        raise ValueError(f"a join code is four digits from 1 to 9, not {code!r}")
    steps: list[Step] = []
    all_dark: SeatColours = (DARK, DARK, DARK, DARK)
    for seat, digit in zip(SEATS, code, strict=True):
        for _ in range(int(digit)):
            steps.append(Step(_only(seat, WHITE), 1))
            steps.append(Step(all_dark, 1))
        steps[-1] = Step(all_dark, 1 + BETWEEN_SEATS)
    steps[-1] = Step(all_dark, 1)
    steps.append(Step((GLOW, GLOW, GLOW, GLOW), AGAIN))
    steps.append(Step(all_dark, BEFORE_AGAIN))
    return steps


def read_code(frames: Sequence[SeatColours]) -> str:
    """The code a person counts from one round of frames (the test of the pattern):
    each seat's separate white blinks, in the order the seats blink."""
    counts = {seat: 0 for seat in SEATS}
    order: list[Seat] = []
    previous: SeatColours = (DARK, DARK, DARK, DARK)
    for frame in frames:
        for seat in SEATS:
            if frame[seat] == WHITE and previous[seat] != WHITE:
                counts[seat] += 1
                if seat not in order:
                    order.append(seat)
        previous = frame
    return "".join(str(counts[seat]) for seat in order)


class LightsPlayer:
    """Plays ``code_steps`` round after round on a thread until ``stop()``.

    ``set_colour(seat, rgb)`` drives a light (``SeatLeds.set_colour``); ``wait(seconds)``
    waits or returns True when stopped (a test passes its own to record every frame)."""

    def __init__(
        self,
        set_colour: Callable[[Seat, RGB], None],
        *,
        beat: float = BEAT,
        wait: Callable[[float], bool] | None = None,
    ) -> None:
        self._set = set_colour
        self._beat = beat
        self._stopped = threading.Event()
        self._wait = wait if wait is not None else self._stopped.wait
        self._steps: list[Step] = []
        self._changed = threading.Condition()
        self.rounds = 0  # rounds shown in full since the last code
        self._thread: threading.Thread | None = None

    def show(self, code: str) -> None:
        steps = code_steps(code)
        with self._changed:
            self._steps = steps
            self.rounds = 0
            self._changed.notify_all()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="join-lights", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        shown: list[RGB | None] = [None, None, None, None]
        while not self._stopped.is_set():
            with self._changed:
                steps = self._steps
            for step in steps:
                for seat in SEATS:
                    if step.lights[seat] != shown[seat]:
                        self._set(seat, step.lights[seat])
                        shown[seat] = step.lights[seat]
                if self._wait(step.beats * self._beat) or self._stopped.is_set():
                    return
                if self._steps is not steps:
                    break  # a new code: start it from North
            else:
                self.rounds += 1


__all__ = ["BEAT", "LightsPlayer", "Step", "code_steps", "read_code"]
