"""What the seat buttons report: plain, frozen device events.

These are not the rules' input events. A press says only which button went down;
the table's ``seat_input.press_to_event`` decides, against the game, what the press means (a pass,
an order up, a call naming trump) or refuses it. Faults (a stuck button) go to the
director's screen, never to the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from table_controller.seats import Seat


class SeatButton(Enum):
    """The buttons at a seat. The director button is one for the whole table: the four
    seats' director buttons are wired together to one pin (see docs/seats.md)."""

    PASS = "pass"
    CALL = "call"
    ALONE = "alone"
    DIRECTOR = "director"

    @property
    def words(self) -> str:
        return f"{self.value} button"


SEAT_BUTTONS = (SeatButton.PASS, SeatButton.CALL, SeatButton.ALONE)


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    """A button went down (once per press, however long it is held). ``seat`` is None
    for the table's shared director button."""

    seat: Seat | None
    button: SeatButton


@dataclass(frozen=True, slots=True)
class ButtonStuck:
    """A button has been down too long, or was already down when the table started: a
    jammed button or a wire shorted to ground. Reported once; its presses are ignored
    until it comes up again (``ButtonFreed``)."""

    seat: Seat | None
    button: SeatButton
    pin: int
    at_start: bool

    @property
    def what_to_do(self) -> str:
        where = "the table's director button" if self.seat is None else f"seat {self.seat}'s"
        name = "" if self.seat is None else f" {self.button.words}"
        how = "was already down when the table started" if self.at_start else "is held down"
        return (
            f"{where}{name} (GPIO{self.pin}) {how}: free the button if it is jammed; if it is "
            "not, look for a wire touching ground. It is ignored until it comes up."
        )


@dataclass(frozen=True, slots=True)
class ButtonFreed:
    """A stuck button came up again: it works normally from now on."""

    seat: Seat | None
    button: SeatButton


@dataclass(frozen=True, slots=True)
class DirectorCalled:
    """Someone at the table asked for the director. ``seat`` is None when the press came
    from the shared director button (which cannot tell the seats apart)."""

    seat: Seat | None


ButtonEvent = ButtonPressed | ButtonStuck | ButtonFreed

__all__ = [
    "SEAT_BUTTONS",
    "ButtonEvent",
    "ButtonFreed",
    "ButtonPressed",
    "ButtonStuck",
    "DirectorCalled",
    "SeatButton",
]
