"""Where the table's state goes after the log has it: the seat lights, the trump cube,
the page.

Every sink is driven from the whole state, never from a change: the lights from
``seat_lights``, the cube from ``cube_state``, the page from ``table_view``. Showing the
same state twice changes nothing (``SeatLeds`` skips unchanged seats, the cube link
sends only the newest whole state, the page drops an identical snapshot), so the sinks
can be driven again at any time: after a restart, after a fault clears, on a timer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from table_controller.cards import Card
from table_controller.devices.cube_types import CubeState
from table_controller.devices.seat_lights import SeatLight, TableLights
from table_controller.present import GameOverShown, Notice, TableSnapshot, review_link, table_view
from table_controller.rules.events import OutputEvent
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.across_line import across_lines
from table_controller.table.cube_state import cube_state
from table_controller.table.health import Fault
from table_controller.table.seat_state import seat_lights
from table_controller.vision.across import CardAcross

# Seats with nothing to do: these flash while a device is faulty.
_IDLE = frozenset({SeatLight.OFF, SeatLight.TABLE_READY, SeatLight.DEALER})


# The page's snapshot of the table (present's ``table_view``, its shape present's
# ``TableSnapshot``): JSON the table hands to its policy (which adds to it: the kiosk's
# part is declared there too) and to its page, and reads none of itself.
Snapshot = TableSnapshot


class Lights(Protocol):
    def show(self, lights: TableLights) -> None: ...


class Cube(Protocol):
    def show(self, state: CubeState) -> None: ...


class Page(Protocol):
    def publish(self, snapshot: Snapshot) -> None: ...


def table_lights(
    game: Game,
    last: Sequence[OutputEvent] = (),
    *,
    refused: Iterable[Seat] = (),
    faulty: bool = False,
    laying: Iterable[Seat] = (),
    across: Iterable[Seat] = (),
) -> TableLights:
    """The seat lights with the table's own alerts over the game's: a seat asked to lay
    its five cards (the kiosk's deal: the rules know nothing of it) blinks white; a seat
    whose input was refused flashes blue (the page says why) until its next accepted
    input; a seat whose card lies across a line pulses white until it is pushed into a
    zone (over a refusal: the card is what the player must fix to go on); while a device
    is faulty every idle seat blinks purple, so the players look at the page. A renege's
    red and white, and an irregularity's amber, are never covered."""
    lights = list(seat_lights(game, last))
    for seat in laying:
        if lights[seat] is not SeatLight.RENEGE:
            lights[seat] = SeatLight.LAY_CARDS
    for seat in refused:
        if lights[seat] is not SeatLight.RENEGE:
            lights[seat] = SeatLight.REFUSED
    for seat in across:
        if lights[seat] not in (SeatLight.RENEGE, SeatLight.IRREGULARITY):
            lights[seat] = SeatLight.PUSH_CARD
    if faulty:
        lights = [SeatLight.DEVICE_FAULT if light in _IDLE else light for light in lights]
    return (lights[0], lights[1], lights[2], lights[3])


@dataclass
class Shown:
    """Everything the sinks show besides the game: kept by the table, read by the sinks."""

    table: str
    players: Mapping[Seat, str]
    rules_name: str | None = None
    last: list[OutputEvent] = field(default_factory=list)  # the latest input event's outputs
    recent: list[OutputEvent] = field(default_factory=list)  # this hand's (and the last's)
    faults: tuple[Fault, ...] = ()
    notices: list[Notice] = field(default_factory=list)
    refused: set[Seat] = field(default_factory=set)
    laying: frozenset[Seat] = frozenset()  # (the kiosk) seats asked to lay their cards
    director_called: bool = False
    evidence_urls: dict[Card, str] = field(default_factory=dict)
    # This hand's irregularities raised by an event logged with a picture: that picture
    # (a second copy of a card, a card not of the deck: the card the game did not take).
    pictured: list[tuple[OutputEvent, str]] = field(default_factory=list)
    across: tuple[CardAcross, ...] = ()  # cards the camera sees lying across a zone's line
    version: int = 0
    # The previous game's end, announced until the next game's first deal (present/announce.py):
    # the table keeps it for present's game_over and table_view, and reads none of it.
    ended: GameOverShown | None = None
    game_no: int = 0  # the game's number in the table's log (its review's address)


Trace = Callable[[str, float], None]  # ("lights" | "cube" | "page", the clock after it)
Annotate = Callable[[Game, Snapshot], None]  # adds to the page's snapshot


class Sinks:
    """The devices and the page, any of which may be absent (a table with no cube, the
    replay of a video with no lights)."""

    def __init__(
        self,
        *,
        lights: Lights | None = None,
        cube: Cube | None = None,
        page: Page | None = None,
        clock: Callable[[], float],
        trace: Trace | None = None,
    ) -> None:
        self.lights = lights
        self.cube = cube
        self.page = page
        self._clock = clock
        self.trace = trace
        self.shown_lights: TableLights | None = None
        self.shown_cube: CubeState | None = None
        self.snapshot: Snapshot | None = None

    def drive(self, game: Game, shown: Shown, annotate: Annotate | None = None) -> None:
        """Show ``game`` and ``shown`` on every sink; ``annotate`` adds to the page's
        snapshot before it is published (the policy's: the kiosk's coach, its mode)."""
        across = across_lines(game, shown.across)
        lights = table_lights(
            game,
            shown.last,
            refused=shown.refused,
            faulty=bool(shown.faults),
            laying=shown.laying,
            across=[a.seat for a in across if a.seat is not None],
        )
        self.shown_lights = lights
        if self.lights is not None:
            self.lights.show(lights)
            self._traced("lights")
        state = cube_state(game, shown.last, director_called=shown.director_called)
        self.shown_cube = state
        if self.cube is not None:
            self.cube.show(state)
            self._traced("cube")
        self.snapshot = table_view(
            game,
            table=shown.table,
            players=shown.players,
            faults=shown.faults,
            recent=shown.recent,
            notices=shown.notices,
            evidence_urls=shown.evidence_urls,
            pictured=shown.pictured,
            version=shown.version,
            rules_name=shown.rules_name,
            ended=shown.ended,
            across=across,
        )
        over = self.snapshot["game_over"]
        if over is not None and "review" not in over:  # this game's end: its review
            over["review"] = review_link(shown.game_no)
        if annotate is not None:
            annotate(game, self.snapshot)
        if self.page is not None:
            self.page.publish(self.snapshot)
            self._traced("page")

    def _traced(self, sink: str) -> None:
        if self.trace is not None:
            self.trace(sink, self._clock())


__all__ = ["Annotate", "Shown", "Sinks", "Snapshot", "Trace", "table_lights"]
