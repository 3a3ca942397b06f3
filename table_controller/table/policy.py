"""What a table may be given to be a particular kind of table (the kiosk: kiosk/kiosk.py).

The running table (app.py) and its core (core.py) ask their policy at a few points:
how an input is taken, what happens when a game starts or is resumed, what the sinks
show, and what to do each check, at the start and at the stop. ``PlainTable`` is the
club or tournament table: it adds nothing. A policy is a plain object with these
methods; nothing in it overrides the table's own.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from table_controller.rules.events import InputEvent, OutputEvent
from table_controller.rules.game import Game
from table_controller.table.sinks import Shown

if TYPE_CHECKING:
    import asyncio

    from table_controller.feed.signing import Ruling
    from table_controller.table.app import Table

Refusal = tuple[str, str]  # (what went wrong, what to do)


class Pass(enum.Enum):
    """A policy's answer for an input it leaves to the table's own ways."""

    ON = "on"


PASS = Pass.ON


@dataclass
class Input:
    """Something a source noticed, waiting for the table's consumer."""

    source: str  # "camera", "button", "cube", "page", "operator", "director", "sim", "bot"
    what: Any  # a Seen, a ButtonPressed, a page payload or an InputEvent
    evidence: bytes | None = None
    reply: asyncio.Future[Refusal | None] | None = None
    at: float = 0.0  # the table's clock when it was noticed (the frame read, the press)
    address: str = ""  # the page's client, for a touch on the page
    ruling: Ruling | None = None  # the director's signed ruling that carries ``what``


class TablePolicy(Protocol):
    """The points where a kind of table differs from the plain one."""

    page_extra: frozenset[str]  # event names the page takes besides the rules'
    operator_pin: str  # a PIN hash that makes the page's operator when [web] has none

    def attach(self, table: Table) -> None:
        """Given the table it runs, before the log is replayed."""

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

    def attach(self, table: Table) -> None:
        pass

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

    def driven(self) -> None:
        pass

    def check(self, now: float) -> None:
        pass

    def starting(self) -> None:
        pass

    async def stopped(self) -> None:
        pass


__all__ = ["PASS", "Input", "Pass", "PlainTable", "Refusal", "TablePolicy"]
