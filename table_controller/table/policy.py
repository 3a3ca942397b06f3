"""What a table may be given to be a particular kind of table (the kiosk: kiosk/kiosk.py).

The running table (app.py) and its core (core.py) ask their policy at a few points:
how an input is taken, what happens when a game starts or is resumed, what the sinks
show (and what the page's snapshot adds), the names the page gives the players, and
what to do each check, at the start and at the stop. ``PlainTable`` is the club or
tournament table: it adds nothing. A policy is a plain object with these methods;
nothing in it overrides the table's own.

A policy is given its table as ``PolicyTable``: the table's control (ports.py) and what
a kind of table may do besides (apply an event of its own, start a game, refuse, ask
for the operator's PIN), never the table's parts.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Protocol

from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.seats import Seat
from table_controller.table.noticed import Input, Refusal, Source
from table_controller.table.ports import TableControl
from table_controller.table.sinks import Shown, Snapshot


class Pass(enum.Enum):
    """A policy's answer for an input it leaves to the table's own ways."""

    ON = "on"


PASS = Pass.ON


class PolicyTable(TableControl, Protocol):
    """The table as its policy sees it: its control, and what a kind of table may do."""

    @property
    def started(self) -> bool: ...

    @property
    def stopping(self) -> bool: ...

    def stop(self) -> None:
        """Ask the running table to stop."""
        ...

    @property
    def recent(self) -> list[OutputEvent]:
        """This hand's outputs (and the last's), as the page shows them."""
        ...

    async def apply(
        self, event: InputEvent, source: Source, evidence: bytes | None = None
    ) -> Refusal | None:
        """Push, log, show ``event`` (None: taken; else the refusal, shown)."""
        ...

    def record_now(self, event: InputEvent, source: Source) -> None:
        """Push and log an event the table decided itself, at once."""
        ...

    def start_game(self) -> None:
        """A new game in the log (the one in play ends there)."""
        ...

    def record(self, line: str) -> None:
        """A line in the log's records."""
        ...

    def refuse(self, seat: Seat | None, problem: str, fix: str, source: str) -> Refusal:
        """An input refused: on the page, the seat's light, and in the log."""
        ...

    def drive(self) -> None:
        """Show the whole state on every sink again (no new version)."""
        ...

    async def pin_refusal(self, pin: object, stored: str, where: str) -> Refusal | None:
        """Whether ``pin`` (typed at the table's own screen) is ``stored``'s: None, or why
        not; wrong ones rate-limited (page/door.py)."""
        ...

    def pin_wait(self) -> float:
        """Seconds before a PIN typed at the table's own screen is heard."""
        ...


class TablePolicy(Protocol):
    """The points where a kind of table differs from the plain one."""

    page_extra: frozenset[str]  # event names the page takes besides the rules'
    operator_pin: str  # a PIN hash that makes the page's operator when [web] has none

    def attach(self, table: PolicyTable) -> None:
        """Given the table it runs, before the log is replayed."""

    def page_names(self, players: Mapping[Seat, str]) -> dict[Seat, str]:
        """The players' names as the page shows them (the log keeps ``players``)."""

    async def take(self, item: Input) -> Refusal | Pass | None:
        """Take ``item`` (None: taken; a refusal), or ``PASS`` it on to the table."""

    def game_started(self) -> None:
        """A new game was started in the log."""

    def resumed(self) -> None:
        """The log's last game was replayed (the table starts on it)."""

    def noted(self, outputs: list[OutputEvent]) -> None:
        """An event's outputs, logged or replayed."""

    def accepted(self, event: InputEvent, outputs: list[OutputEvent]) -> None:
        """An input was taken, logged and shown."""

    def showing(self, game: Game, shown: Shown) -> tuple[Game, Shown]:
        """What the sinks show now (the game and what the table keeps besides)."""

    def annotate(self, game: Game, snapshot: Snapshot) -> None:
        """Add to the page's snapshot of ``game`` before it is published."""

    def driven(self) -> None:
        """The sinks were driven."""

    def check(self, now: float) -> None:
        """The table's periodic check (after its own)."""

    def starting(self) -> None:
        """The table's event loop runs; its devices are not open yet."""

    async def stopped(self) -> None:
        """The table has stopped: anything of the policy's own is closed here."""


class PlainTable:
    """The table with nothing added: a club's or a tournament's."""

    page_extra: frozenset[str] = frozenset()
    operator_pin = ""

    def attach(self, table: PolicyTable) -> None:
        pass

    def page_names(self, players: Mapping[Seat, str]) -> dict[Seat, str]:
        return dict(players)

    async def take(self, item: Input) -> Refusal | Pass | None:
        return PASS

    def game_started(self) -> None:
        pass

    def resumed(self) -> None:
        pass

    def noted(self, outputs: list[OutputEvent]) -> None:
        pass

    def accepted(self, event: InputEvent, outputs: list[OutputEvent]) -> None:
        pass

    def showing(self, game: Game, shown: Shown) -> tuple[Game, Shown]:
        return game, shown

    def annotate(self, game: Game, snapshot: Snapshot) -> None:
        pass

    def driven(self) -> None:
        pass

    def check(self, now: float) -> None:
        pass

    def starting(self) -> None:
        pass

    async def stopped(self) -> None:
        pass


__all__ = ["PASS", "Pass", "PlainTable", "PolicyTable", "TablePolicy"]
